package kernel

import (
	"fmt"
	"strconv"
)

// FormatSize is the one way quarry writes a byte count, for the user and
// the model alike: binary units labelled as such (512 B, 1.5 KiB, 12 MiB,
// 2 GiB), one decimal, none when it is zero.
func FormatSize(n int64) string {
	const unit = 1024
	if n < unit && n > -unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, i := float64(n)/unit, 0
	for ; (v >= unit || v <= -unit) && i < 4; i++ {
		v /= unit
	}
	s := strconv.FormatFloat(v, 'f', 1, 64)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		s = s[:len(s)-2]
	}
	return fmt.Sprintf("%s %s", s, [...]string{"KiB", "MiB", "GiB", "TiB", "PiB"}[i])
}

package render

import (
	"fmt"
	"time"

	"github.com/quarry-cli/quarry/kernel"
)

// CellSummary is the one line both front ends show for a finished cell:
// "done in 1.2s", "failed: KeyError in 300ms", "timed out after 2m00s",
// "interrupted after 3.0s", "out of memory after 4.1s", "crashed after
// 1.0s". The chat puts it in the cell's header, the headless mode in its
// progress line. Sanitized.
func CellSummary(r *kernel.Result) string {
	if r == nil {
		return "done"
	}
	d := FormatDuration(r.Duration)
	e := r.Error
	if e == nil {
		return "done in " + d
	}
	after := ""
	if r.Duration > 0 {
		after = " after " + d
	}
	switch e.Kind {
	case kernel.ErrTimeout:
		return "timed out" + after
	case kernel.ErrInterrupted:
		return "interrupted" + after
	case kernel.ErrOutOfMemory:
		return "out of memory" + after
	case kernel.ErrCrashed:
		return "crashed" + after
	}
	what := "failed"
	if t := SanitizeLine(e.Type); t != "" {
		what = "failed: " + t
	}
	return what + " in " + d
}

// FormatDuration is how long something took, for people: 450ms, 2.0s,
// 1m05s.
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	default:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
}

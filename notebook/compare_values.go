package notebook

import (
	"regexp"
	"strconv"
	"strings"
)

// One value a notebook shows against the one a rerun shows, whatever
// their cut display (compare_table.go says where each comes from).

var (
	thousands = regexp.MustCompile(`(\d),(\d{3})`)
	dateRe    = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?$`)
)

// cellValue is a cell as compared: digit groups and space dropped, a date
// with its time (midnight when it has none, no trailing zeros).
func cellValue(s string) string {
	s = strings.TrimSpace(s)
	for thousands.MatchString(s) {
		s = thousands.ReplaceAllString(s, "$1$2")
	}
	if m := dateRe.FindStringSubmatch(s); m != nil {
		t := m[2]
		if t == "" {
			t = "00:00"
		}
		if len(t) == 5 {
			t += ":00"
		}
		if i := strings.IndexByte(t, '.'); i >= 0 {
			if t = strings.TrimRight(t, "0"); strings.HasSuffix(t, ".") {
				t = t[:len(t)-1]
			}
		}
		return m[1] + " " + t
	}
	return s
}

// sameValue tells whether a value a notebook shows and one a rerun shows
// are the same, whatever their cut display: a long string cut at either
// width, a number at either precision, a date with or without its time.
func sameValue(was, now string) bool {
	a, b := cellValue(was), cellValue(now)
	if a == b {
		return true
	}
	if p, ok := cutPrefix(a); ok && strings.HasPrefix(b, p) {
		return true
	}
	if p, ok := cutPrefix(b); ok && strings.HasPrefix(a, p) {
		return true
	}
	if pa, ok := cutPrefix(a); ok {
		if pb, ok := cutPrefix(b); ok && (strings.HasPrefix(pa, pb) || strings.HasPrefix(pb, pa)) {
			return true
		}
	}
	return sameNumber(a, b)
}

// cutPrefix is what is left of a string cut for display ("abc..." by
// pandas, "abc…" by the kernel).
func cutPrefix(s string) (string, bool) {
	for _, mark := range []string{"...", "…"} {
		if p, ok := strings.CutSuffix(s, mark); ok && p != "" {
			return p, true
		}
	}
	return "", false
}

// sameNumber: both numbers, equal at the coarser precision shown.
func sameNumber(a, b string) bool {
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	tol := max(halfUnit(a), halfUnit(b))
	diff := x - y
	if diff < 0 {
		diff = -diff
	}
	return diff <= tol*(1+1e-9)+1e-12*max(abs(x), abs(y))
}

// halfUnit is half the last digit's place of a number as written: 0.005
// for 1.23, 0.5e4 for 1.2e+04, 0 for an integer.
func halfUnit(s string) float64 {
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		exp, _ = strconv.Atoi(s[i+1:])
	}
	dec := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		dec = len(mant) - i - 1
	} else if exp == 0 {
		return 0
	}
	u := 0.5
	for range dec {
		u /= 10
	}
	for range exp {
		u *= 10
	}
	for e := exp; e < 0; e++ {
		u /= 10
	}
	return u
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

package ground

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A number's body as written: digit groups and the separators between them,
// read into a value by a style (which of "," and "." is the decimal mark).
type body struct {
	start, end int
	groups     []string
	seps       []string
}

// style says which mark is the decimal one when a number alone cannot.
type style int

const (
	styleEN style = iota // 1,234.56
	styleDE              // 1.234,56 (also fr: 1 234,56)
)

// reading is one way to read a body: its value and the decimals it shows.
type reading struct {
	v        float64
	decimals int
	digits   string // every digit shown, without marks: v is digits × 10^-decimals
}

// spaceSep reports the space-like group separators at s[i:]: a no-break
// space, a narrow no-break space, a thin space and, where allowed, a plain
// space.
func spaceSep(s string, i int, plain bool) int {
	switch {
	case strings.HasPrefix(s[i:], "\u00a0"):
		return 2
	case strings.HasPrefix(s[i:], "\u202f"), strings.HasPrefix(s[i:], "\u2009"):
		return 3
	case plain && s[i] == ' ':
		return 1
	}
	return 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digitsAt(s string, i int) int {
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	return j - i
}

// scanBody reads the digit groups starting at s[i] (a digit). Spaces group
// digits only in threes, and a plain space only when plainSpace is set
// (text that uses it, such as French); an apostrophe groups in threes.
func scanBody(s string, i int, plainSpace bool) body {
	b := body{start: i}
	n := digitsAt(s, i)
	b.groups = append(b.groups, s[i:i+n])
	i += n
	for i < len(s) {
		var w int
		three := false
		switch c := s[i]; {
		case c == ',' || c == '.':
			w = 1
		case c == '\'':
			w, three = 1, true
		case strings.HasPrefix(s[i:], "’"):
			w, three = len("’"), true
		default:
			if w = spaceSep(s, i, plainSpace); w > 0 {
				three = true
			}
		}
		if w == 0 || i+w >= len(s) || !isDigit(s[i+w]) {
			break
		}
		n := digitsAt(s, i+w)
		if three && (n != 3 || len(b.groups[0]) > 3) {
			break
		}
		b.seps = append(b.seps, s[i:i+w])
		b.groups = append(b.groups, s[i+w:i+w+n])
		i += w + n
	}
	b.end = i
	return b
}

// read gives the readings of b: the first in the given style, a second
// when the other style reads it differently (1,234 or 1.234 alone). ok is
// false for shapes that are no number (1.2.3, 1,23,4).
func (b body) read(st style) (first reading, second *reading, ok bool) {
	if len(b.seps) == 0 {
		return intReading(b.groups[0]), nil, true
	}
	last := b.seps[len(b.seps)-1]
	lastDec := last == "," || last == "."
	mixed := false
	for _, s := range b.seps[:len(b.seps)-1] {
		if s != last {
			mixed = true
		} else if lastDec && mixed {
			return reading{}, nil, false
		}
	}
	grouped := func(gs []string) bool {
		if len(gs[0]) > 3 || len(gs[0]) == 0 {
			return false
		}
		for _, g := range gs[1:] {
			if len(g) != 3 {
				return false
			}
		}
		return true
	}
	if mixed {
		// 1.234,56 or 1,234.56 or 1 234,56: the last mark is the decimal one
		// and every earlier one the same grouping mark.
		first := b.seps[0]
		for _, s := range b.seps[:len(b.seps)-1] {
			if s != first {
				return reading{}, nil, false
			}
		}
		if !lastDec || first == last || !grouped(b.groups[:len(b.groups)-1]) {
			return reading{}, nil, false
		}
		return decReading(strings.Join(b.groups[:len(b.groups)-1], ""), b.groups[len(b.groups)-1]), nil, true
	}
	if len(b.seps) > 1 || !lastDec {
		if !grouped(b.groups) {
			return reading{}, nil, false
		}
		return intReading(strings.Join(b.groups, "")), nil, true
	}
	// One "," or ".": a decimal mark unless three digits follow it, when
	// the style decides and the other reading is kept too.
	ip, fp := b.groups[0], b.groups[1]
	dec := decReading(ip, fp)
	if len(fp) != 3 || len(ip) > 3 || ip == "0" {
		return dec, nil, true
	}
	grp := intReading(ip + fp)
	if (last == ",") == (st == styleEN) {
		return grp, &dec, true
	}
	return dec, &grp, true
}

func intReading(d string) reading {
	v, _ := strconv.ParseFloat(d, 64)
	return reading{v: v, digits: d}
}

func decReading(ip, fp string) reading {
	v, _ := strconv.ParseFloat(ip+"."+fp, 64)
	return reading{v: v, decimals: len(fp), digits: ip + fp}
}

// scaled is the reading times 10^exp, rounded once from the decimal digits
// (33.3% is 0.333, not 33.3/100).
func (r reading) scaled(exp int) float64 {
	v, err := strconv.ParseFloat(r.digits+"e"+strconv.Itoa(exp-r.decimals), 64)
	if err != nil {
		return r.v * math.Pow(10, float64(exp))
	}
	return v
}

// unitOf is the size of the last digit a reading shows, times scale.
func (r reading) unit() float64 { return math.Pow(10, -float64(r.decimals)) }

// lastRune and nextRune read one rune before i and at i.
func lastRune(s string, i int) (rune, int) {
	if i <= 0 {
		return 0, 0
	}
	return utf8.DecodeLastRuneInString(s[:i])
}

func nextRune(s string, i int) (rune, int) {
	if i >= len(s) {
		return 0, 0
	}
	return utf8.DecodeRuneInString(s[i:])
}

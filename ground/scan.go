package ground

import (
	"math"
	"strings"
	"unicode"
)

// token is a number in the answer with what is written around it.
type token struct {
	start, end int // the claim as written: parenthesis, sign, currency, digits, unit
	num        body
	read       reading
	alt        *reading // the other style's reading of 1,234 or 1.234
	sign       int      // -1, +1, or 0 when the text does not say
	signed     bool     // the number itself shows its sign: -, +, accounting brackets
	percent    bool
	scale      float64
	currency   bool
	paren      bool
	approx     bool
	plain      bool // digits alone: nothing around them, no mark between them
}

// value is the claim's value under reading r: percent as a fraction,
// scaled, signed.
func (t token) value(r reading) float64 {
	exp := int(math.Round(math.Log10(t.scale)))
	if t.percent {
		exp -= 2
	}
	v := r.scaled(exp)
	if t.sign < 0 {
		v = -v
	}
	return v
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// scanTokens finds the numbers of s outside skip (nil: none skipped) with
// their decorations; numbers glued to letters (Q2, FY2025, 3D, 2nd) are left
// out as identifiers.
func scanTokens(s string, st style, plainSpace bool, skip []bool) []token {
	var out []token
	for i := 0; i < len(s); {
		if !isDigit(s[i]) || (skip != nil && skip[i]) {
			i++
			continue
		}
		b := scanBody(s, i, plainSpace)
		i = b.end
		if skip != nil && anySkipped(skip, b.start, b.end) {
			continue
		}
		if t, ok := decorate(s, b, st); ok {
			out = append(out, t)
		}
	}
	joinRanges(s, out)
	return out
}

func anySkipped(skip []bool, a, b int) bool {
	for i := a; i < b; i++ {
		if skip[i] {
			return true
		}
	}
	return false
}

func decorate(s string, b body, st style) (token, bool) {
	r, alt, ok := b.read(st)
	if !ok {
		return token{}, false
	}
	t := token{num: b, read: r, alt: alt, scale: 1, start: b.start, end: b.end}
	// before: "(", a sign, a currency, a sign again ("-$1,234", "$-1,234")
	p := b.start
	for k := 0; k < 4; k++ {
		if q, sg := signBefore(s, p); q < p && t.sign == 0 {
			p, t.sign = q, sg
			continue
		}
		if q := currencyBefore(s, p); q < p && !t.currency {
			p, t.currency = q, true
			continue
		}
		break
	}
	if p > 0 && s[p-1] == '(' {
		t.paren = true
		p--
	}
	if prev, w := lastRune(s, p); w > 0 {
		if isWordRune(prev) || prev == '#' {
			return token{}, false // Q2, FY2025, x86, #3
		}
		if prev == '-' || prev == '/' || prev == '.' {
			if pp, _ := lastRune(s, p-w); unicode.IsLetter(pp) {
				return token{}, false // COVID-19, A/12, No.5
			}
		}
	}
	t.start = p
	// after: a percent or a scale, a currency, ")"
	q := b.end
	if n := percentAfter(s, q); n > 0 {
		q, t.percent = q+n, true
	} else if n, f := scaleAfter(s, q, t.currency); n > 0 {
		q, t.scale = q+n, f
	}
	if !t.currency {
		if n := currencyAfter(s, q); n > 0 {
			q, t.currency = q+n, true
		}
	}
	if t.scale == 1 && !t.percent {
		if n, f := scaleAfter(s, q, t.currency); n > 0 {
			q, t.scale = q+n, f
		}
	}
	if t.paren {
		if q < len(s) && s[q] == ')' {
			q++
		} else {
			t.paren = false
			t.start++
		}
	}
	if next, w := nextRune(s, q); w > 0 {
		switch {
		case next == 'x' || next == '×':
			if n2, _ := nextRune(s, q+w); !unicode.IsLetter(n2) {
				q += w // a multiple: 2.5x
			} else {
				return token{}, false
			}
		case unicode.IsLetter(next) || unicode.IsDigit(next) || next == '_':
			return token{}, false // 3D, 2nd, 10th, 5kg
		case next == '-' || next == '‑':
			if n2, _ := nextRune(s, q+w); unicode.IsLetter(n2) {
				return token{}, false // a 12-month total, a 3-way split
			}
		case next == '.' || next == '/' || next == '\\':
			if n2, _ := nextRune(s, q+w); unicode.IsLetter(n2) {
				return token{}, false // cell1-1.png, 2/data
			}
		}
	}
	t.end = q
	t.signed = t.sign != 0
	t.plain = t.sign == 0 && !t.currency && !t.percent && t.scale == 1 && !t.paren && len(b.seps) == 0
	return t, true
}

// signBefore reads a sign touching s[:p]: -, +, − (U+2212), or an en dash
// standing alone; a hyphen after a digit or letter joins, it is no sign.
func signBefore(s string, p int) (int, int) {
	r, w := lastRune(s, p)
	sg := 0
	switch r {
	case '-', '−', '–':
		sg = -1
	case '+':
		sg = 1
	default:
		return p, 0
	}
	if before, _ := lastRune(s, p-w); isWordRune(before) || before == '.' || before == ',' {
		return p, 0
	}
	if r == '–' {
		if before, _ := lastRune(s, p-w); before != 0 && before != ' ' && before != '(' && before != '|' {
			return p, 0
		}
	}
	return p - w, sg
}

// currencyBefore reads a currency symbol or code before s[p], with at most
// one space between.
func currencyBefore(s string, p int) int {
	q := p
	if q > 0 && s[q-1] == ' ' {
		q--
	} else if strings.HasSuffix(s[:q], "\u00a0") {
		q -= 2
	}
	for _, sym := range currencySymbols {
		if strings.HasSuffix(s[:q], sym) {
			if !isLetterSym(sym) {
				return q - len(sym)
			}
			if before, _ := lastRune(s, q-len(sym)); !isWordRune(before) {
				return q - len(sym)
			}
		}
	}
	if q >= 3 && currencyCodes[strings.ToLower(s[q-3:q])] && isUpperASCII(s[q-3:q]) {
		if before, _ := lastRune(s, q-3); !isWordRune(before) {
			return q - 3
		}
	}
	return p
}

func isLetterSym(sym string) bool { r, _ := nextRune(sym, 0); return unicode.IsLetter(r) }

func isUpperASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// spaceAt is the width of an optional space at s[i]: plain, no-break or
// narrow no-break.
func spaceAt(s string, i int) int {
	if i < len(s) && s[i] == ' ' {
		return 1
	}
	return spaceSep(s, i, false)
}

// endsWord says a word written at s[i:j] ends there.
func endsWord(s string, j int) bool {
	r, _ := nextRune(s, j)
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

var percentWords = []string{"%", "percent", "per cent", "pct", "Prozent", "pp", "p.p.", "percentage points", "percentage point", "Prozentpunkte"}

func percentAfter(s string, q int) int {
	if q < len(s) && s[q] == '%' {
		return 1
	}
	sp := spaceAt(s, q)
	for _, w := range percentWords {
		if strings.HasPrefix(s[q+sp:], w) && (w == "%" || w == "p.p." || endsWord(s, q+sp+len(w))) {
			if sp == 0 && w != "%" && w != "pp" {
				continue
			}
			return sp + len(w)
		}
	}
	return 0
}

func scaleAfter(s string, q int, money bool) (int, float64) {
	sp := spaceAt(s, q)
	for _, w := range scaleWords {
		if w.money && !money && !(strings.HasPrefix(s[q:], w.text) && currencyAfter(s, q+len(w.text)) > 0) {
			continue
		}
		n := 0
		if strings.HasPrefix(s[q:], w.text) {
			n = len(w.text)
		} else if !w.attached && sp > 0 && strings.HasPrefix(s[q+sp:], w.text) {
			n = sp + len(w.text)
		}
		if n == 0 {
			continue
		}
		if strings.HasSuffix(w.text, ".") || endsWord(s, q+n) {
			return n, w.factor
		}
	}
	return 0, 1
}

func currencyAfter(s string, q int) int {
	sp := spaceAt(s, q)
	for _, sym := range []string{"€", "$", "£", "¥", "₹", "Fr.", "kr"} {
		if strings.HasPrefix(s[q+sp:], sym) && (!isLetterSym(sym) || strings.HasSuffix(sym, ".") || endsWord(s, q+sp+len(sym))) {
			return sp + len(sym)
		}
	}
	if sp > 0 && q+sp+3 <= len(s) {
		code := s[q+sp : q+sp+3]
		if isUpperASCII(code) && currencyCodes[strings.ToLower(code)] && endsWord(s, q+sp+3) {
			return sp + 3
		}
	}
	return 0
}

// joinRanges gives the first number of a range the unit of the second:
// 10–12%, 1.2-1.5M, between 3 and 4 bn.
func joinRanges(s string, ts []token) {
	for k := 0; k+1 < len(ts); k++ {
		a, b := &ts[k], &ts[k+1]
		gap := s[a.end:b.start]
		switch strings.TrimSpace(gap) {
		case "-", "–", "—", "to", "bis", "à":
		case "and", "und", "et":
			if w := prevWords(s, a.start, 1); len(w) == 0 || (w[0] != "between" && w[0] != "zwischen" && w[0] != "entre") {
				continue
			}
		default:
			continue
		}
		if a.percent || a.scale != 1 || a.currency {
			continue
		}
		if b.percent || b.scale != 1 {
			a.percent, a.scale = b.percent, b.scale // plain stays: "between 2024 and …" is still read as a year
		}
	}
}

// prevWords are up to n words before s[p], lower-cased, nearest first; a
// sentence mark or a table pipe ends the search.
func prevWords(s string, p, n int) []string {
	var out []string
	i := p
	for len(out) < n && i > 0 {
		for i > 0 {
			r, w := lastRune(s, i)
			if r == ' ' || r == '\u00a0' || r == '\t' || r == '~' || r == '≈' || r == '*' || r == '_' {
				i -= w
				continue
			}
			break
		}
		j := i
		for j > 0 {
			r, w := lastRune(s, j)
			if !unicode.IsLetter(r) && r != '.' {
				break
			}
			j -= w
		}
		if j == i {
			break
		}
		out = append(out, strings.Trim(strings.ToLower(s[j:i]), "."))
		i = j
	}
	return out
}

// nextWord is the word after s[q], lower-cased.
func nextWord(s string, q int) string {
	i := q
	for i < len(s) && (s[i] == ' ' || s[i] == ',' || s[i] == '.') {
		i++
	}
	j := i
	for j < len(s) {
		r, w := nextRune(s, j)
		if !unicode.IsLetter(r) {
			break
		}
		j += w
	}
	return strings.ToLower(s[i:j])
}

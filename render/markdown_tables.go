package render

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// compactTables narrows the tables glamour stretched to the full width:
// lipgloss gives a table the whole line, so at 200 columns a label and its
// value sit 100 columns apart. Each column loses the blank it has on every
// row beyond one space a side, so a table is as wide as its content; one
// that already fills the line is left as it is.
func compactTables(out string) string {
	if !strings.ContainsAny(out, "┼|") {
		return out
	}
	lines := strings.Split(out, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.ContainsAny(lines[i], "┼|") {
			continue
		}
		seps := ruleSeparators(ansi.Strip(lines[i]))
		if seps == nil {
			continue
		}
		from, to := i, i+1
		for from > 0 && hasSeparators(ansi.Strip(lines[from-1]), seps) {
			from--
		}
		for to < len(lines) && hasSeparators(ansi.Strip(lines[to]), seps) {
			to++
		}
		compactBlock(lines[from:to], i-from, seps)
		i = to - 1
	}
	return strings.Join(lines, "\n")
}

// ruleSeparators are the cells of the crossings in a table's header rule
// ("───┼───" or "---|---"), with the rule's first and end cells around
// them; nil when the line is no such rule.
func ruleSeparators(plain string) []int {
	t := strings.TrimRight(plain, " ")
	start := len(t) - len(strings.TrimLeft(t, " "))
	if start == len(t) {
		return nil
	}
	cells := []int{start}
	cross, dash := 0, 0
	for i, r := range []rune(t)[start:] {
		switch r {
		case '┼', '|':
			cells = append(cells, start+i)
			cross++
		case '─', '-':
			dash++
		default:
			return nil
		}
	}
	if cross == 0 || dash < 3 {
		return nil
	}
	return append(cells, start+len([]rune(t[start:])))
}

// hasSeparators tells a row of the table: a column rule at every crossing.
func hasSeparators(plain string, seps []int) bool {
	r := []rune(plain)
	if len(r) < seps[len(seps)-2]+1 || strings.TrimSpace(plain) == "" {
		return false
	}
	for _, c := range seps[1 : len(seps)-1] {
		if r[c] != '│' && r[c] != '|' {
			return false
		}
	}
	return true
}

// compactBlock removes, from each column of the table's lines, the blank
// every row has beyond one space at either side; rule is the header rule.
func compactBlock(lines []string, rule int, seps []int) {
	n := len(seps) - 1
	cutL, cutR := make([]int, n), make([]int, n)
	for c := range n {
		cutL[c], cutR[c] = 1<<30, 1<<30
	}
	for k, l := range lines {
		if k == rule {
			continue
		}
		r := []rune(ansi.Strip(l))
		for c := range n {
			a, b := seps[c], seps[c+1]
			if c > 0 {
				a++ // the column rule itself
			}
			cell := string(r[min(a, len(r)):min(b, len(r))])
			if strings.TrimSpace(cell) == "" {
				continue
			}
			cutL[c] = min(cutL[c], len(cell)-len(strings.TrimLeft(cell, " "))-1)
			cutR[c] = min(cutR[c], (b-a)-len(strings.TrimRight(cell, " "))-1)
		}
	}
	for c := range n {
		cutL[c], cutR[c] = max(min(cutL[c], 1<<29), 0), max(min(cutR[c], 1<<29), 0)
	}
	for k, l := range lines {
		var b strings.Builder
		b.WriteString(ansi.Cut(l, 0, seps[0]))
		for c := range n {
			a, e := seps[c], seps[c+1]
			if c > 0 {
				b.WriteString(ansi.Cut(l, a, a+1))
				a++
			}
			if k == rule || a+cutL[c] < e-cutR[c] {
				b.WriteString(ansi.Cut(l, a+cutL[c], e-cutR[c]))
			}
		}
		lines[k] = b.String()
	}
}

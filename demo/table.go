package demo

import (
	"strconv"
	"strings"
)

// markdownTable writes a table as the model is told it ("table: R rows ×
// C columns", then "index | col (dtype) | ..." and one "label | v | ..."
// per row) as a Markdown table, numbers right-aligned with their digits
// grouped; "" when value is not a table.
func markdownTable(value string) string {
	lines := strings.Split(strings.TrimSpace(value), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "table: ") {
		return ""
	}
	head := strings.Split(lines[1], " | ")
	for i, h := range head {
		if j := strings.LastIndex(h, " ("); j > 0 && strings.HasSuffix(h, ")") {
			head[i] = h[:j]
		}
	}
	var rows [][]string
	for _, l := range lines[2:] {
		cells := strings.Split(l, " | ")
		if len(cells) != len(head) || cells[0] == "…" {
			continue
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		return ""
	}
	numeric := make([]bool, len(head))
	for c := 1; c < len(head); c++ {
		numeric[c] = true
		for _, r := range rows {
			if _, err := strconv.ParseFloat(r[c], 64); err != nil {
				numeric[c] = false
			}
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + strings.ReplaceAll(c, "|", `\|`) + " |")
		}
		b.WriteString("\n")
	}
	line(head)
	rule := make([]string, len(head))
	for i := range rule {
		rule[i] = "---"
		if numeric[i] {
			rule[i] = "---:"
		}
	}
	line(rule)
	for _, r := range rows {
		out := make([]string, len(r))
		for i, c := range r {
			out[i] = c
			if numeric[i] {
				out[i] = groupDigits(c)
			}
		}
		line(out)
	}
	return b.String()
}

// groupDigits puts commas in the integer part of a number: 264000 is
// 264,000, -9000.5 is -9,000.5.
func groupDigits(n string) string {
	sign := ""
	if strings.HasPrefix(n, "-") || strings.HasPrefix(n, "+") {
		sign, n = n[:1], n[1:]
	}
	whole, frac, dot := strings.Cut(n, ".")
	if len(whole) <= 3 || strings.ContainsAny(whole, "eE") {
		return sign + n
	}
	var b strings.Builder
	for i, d := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	if dot {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}

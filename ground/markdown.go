package ground

import (
	"regexp"
	"strings"
)

// layout is what the answer's Markdown says about where numbers are not
// claims (code, links, dates, numbering, table headers) and which table
// column a number sits in.
type layout struct {
	skip  []bool
	cells []cellSpan
	heads [][]string // each table's header cells, by the table's number less one
}

// cellSpan is one cell of a Markdown table: its text and its column's
// header.
type cellSpan struct {
	start, end int
	header     string
	table, col int // the table's number in the answer (from 1) and the column's
	row        int // the body row, from 0
}

var (
	reFence    = regexp.MustCompile("^ {0,3}(```+|~~~+)")
	reListNum  = regexp.MustCompile(`^[ \t]*(?:[>][ \t]*)*(\(?\d{1,3}[.)])[ \t]`)
	reHeading  = regexp.MustCompile(`^ {0,3}#{1,6}[ \t]+((?:[A-Za-z]+[ \t]+)?\(?\d+(?:\.\d+)*[.):]?)(?:[ \t]|$)`)
	reTableSep = regexp.MustCompile(`^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$`)
	reURL      = regexp.MustCompile(`(?i)\b(?:https?|ftp|file)://[^\s)>\]]+`)
	reLinkDest = regexp.MustCompile(`\]\([^)\s]*(?:\s+"[^"]*")?\)`)
	reHTMLTag  = regexp.MustCompile(`</?[A-Za-z][^<>\n]*>`)
	reFootRef  = regexp.MustCompile(`\[\^[^\]\s]+\]`)
	reDates    = []*regexp.Regexp{
		// ISO dates and timestamps, year-months, fiscal spans (2024-25)
		regexp.MustCompile(`\b\d{4}-\d{1,2}(?:-\d{1,2})?(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b`),
		regexp.MustCompile(`\b\d{4}/\d{1,2}(?:/\d{1,2})?\b`),
		// 15.01.2025, 01/15/25, 15-01-2025
		regexp.MustCompile(`\b\d{1,2}([./-])\d{1,2}(?:[./-])\d{2,4}\b`),
		// times: 10:30, 10:30:15, 3:45 pm
		regexp.MustCompile(`(?i)\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s?[ap]\.?m\.?\b)?`),
		regexp.MustCompile(`(?i)\b\d{1,2}\s?[ap]\.?m\.?(?:\W|$)`),
	}
)

// readLayout marks what is no claim's place in a Markdown answer.
func readLayout(md string) layout {
	l := layout{skip: make([]bool, len(md))}
	mark := func(a, b int) {
		for i := a; i < b && i < len(md); i++ {
			l.skip[i] = true
		}
	}
	lines := splitLines(md)
	fence := ""
	var header []string
	tables, row := 0, 0
	for k, ln := range lines {
		text := md[ln.start:ln.end]
		if fence != "" {
			mark(ln.start, ln.end)
			if strings.HasPrefix(strings.TrimLeft(text, " "), fence) {
				fence = ""
			}
			continue
		}
		if m := reFence.FindStringSubmatch(text); m != nil {
			fence = m[1][:3]
			mark(ln.start, ln.end)
			continue
		}
		if m := reListNum.FindStringSubmatchIndex(text); m != nil {
			mark(ln.start+m[2], ln.start+m[3])
		}
		if m := reHeading.FindStringSubmatchIndex(text); m != nil {
			mark(ln.start+m[2], ln.start+m[3])
		}
		if strings.Contains(text, "|") {
			next := ""
			if k+1 < len(lines) {
				next = md[lines[k+1].start:lines[k+1].end]
			}
			switch {
			case reTableSep.MatchString(next):
				mark(ln.start, ln.end) // a header row: column names, not claims
				header = nil
				tables, row = tables+1, 0
				for _, c := range tableCells(text, 0) {
					header = append(header, strings.TrimSpace(text[c[0]:c[1]]))
				}
				l.heads = append(l.heads, header)
			case reTableSep.MatchString(text):
			case header != nil:
				for j, c := range tableCells(text, ln.start) {
					h := ""
					if j < len(header) {
						h = header[j]
					}
					l.cells = append(l.cells, cellSpan{c[0], c[1], h, tables, j, row})
				}
				row++
			}
		} else {
			header = nil
		}
	}
	markCode(md, mark)
	for _, p := range patterns {
		if !p.maybe(md) {
			continue // the literal it needs is not in the text: skip the regexp
		}
		for _, m := range p.re.FindAllStringIndex(md, -1) {
			mark(m[0], m[1])
		}
	}
	return l
}

// pattern is a regexp of what is no claim, with a cheap test for a text
// it cannot match.
type pattern struct {
	re    *regexp.Regexp
	maybe func(string) bool
}

func has(subs ...string) func(string) bool {
	return func(s string) bool {
		for _, sub := range subs {
			if strings.Contains(s, sub) {
				return true
			}
		}
		return false
	}
}

var patterns = []pattern{
	{reURL, has("://")}, {reLinkDest, has("](")}, {reHTMLTag, has("<")}, {reFootRef, has("[^")},
	{reDates[0], has("-")}, {reDates[1], has("/")}, {reDates[2], has(".", "/", "-")},
	{reDates[3], has(":")}, {reDates[4], has("am", "pm", "AM", "PM", "a.m", "p.m", "Am", "Pm")},
}

type lineSpan struct{ start, end int }

func splitLines(s string) []lineSpan {
	var out []lineSpan
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, lineSpan{start, i})
			start = i + 1
		}
	}
	return append(out, lineSpan{start, len(s)})
}

// tableCells are the spans of a table row's cells, offset by base; the
// empty pieces outside the outer pipes are no cells.
func tableCells(row string, base int) [][2]int {
	edges := []int{-1}
	for i := 0; i < len(row); i++ {
		if row[i] == '|' && (i == 0 || row[i-1] != '\\') {
			edges = append(edges, i)
		}
	}
	edges = append(edges, len(row))
	var out [][2]int
	for k := 0; k+1 < len(edges); k++ {
		a, b := edges[k]+1, edges[k+1]
		if (k == 0 || k == len(edges)-2) && strings.TrimSpace(row[a:b]) == "" {
			continue
		}
		out = append(out, [2]int{base + a, base + b})
	}
	return out
}

// markCode marks inline code spans: a run of backticks up to the next run
// of the same length.
func markCode(md string, mark func(a, b int)) {
	for i := 0; i < len(md); {
		if md[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(md) && md[j] == '`' {
			j++
		}
		run := md[i:j]
		k := strings.Index(md[j:], run)
		if k < 0 {
			i = j
			continue
		}
		mark(i, j+k+len(run))
		i = j + k + len(run)
	}
}

// cellAt is the table cell holding position i, if any.
func (l layout) cellAt(i int) (cellSpan, bool) {
	for _, c := range l.cells {
		if i >= c.start && i < c.end {
			return c, true
		}
	}
	return cellSpan{}, false
}

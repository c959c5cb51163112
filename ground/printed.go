package ground

import "strings"

// Tables a cell printed: print(df) and print(series) as pandas writes them
// (columns right-aligned under their names, the index on the left, an
// index name on a line of its own, a Series' "Name: x, dtype: y" line),
// and df.to_markdown(). An answer's table quoting one is matched to it as
// to a table the cell returned.

// field is a run of text in a printed line with at most single spaces in
// it, and where it ends.
type field struct {
	text       string
	start, end int
}

// fields splits a line at runs of two spaces or more.
func fields(line string) []field {
	var out []field
	i := 0
	for i < len(line) {
		for i < len(line) && line[i] == ' ' {
			i++
		}
		if i >= len(line) {
			break
		}
		j := i
		for j < len(line) && !(line[j] == ' ' && (j+1 == len(line) || line[j+1] == ' ')) {
			j++
		}
		out = append(out, field{line[i:j], i, j})
		i = j
	}
	return out
}

// printedGrids finds the tables in a cell's printed text.
func printedGrids(src int, s Source) []*grid {
	lines := splitLines(s.Text)
	var out []*grid
	for k := 0; k < len(lines); {
		line := s.Text[lines[k].start:lines[k].end]
		if strings.TrimSpace(line) == "" {
			k++
			continue
		}
		j := k
		for j < len(lines) && strings.TrimSpace(s.Text[lines[j].start:lines[j].end]) != "" {
			j++
		}
		block := make([]string, j-k)
		for n := range block {
			block[n] = strings.TrimRight(s.Text[lines[k+n].start:lines[k+n].end], " \r")
		}
		var g *grid
		if strings.HasPrefix(strings.TrimSpace(block[0]), "|") {
			g = markdownGrid(block)
		} else {
			g = fixedGrid(block)
		}
		if g != nil && len(g.rows) > 0 {
			g.src, g.cell, g.kind = src, s.Cell, s.Kind
			for i := range g.rows {
				g.rows[i].line += k + 1
			}
			out = append(out, g)
		}
		k = j
	}
	return out
}

// fixedGrid reads print(df) or print(series): a header of column names
// whose right ends the values line up with.
func fixedGrid(block []string) *grid {
	if len(block) < 2 {
		return nil
	}
	g := &grid{byLabel: map[string][]int{}}
	first := 1
	head := fields(block[0])
	if strings.HasPrefix(block[len(block)-1], "Name: ") || isSeriesRow(block[0]) {
		// a Series: an optional line with the index's name, label and value
		// per line, the name of the values last
		head = nil
		first = 0
		if len(fields(block[0])) == 1 && len(block) > 2 {
			g.index, first = block[0], 1
		}
		name := ""
		if last := block[len(block)-1]; strings.HasPrefix(last, "Name: ") {
			name, _, _ = strings.Cut(strings.TrimPrefix(last, "Name: "), ",")
			block = block[:len(block)-1]
		}
		g.cols = []string{name}
	} else {
		for _, f := range head {
			g.cols = append(g.cols, f.text)
		}
		if len(block) > 2 {
			if fs := fields(block[1]); len(fs) > 0 && fs[0].start == 0 && !anyValue(fs) && fs[len(fs)-1].end <= head[0].start {
				g.index, first = fs[0].text, 2 // the index's name, under the header
			}
		}
	}
	g.nameColumns()
	for n := first; n < len(block); n++ {
		fs := fields(block[n])
		if len(fs) == 0 || strings.Trim(block[n], ". ") == "" {
			continue // "..." between head and tail
		}
		r := gridRow{line: n, lineText: block[n], vals: make([]float64, len(g.cols)), has: make([]bool, len(g.cols)), texts: make([]string, len(g.cols))}
		var labels []string
		assigned := false
		for _, f := range fs {
			j := -1
			if head == nil {
				if len(labels) > 0 || f.start > 0 {
					j = 0
				}
			} else {
				for c, h := range head {
					if h.end == f.end {
						j = c
					}
				}
			}
			switch {
			case j < 0 && !assigned && (f.start == 0 || len(labels) > 0):
				labels = append(labels, f.text) // the index, its levels
			case j < 0:
				return finished(g) // not lined up: no table from here on
			default:
				assigned = true
				r.texts[j] = f.text
				if ns := scanSource(f.text); len(ns) == 1 && !hasLetter(f.text) && len(ns[0].text) == len(f.text) {
					r.vals[j], r.has[j] = ns[0].v, true
				} else if hasLetter(f.text) {
					r.labels = append(r.labels, normLabel(f.text))
				}
			}
		}
		r.label = strings.Join(labels, " ")
		for _, l := range labels {
			r.labels = append(r.labels, labelParts(l)...)
			for _, w := range strings.Split(l, " ") { // MultiIndex levels, one space apart
				if w != l {
					r.labels = append(r.labels, normLabel(w))
				}
			}
		}
		g.addRow(r)
	}
	return finished(g)
}

// isSeriesRow says a line is "label    value".
func isSeriesRow(line string) bool {
	fs := fields(line)
	return len(fs) == 2 && fs[0].start == 0 && anyValue(fs[1:]) && !anyValue(fs[:1])
}

func anyValue(fs []field) bool {
	for _, f := range fs {
		if ns := scanSource(f.text); len(ns) == 1 && !hasLetter(f.text) {
			return true
		}
	}
	return false
}

// finished is the grid when it has rows with values.
func finished(g *grid) *grid {
	for _, r := range g.rows {
		for _, h := range r.has {
			if h {
				return g
			}
		}
	}
	return nil
}

// markdownGrid reads df.to_markdown(): a Markdown table, the index in its
// first column (of no name when it is positions).
func markdownGrid(block []string) *grid {
	if len(block) < 3 || !reTableSep.MatchString(block[1]) {
		return nil
	}
	cellsOf := func(line string) []string {
		var out []string
		for _, c := range tableCells(line, 0) {
			out = append(out, strings.TrimSpace(line[c[0]:c[1]]))
		}
		return out
	}
	head := cellsOf(block[0])
	if len(head) < 2 {
		return nil
	}
	g := &grid{byLabel: map[string][]int{}, index: head[0], cols: head[1:]}
	g.nameColumns()
	for n := 2; n < len(block); n++ {
		cells := cellsOf(block[n])
		if len(cells) != len(head) {
			break
		}
		r := gridRow{line: n, lineText: block[n], label: cells[0], labels: labelParts(cells[0]),
			vals: make([]float64, len(g.cols)), has: make([]bool, len(g.cols)), texts: cells[1:]}
		for j, c := range cells[1:] {
			if ns := scanSource(c); len(ns) == 1 && !hasLetter(c) && len(ns[0].text) == len(c) {
				r.vals[j], r.has[j] = ns[0].v, true
			} else if hasLetter(c) {
				r.labels = append(r.labels, normLabel(c))
			}
		}
		g.addRow(r)
	}
	return finished(g)
}

// addRow adds a row and indexes its labels.
func (g *grid) addRow(r gridRow) {
	i := len(g.rows)
	for _, l := range r.labels {
		if rs := g.byLabel[l]; len(rs) == 0 || rs[len(rs)-1] != i {
			g.byLabel[l] = append(rs, i)
		}
	}
	g.rows = append(g.rows, r)
}

// describePrinted says where a printed table's cell is: the line, as a
// text's values are described.
func (g *grid) describePrinted(i int) string {
	return lineSource(g.kind, g.rows[i].line, g.rows[i].lineText)
}

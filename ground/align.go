package ground

import (
	"slices"
	"strings"
	"unicode"
)

// A Markdown table of the answer is matched to the source table it comes
// from: its rows by their labels (every label cell of a row, so a
// department on several rows is told apart by its category), its columns
// by their names and values, in either orientation (a transposed table has
// the source's rows as its columns). A number in a matched cell stands for
// that one source cell; a row or column that matches none (a total the
// model worked out) is searched for as any other claim.

// pin is what an answer's table cell was matched to.
type pin struct {
	label bool // the cell names its row (an index shown as a column): no claim
	g     *grid
	rows  []int // the source rows the answer's row may be
	col   int
	hint  colHint
	// strict: other cells of the column matched their source cells, so a
	// number that does not match its own is not looked for elsewhere.
	strict bool
}

// ground matches a claim to its pinned cell: the source row, and the
// reading of the claim that matched.
func (p pin) ground(t token) (int, reading, bool) {
	for _, i := range p.rows {
		r := p.g.rows[i]
		if p.col >= len(r.has) || !r.has[p.col] {
			continue
		}
		for _, rd := range t.readings() {
			if t.fitsReading(rd, r.vals[p.col], p.hint) {
				return i, rd, true
			}
		}
	}
	return 0, reading{}, false
}

// aCell is one cell of an answer's table as the match reads it.
type aCell struct {
	label string // normalized text, when the cell holds letters
	tok   int    // the claim filling the cell, an index into the tokens; -1 none
	t     token  // that claim
	raw   string // the number's digits as written, for an index shown as a column
}

func (a aCell) fits(v float64, h colHint) bool { return a.t.fits(v, h) }

// aView is an answer's table in one orientation: column names, and rows
// of cells whose first cells name them.
type aView struct {
	head  []string
	keys  []string  // the head's names as nameScore compares them
	hints []colHint // what the head says of its columns
	rows  [][]aCell
}

// prepared is the view with its names' keys and hints worked out once.
func (v aView) prepared() aView {
	v.keys, v.hints = make([]string, len(v.head)), make([]colHint, len(v.head))
	for c, h := range v.head {
		v.keys[c], v.hints[c] = normName(stripUnits(h)), headerHint(h)
	}
	return v
}

// alignTables pins the cells of every table of the answer, by token.
func alignTables(md string, lay layout, toks []token, grids []*grid) map[int]pin {
	if len(lay.cells) == 0 || len(grids) == 0 {
		return nil
	}
	pins := map[int]pin{}
	for n, head := range lay.heads {
		v := answerView(md, lay, n+1, head, toks)
		if len(v.rows) == 0 {
			continue
		}
		best, bestScore := map[int]pin(nil), 0
		for _, view := range []aView{v.prepared(), v.transposed().prepared()} {
			if p, s := alignView(view, grids); s > bestScore {
				best, bestScore = p, s
			}
		}
		for k, p := range best {
			pins[k] = p
		}
	}
	return pins
}

// answerView reads table n (from 1) of the answer.
func answerView(md string, lay layout, n int, head []string, toks []token) aView {
	v := aView{head: head}
	k := 0
	for _, c := range lay.cells {
		if c.table != n {
			continue
		}
		for c.row >= len(v.rows) {
			v.rows = append(v.rows, make([]aCell, len(head)))
			for j := range v.rows[len(v.rows)-1] {
				v.rows[len(v.rows)-1][j].tok = -1
			}
		}
		if c.col >= len(head) {
			continue
		}
		for k < len(toks) && toks[k].start < c.start {
			k++
		}
		var in []int
		for j := k; j < len(toks) && toks[j].start < c.end; j++ {
			in = append(in, j)
		}
		text := md[c.start:c.end]
		cell := aCell{tok: -1}
		if len(in) == 1 {
			t := toks[in[0]]
			rest := text[:t.start-c.start] + text[t.end-c.start:]
			if !strings.ContainsFunc(rest, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
				cell.tok, cell.t, cell.raw = in[0], t, md[t.num.start:t.num.end]
			}
		}
		if cell.tok < 0 && hasLetter(text) {
			cell.label = normLabel(text)
		}
		v.rows[c.row][c.col] = cell
	}
	return v
}

// transposed is the view with the answer's first column as its header
// and its header as the labels of its rows.
func (v aView) transposed() aView {
	t := aView{head: []string{""}}
	if len(v.head) == 0 {
		return t
	}
	t.head[0] = v.head[0]
	for _, r := range v.rows {
		t.head = append(t.head, strings.Trim(strings.TrimSpace(r[0].label), "*"))
	}
	for c := 1; c < len(v.head); c++ {
		row := []aCell{{label: normLabel(v.head[c]), tok: -1}}
		for _, r := range v.rows {
			row = append(row, r[c])
		}
		t.rows = append(t.rows, row)
	}
	return t
}

// match is one view matched to one source table.
type match struct {
	g       *grid
	idxCol  []bool  // a column of the view that is the source's index, as numbers
	cand    [][]int // per row of the view: the source rows it may be
	col     []int   // per column of the view: the source column, -1 none
	hits    []int
	score   []int // per column: how well it matched
	labeled int   // rows named by their labels
}

// alignView matches a view to the grids, column by column to the grid
// that holds it best, and gives its pins and how well it matched.
func alignView(v aView, grids []*grid) (map[int]pin, int) {
	ms := make([]match, len(grids))
	for i, g := range grids {
		ms[i] = matchGrid(v, g)
	}
	pins := map[int]pin{}
	total := 0
	for c := range v.head {
		best := -1
		for i := range ms {
			if ms[i].col[c] >= 0 && (best < 0 || ms[i].score[c] > ms[best].score[c] ||
				ms[i].score[c] == ms[best].score[c] && ms[i].labeled > ms[best].labeled) {
				best = i
			}
		}
		for i := range ms {
			if ms[i].idxCol[c] && (best < 0 || ms[i].labeled > ms[best].labeled) {
				best = i
			}
		}
		if best < 0 {
			continue
		}
		m := &ms[best]
		if m.idxCol[c] {
			total += m.labeled
			for _, r := range v.rows {
				if r[c].tok >= 0 {
					pins[r[c].tok] = pin{label: true}
				}
			}
			continue
		}
		total += m.score[c]
		j := m.col[c]
		h := v.hints[c]
		h.percent = h.percent || m.g.hints[j].percent
		for r, row := range v.rows {
			if row[c].tok >= 0 && len(m.cand[r]) > 0 {
				pins[row[c].tok] = pin{g: m.g, rows: m.cand[r], col: j, hint: h, strict: m.hits[c] > 0}
			}
		}
	}
	return pins, total
}

// matchGrid matches a view to one grid: rows by their label cells,
// columns by name and by the values of the rows so named.
func matchGrid(v aView, g *grid) match {
	n := len(v.head)
	m := match{g: g, idxCol: make([]bool, n), cand: make([][]int, len(v.rows)), col: make([]int, n), hits: make([]int, n), score: make([]int, n)}
	labelCol := make([]bool, n)
	for c := 0; c < n; c++ {
		m.col[c] = -1
		named, texts, nums, idx := 0, 0, 0, 0
		for _, r := range v.rows {
			switch {
			case r[c].label != "":
				texts++
				if len(g.byLabel[r[c].label]) > 0 {
					named++
				}
			case r[c].tok >= 0:
				nums++
				if len(g.byLabel[r[c].raw]) > 0 && !strings.ContainsAny(r[c].raw, ".,") {
					idx++
				}
			}
		}
		labelCol[c] = named > 0 && 2*named >= texts
		if h := normName(v.head[c]); !labelCol[c] && nums > 0 && idx == nums && (h == "" || h == "index" || h == "idx" || h == normName(g.index) && g.index != "") {
			m.idxCol[c], labelCol[c] = true, true
		}
	}
	for r, row := range v.rows {
		var cand []int
		any := false
		for c, cell := range row {
			if !labelCol[c] {
				continue
			}
			l := cell.label
			if m.idxCol[c] {
				l = cell.raw
			}
			if l == "" {
				continue
			}
			rs := g.byLabel[l]
			if !any {
				cand, any = slices.Clone(rs), true
			} else {
				cand = intersect(cand, rs)
			}
		}
		m.cand[r] = cand
		if len(cand) > 0 {
			m.labeled++
		}
	}
	if m.labeled == 0 {
		return m // no row is named: nothing to pin
	}
	for c := 0; c < n; c++ {
		if labelCol[c] {
			continue
		}
		m.col[c], m.hits[c], m.score[c] = bestColumn(v, c, g, m.cand)
	}
	// A label on several rows (a department, with the category left out)
	// is the row whose cells match.
	for r, cand := range m.cand {
		if len(cand) > 1 {
			m.cand[r] = bestRows(v.rows[r], cand, g, m.col, v.hints)
		}
	}
	return m
}

// bestColumn is the grid's column that column c of the view shows: the one
// whose cells in the named rows its numbers match most, of the same name
// when it ties; a name alone (no value matches, a one-row table with a
// wrong number) still pins, but not strictly.
func bestColumn(v aView, c int, g *grid, cand [][]int) (col, hits, score int) {
	col, hits, score = -1, 0, 0
	h := v.hints[c]
	for j := range g.cols {
		hh := h
		hh.percent = h.percent || g.hints[j].percent
		n := 0
		for r, row := range v.rows {
			if row[c].tok < 0 || len(cand[r]) == 0 {
				continue
			}
			for _, i := range cand[r] {
				if gr := g.rows[i]; gr.has[j] && row[c].fits(gr.vals[j], hh) {
					n++
					break
				}
			}
		}
		name := nameScore(v.keys[c], g.keys[j])
		if n == 0 && name < 3 {
			continue
		}
		if s := 4*n + name; s > score {
			col, hits, score = j, n, s
		}
	}
	return col, hits, score
}

// bestRows keeps of a row's candidates those whose cells match most.
func bestRows(row []aCell, cand []int, g *grid, cols []int, hints []colHint) []int {
	best, most := cand, 0
	for _, i := range cand {
		n := 0
		for c, j := range cols {
			if j >= 0 && row[c].tok >= 0 && g.rows[i].has[j] {
				h := hints[c]
				h.percent = h.percent || g.hints[j].percent
				if row[c].fits(g.rows[i].vals[j], h) {
					n++
				}
			}
		}
		switch {
		case n > most:
			best, most = []int{i}, n
		case n == most && most > 0:
			best = append(best, i)
		}
	}
	return best
}

// nameScore says how well an answer's column name matches a source's,
// both as normName gives them (the answer's without its unit): 3 the same
// (case, spacing and markup aside), 1 one holding the other ("Budget Q2"
// and "q2", "Dept." and "department"), 0 not.
func nameScore(a, b string) int {
	switch {
	case a == "" || b == "":
		return 0
	case a == b:
		return 3
	case len(a) >= 2 && len(b) >= 2 && (strings.Contains(a, b) || strings.HasPrefix(b, a)):
		return 1
	}
	return 0
}

// stripUnits drops a parenthesized unit from a column name: "Q1 ($k)" is
// "Q1", "share (%)" stays "share %".
func stripUnits(h string) string {
	i := strings.IndexAny(h, "([")
	if i < 0 {
		return h
	}
	rest := h[i:]
	if strings.Contains(rest, "%") {
		return h[:i] + "%"
	}
	return h[:i]
}

func intersect(a, b []int) []int {
	var out []int
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

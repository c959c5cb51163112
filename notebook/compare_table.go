package notebook

import (
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
)

// A table a notebook holds (its HTML, as pandas and its Styler write it)
// against a rerun's (the kernel's Table): rows met by their labels, level
// by level for a MultiIndex, columns by their names, level by level too,
// and cells by their values rather than their cut display. Jupyter cuts a
// long string at display.max_colwidth ("..."), the kernel at its own
// width ("…"): one that starts as the other does is the same string.
// Numbers are the same when they round alike at the coarser of the two
// displays (0.333333 is 1/3), dates when they name the same moment
// (2012-01-01 is 2012-01-01 00:00:00), digit groups aside (3,300 is 3300).

// htmlTable is the first table of a result's HTML.
type htmlTable struct {
	columns   []string   // each column's label, levels joined by a space
	rows      []htmlRow  // the rows shown
	truncated bool       // pandas left rows out ("...")
	colsCut   bool       // pandas left columns out (a "..." column)
	nIndex    int        // index columns (levels)
	names     []string   // the index levels' names
	levels    [][]string // each column's labels, level by level
}

type htmlRow struct {
	label  string   // the levels joined
	levels []string // the index labels, level by level (spans filled)
	cells  []string
}

var (
	tableRe = regexp.MustCompile(`(?is)<table[^>]*>(.*?)</table>`)
	theadRe = regexp.MustCompile(`(?is)<thead[^>]*>(.*?)</thead>`)
	tbodyRe = regexp.MustCompile(`(?is)<tbody[^>]*>(.*?)</tbody>`)
	trRe    = regexp.MustCompile(`(?is)<tr[^>]*>(.*?)</tr>`)
	cellRe  = regexp.MustCompile(`(?is)<(th|td)([^>]*)>(.*?)</(?:th|td)>`)
	spanRe  = regexp.MustCompile(`(?i)\b(rowspan|colspan)\s*=\s*["']?(\d+)`)
	tagRe   = regexp.MustCompile(`(?s)<[^>]*>`)
)

type htmlCell struct {
	th   bool
	text string
}

// htmlGrid lays out rows of <tr>s with their spans filled, as a browser
// does: a cell with rowspan 2 stands in the next row too.
func htmlGrid(s string) [][]htmlCell {
	var out [][]htmlCell
	carry := map[int]struct {
		c    htmlCell
		left int
	}{}
	for _, tr := range trRe.FindAllStringSubmatch(s, -1) {
		var row []htmlCell
		col := 0
		fill := func() {
			for {
				c, ok := carry[col]
				if !ok {
					return
				}
				row = append(row, c.c)
				if c.left--; c.left == 0 {
					delete(carry, col)
				} else {
					carry[col] = c
				}
				col++
			}
		}
		for _, m := range cellRe.FindAllStringSubmatch(tr[1], -1) {
			fill()
			text := strings.TrimSpace(strings.ReplaceAll(html.UnescapeString(tagRe.ReplaceAllString(m[3], "")), "\u00a0", " "))
			c := htmlCell{th: strings.EqualFold(m[1], "th"), text: text}
			rows, cols := 1, 1
			for _, sp := range spanRe.FindAllStringSubmatch(m[2], -1) {
				n, _ := strconv.Atoi(sp[2])
				if n > 1 && n < 1000 {
					if strings.EqualFold(sp[1], "rowspan") {
						rows = n
					} else {
						cols = n
					}
				}
			}
			for range cols {
				if rows > 1 {
					carry[col] = struct {
						c    htmlCell
						left int
					}{c, rows - 1}
				}
				row = append(row, c)
				col++
			}
		}
		fill()
		out = append(out, row)
	}
	return out
}

func parseHTMLTable(h string) *htmlTable {
	m := tableRe.FindStringSubmatch(h)
	if m == nil {
		return nil
	}
	body := m[1]
	var head [][]htmlCell
	if hm := theadRe.FindStringSubmatch(body); hm != nil {
		head = htmlGrid(hm[1])
		body = strings.Replace(body, hm[0], "", 1)
	}
	if bm := tbodyRe.FindStringSubmatch(body); bm != nil {
		body = bm[1]
	}
	t := &htmlTable{}
	rows := htmlGrid(body)
	for _, r := range rows {
		n := 0
		for n < len(r) && r[n].th {
			n++
		}
		t.nIndex = max(t.nIndex, n)
	}
	cut := map[int]bool{} // the "..." column
	for _, hr := range head {
		for j := t.nIndex; j < len(hr); j++ {
			if hr[j].text == "..." {
				cut[j], t.colsCut = true, true
			}
		}
	}
	for _, r := range rows {
		if len(r) == 0 {
			continue
		}
		var levels, cells []string
		for j, c := range r {
			switch {
			case j < t.nIndex:
				levels = append(levels, c.text)
			case !cut[j]:
				cells = append(cells, c.text)
			}
		}
		if (len(levels) > 0 && levels[0] == "...") || (len(cells) > 0 && cells[0] == "...") {
			t.truncated = true
			continue
		}
		t.rows = append(t.rows, htmlRow{label: strings.Join(levels, " "), levels: levels, cells: cells})
	}
	// Header rows: the columns' levels, and a row of the index's names
	// (names on the left, nothing on the right).
	var colRows [][]htmlCell
	for _, hr := range head {
		names, empty := false, true
		for j, c := range hr {
			if j < t.nIndex && c.text != "" {
				names = true
			}
			if j >= t.nIndex && c.text != "" {
				empty = false
			}
		}
		if names && empty && len(hr) > t.nIndex {
			for j := 0; j < t.nIndex && j < len(hr); j++ {
				t.names = append(t.names, hr[j].text)
			}
			continue
		}
		colRows = append(colRows, hr)
	}
	width := 0
	for _, hr := range colRows {
		width = max(width, len(hr))
	}
	for j := t.nIndex; j < width; j++ {
		if cut[j] {
			continue
		}
		var lv []string
		for _, hr := range colRows {
			if j < len(hr) {
				lv = append(lv, hr[j].text)
			}
		}
		t.levels = append(t.levels, lv)
		t.columns = append(t.columns, joinLevels(lv))
	}
	return t
}

func joinLevels(lv []string) string {
	var parts []string
	for _, l := range lv {
		if l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}

// nowRow is a rerun's row: its label's levels and its cells, shown and exact.
type nowRow struct {
	levels       []string
	shown, exact []string
}

func rowsOf(t *kernel.Table) []nowRow {
	var out []nowRow
	for i := range len(t.Head) + len(t.Tail) {
		label, exact := t.Exact(i)
		shownLabel, shown := t.Shown(i)
		levels := []string{shownLabel}
		if i < len(t.IndexLevels) {
			levels = t.IndexLevels[i]
		} else if shownLabel == "" {
			levels = []string{label}
		}
		out = append(out, nowRow{levels: levels, shown: shown, exact: exact})
	}
	return out
}

func compareTables(d *diffLines, was *htmlTable, now *kernel.Table) {
	cols := columnMap(was, now)
	if cols == nil {
		d.add(fmt.Sprintf("columns %s, were %s", clip(strings.Join(now.Columns, ", "), 100), clip(strings.Join(was.columns, ", "), 100)))
		return
	}
	rows := rowsOf(now)
	all := now.Rows == len(rows)
	used := make([]bool, len(rows))
	matched := 0
	for _, r := range was.rows {
		k := -1
		for i, nr := range rows {
			if !used[i] && sameLabel(r.levels, nr.levels) {
				k = i
				break
			}
		}
		if k < 0 {
			if all && !was.truncated {
				d.add("row " + clip(r.label, 40) + " is gone")
			}
			continue
		}
		used[k] = true
		matched++
		nr := rows[k]
		for j, v := range r.cells {
			c := cols[j]
			if c < 0 || c >= len(nr.shown) {
				continue
			}
			exact := ""
			if c < len(nr.exact) {
				exact = nr.exact[c]
			}
			if !sameValue(v, nr.shown[c]) && !sameValue(v, exact) {
				d.add(fmt.Sprintf("row %s, %s: %s, was %s", clip(strings.Join(r.levels, ", "), 40), clip(now.Columns[c], 40), clip(nr.shown[c], 40), clip(v, 40)))
			}
		}
	}
	switch {
	case !was.truncated && all && len(was.rows) != now.Rows:
		d.add(fmt.Sprintf("%d rows, were %d", now.Rows, len(was.rows)))
	case matched == 0 && len(was.rows) > 0:
		d.add("no row of the table is where it was")
	}
}

// columnMap finds each stored column among the rerun's by its label
// (-1: not sent, as either side left it out); nil when the columns moved:
// one is gone or new where neither side left any out.
func columnMap(was *htmlTable, now *kernel.Table) []int {
	out := make([]int, len(was.columns))
	used := make([]bool, len(now.Columns))
	nowCut := now.Cols > len(now.Columns)
	for j, name := range was.columns {
		out[j] = -1
		for c, n := range now.Columns {
			same := sameValue(name, n)
			if c < len(now.ColumnLevels) && j < len(was.levels) && len(was.levels[j]) == len(now.ColumnLevels[c]) {
				same = sameLabel(was.levels[j], now.ColumnLevels[c])
			}
			if !used[c] && same {
				out[j], used[c] = c, true
				break
			}
		}
		if out[j] < 0 && !nowCut && len(was.columns) > 0 {
			return nil
		}
	}
	if !was.colsCut {
		for c := range now.Columns {
			if !used[c] && len(was.columns) > 0 {
				return nil
			}
		}
	}
	return out
}

func sameLabel(was, now []string) bool {
	if len(was) != len(now) {
		return sameValue(strings.Join(was, " "), strings.Join(now, " "))
	}
	for i := range was {
		if !sameValue(was[i], now[i]) {
			return false
		}
	}
	return true
}

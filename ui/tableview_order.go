package ui

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// The table viewer's search and sort.

// searchKey edits the search typed after "/"; Enter looks for it.
func (tv *tableView) searchKey(msg tea.KeyPressMsg) {
	switch msg.String() {
	case "esc":
		tv.searching = false
	case "enter":
		tv.searching = false
		tv.hit = -1
		tv.find(0, 1, 0)
	case "backspace":
		if r := []rune(tv.query); len(r) > 0 {
			tv.query = string(r[:len(r)-1])
		}
	default:
		if t := msg.Text; t != "" {
			tv.query += sanitizeLine(t)
		}
	}
}

// find moves to the next row from `from` (in direction dir, wrapping) with
// a cell that contains the query, ignoring case.
func (tv *tableView) find(from, dir, page int) {
	q := strings.ToLower(tv.query)
	if q == "" || len(tv.rows) == 0 {
		return
	}
	n := len(tv.rows)
	for k := range n {
		i := ((from+dir*k)%n + n) % n
		for _, c := range tv.rows[i].cells {
			if strings.Contains(strings.ToLower(c), q) {
				tv.hit = i
				if l := tv.lineOf(i); page <= 0 || l < tv.top || l >= tv.top+page {
					tv.top = max(l-1, 0)
				}
				tv.note = fmt.Sprintf("%q: row %d of %d", tv.query, i+1, n)
				if tv.partial() {
					tv.note = fmt.Sprintf("%q: row %d of the %d the viewer has", tv.query, i+1, n)
				}
				return
			}
		}
	}
	tv.hit = -1
	tv.note = fmt.Sprintf("%q: not found", tv.query)
}

// sort orders rows by the chosen column: numerically when both cells are
// numbers, as text otherwise; stable so ties keep the kernel's order.
func (tv *tableView) sort() {
	c, desc := tv.sortBy, tv.desc
	tv.hit = -1
	sort.SliceStable(tv.rows, func(i, j int) bool {
		a, b := cell(tv.rows[i].cells, c), cell(tv.rows[j].cells, c)
		less := false
		fa, ea := strconv.ParseFloat(strings.ReplaceAll(a, ",", ""), 64)
		fb, eb := strconv.ParseFloat(strings.ReplaceAll(b, ",", ""), 64)
		switch {
		case ea == nil && eb == nil:
			if desc {
				return fa > fb
			}
			return fa < fb
		case ea == nil: // numbers before text (NaN, None)
			return true
		case eb == nil:
			return false
		default:
			less = a < b
			if desc {
				return a > b
			}
		}
		return less
	})
}

func cell(r []string, c int) string {
	if c < len(r) {
		return r[c]
	}
	return ""
}

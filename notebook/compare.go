package notebook

import (
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
)

// What moved between a notebook's stored outputs and a rerun's: for each
// cell the printed text, the value (a table cell by cell, by row label,
// so Jupyter's truncated HTML and quarry's head and tail still meet), the
// number of figures and the error. Timing lines (%time, %timeit) always
// differ and are left out. quarry prints display()'s objects, so a cell
// that displayed something may print more than the notebook's stream held.

// maxStoredText caps the text kept of a cell's stored outputs.
const maxStoredText = 64 << 10

// StoredOutputs is what a notebook holds of a code cell's last run.
type StoredOutputs struct {
	Ran      bool   // it has an execution count or outputs
	Stdout   string // the stdout stream
	Displays int    // display_data outputs
	Figures  int    // outputs holding a PNG
	Value    string // the result's text/plain, "" when it is an object's address
	Table    *htmlTable
	Error    string // "KeyError: 'discount'"
	EName    string
}

type storedOutput struct {
	OutputType string                     `json:"output_type"`
	Name       string                     `json:"name"`
	Text       json.RawMessage            `json:"text"`
	Data       map[string]json.RawMessage `json:"data"`
	EName      string                     `json:"ename"`
	EValue     string                     `json:"evalue"`
}

var objectRepr = regexp.MustCompile(`^<[\w.]+ (object|at 0x[0-9a-f]+)>$`)

func storedOutputs(c readNBCell) StoredOutputs {
	s := StoredOutputs{Ran: c.ExecutionCount != nil || len(c.Outputs) > 0}
	var out strings.Builder
	for _, o := range c.Outputs {
		switch o.OutputType {
		case "stream":
			if t, err := cellSource(o.Text); err == nil && o.Name == "stdout" && out.Len() < maxStoredText {
				out.WriteString(t)
			}
		case "display_data", "execute_result":
			if _, ok := o.Data["image/png"]; ok {
				s.Figures++
			}
			if o.OutputType == "display_data" {
				s.Displays++
				continue
			}
			if t, err := cellSource(o.Data["text/plain"]); err == nil && !objectRepr.MatchString(strings.TrimSpace(t)) {
				s.Value = clip(t, maxStoredText)
			}
			if h, err := cellSource(o.Data["text/html"]); err == nil {
				s.Table = parseHTMLTable(h)
			}
		case "error":
			s.EName, s.Error = o.EName, o.EName+": "+clip(o.EValue, 500)
		}
	}
	s.Stdout = clip(strings.ReplaceAll(out.String(), cutMark, ""), maxStoredText)
	return s
}

// Comparison is how a cell's new outputs stand to the stored ones.
type Comparison struct {
	Kind string   // same, changed, new (fails now, did not in the notebook)
	Diff []string // what changed, a few lines
}

// maxDiff bounds the lines of a comparison.
const maxDiff = 8

// Compare compares a cell's stored outputs with its new result.
func Compare(was StoredOutputs, now kernel.Result) Comparison {
	var d diffLines
	switch {
	case now.Error != nil && was.EName == "":
		msg := now.Error.Type + ": " + now.Error.Message
		return Comparison{Kind: "new", Diff: []string{"fails now: " + clip(firstLine(msg), 200)}}
	case now.Error != nil && now.Error.Type != was.EName:
		d.add(fmt.Sprintf("fails with %s, was %s", now.Error.Type, was.Error))
	case now.Error == nil && was.EName != "":
		d.add("runs now; it failed with " + was.Error)
	}
	if !was.Ran {
		if now.Stdout != "" || now.Value != nil || len(now.Figures) > 0 {
			d.add("the notebook holds no outputs of this cell")
		}
		return d.result()
	}
	compareText(&d, "", was.Stdout, now.Stdout, was.Displays > 0)
	if now.Error == nil {
		compareValue(&d, was, now.Value)
	}
	if was.Figures != len(now.Figures) {
		d.add(fmt.Sprintf("%d figure%s, was %d", len(now.Figures), plural(len(now.Figures)), was.Figures))
	}
	return d.result()
}

type diffLines []string

func (d *diffLines) add(s string) {
	if len(*d) < maxDiff {
		*d = append(*d, s)
	}
}

func (d diffLines) result() Comparison {
	if len(d) == 0 {
		return Comparison{Kind: "same"}
	}
	return Comparison{Kind: "changed", Diff: d}
}

var timing = regexp.MustCompile(`^(CPU times: |Wall time: )|per loop \(mean ± std\. dev\. of `)

func textLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l == "" || timing.MatchString(l) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// compareText wants the stored lines in the new text, in order; new lines
// besides them count only when nothing was displayed (quarry prints what
// display() shows).
func compareText(d *diffLines, what, was, now string, extraOK bool) {
	w, n := textLines(was), textLines(now)
	j := 0
	var extra []string
	for _, l := range w {
		k := j
		for k < len(n) && n[k] != l {
			k++
		}
		if k == len(n) {
			d.add(what + "- " + clip(l, 120))
			if j < len(n) {
				d.add(what + "+ " + clip(n[j], 120))
				j++
			}
			continue
		}
		extra = append(extra, n[j:k]...)
		j = k + 1
	}
	extra = append(extra, n[j:]...)
	if !extraOK {
		for _, l := range extra {
			d.add(what + "+ " + clip(l, 120))
		}
	}
}

func compareValue(d *diffLines, was StoredOutputs, now *kernel.Value) {
	switch {
	case was.Table != nil && now != nil && now.Table != nil:
		compareTables(d, was.Table, now.Table)
	case was.Table != nil:
		d.add("the table it showed is gone")
	case was.Value != "" && now == nil:
		d.add("- " + clip(firstLine(was.Value), 120) + " (its value is gone)")
	case was.Value != "" && squash(was.Value) != squash(now.Repr):
		wl, nl := strings.Split(squash(was.Value), "\n"), strings.Split(squash(now.Repr), "\n")
		for i := 0; i < len(wl) || i < len(nl); i++ {
			switch {
			case i >= len(wl):
				d.add("+ " + clip(nl[i], 120))
			case i >= len(nl):
				d.add("- " + clip(wl[i], 120))
			case wl[i] != nl[i]:
				d.add("- " + clip(wl[i], 120))
				d.add("+ " + clip(nl[i], 120))
			}
		}
	}
}

var spaces = regexp.MustCompile(`[ \t]+`)

// squash makes a text's layout irrelevant: a table printed for other
// column widths is the same table.
func squash(s string) string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		out = append(out, strings.TrimSpace(spaces.ReplaceAllString(l, " ")))
	}
	return strings.Join(out, "\n")
}

var thousands = regexp.MustCompile(`(\d),(\d{3})`)

// cellValue is a table cell as compared: digit groups and space dropped.
func cellValue(s string) string {
	s = strings.TrimSpace(s)
	for thousands.MatchString(s) {
		s = thousands.ReplaceAllString(s, "$1$2")
	}
	return s
}

func compareTables(d *diffLines, was *htmlTable, now *kernel.Table) {
	cols := now.Columns
	if strings.Join(was.columns, "\x00") != strings.Join(cols, "\x00") && len(was.columns) > 0 {
		d.add(fmt.Sprintf("columns %s, were %s", clip(strings.Join(cols, ", "), 100), clip(strings.Join(was.columns, ", "), 100)))
		return
	}
	rows := len(now.Head) + len(now.Tail)
	nowRows := map[string][]string{}
	for i := 0; i < rows; i++ {
		label, cells := now.Exact(i)
		if i < len(now.Display) {
			cells = now.Display[i]
		}
		if i < len(now.IndexDisplay) {
			label = now.IndexDisplay[i]
		}
		nowRows[cellValue(label)] = cells
	}
	matched := 0
	for _, r := range was.rows {
		cells, ok := nowRows[cellValue(r.label)]
		if !ok {
			if now.Rows == rows && !was.truncated {
				d.add("row " + clip(r.label, 40) + " is gone")
			}
			continue
		}
		matched++
		for j, v := range r.cells {
			if j < len(cells) && cellValue(v) != cellValue(cells[j]) {
				col := ""
				if j < len(cols) {
					col = ", " + cols[j]
				}
				d.add(fmt.Sprintf("row %s%s: %s, was %s", clip(r.label, 40), clip(col, 40), clip(cells[j], 40), clip(v, 40)))
			}
		}
	}
	if !was.truncated && now.Rows == rows && len(was.rows) != now.Rows {
		d.add(fmt.Sprintf("%d rows, were %d", now.Rows, len(was.rows)))
	} else if matched == 0 && len(was.rows) > 0 {
		d.add("no row of the table is where it was")
	}
}

// htmlTable is the first table of a result's HTML, as pandas and its
// Styler write them: header rows, then rows led by their index label(s).
type htmlTable struct {
	columns   []string
	rows      []htmlRow
	truncated bool // pandas left rows out ("...")
}

type htmlRow struct {
	label string
	cells []string
}

var (
	tableRe = regexp.MustCompile(`(?is)<table[^>]*>(.*?)</table>`)
	theadRe = regexp.MustCompile(`(?is)<thead[^>]*>(.*?)</thead>`)
	tbodyRe = regexp.MustCompile(`(?is)<tbody[^>]*>(.*?)</tbody>`)
	trRe    = regexp.MustCompile(`(?is)<tr[^>]*>(.*?)</tr>`)
	cellRe  = regexp.MustCompile(`(?is)<(th|td)[^>]*>(.*?)</(?:th|td)>`)
	tagRe   = regexp.MustCompile(`(?s)<[^>]*>`)
)

func parseHTMLTable(h string) *htmlTable {
	m := tableRe.FindStringSubmatch(h)
	if m == nil {
		return nil
	}
	body := m[1]
	t := &htmlTable{}
	type cell struct {
		th   bool
		text string
	}
	rowsOf := func(s string) [][]cell {
		var out [][]cell
		for _, tr := range trRe.FindAllStringSubmatch(s, -1) {
			var r []cell
			for _, c := range cellRe.FindAllStringSubmatch(tr[1], -1) {
				text := strings.TrimSpace(strings.ReplaceAll(html.UnescapeString(tagRe.ReplaceAllString(c[2], "")), "\u00a0", " "))
				r = append(r, cell{th: strings.EqualFold(c[1], "th"), text: text})
			}
			out = append(out, r)
		}
		return out
	}
	var head [][]cell
	if hm := theadRe.FindStringSubmatch(body); hm != nil {
		head = rowsOf(hm[1])
	}
	bodyRows := body
	if bm := tbodyRe.FindStringSubmatch(body); bm != nil {
		bodyRows = bm[1]
	}
	nIndex := 0
	for _, r := range rowsOf(bodyRows) {
		var labels, cells []string
		for _, c := range r {
			if c.th && len(cells) == 0 {
				labels = append(labels, c.text)
			} else {
				cells = append(cells, c.text)
			}
		}
		if len(labels) > nIndex {
			nIndex = len(labels)
		}
		if (len(labels) > 0 && labels[0] == "...") || (len(cells) > 0 && cells[0] == "...") {
			t.truncated = true
			continue
		}
		t.rows = append(t.rows, htmlRow{label: strings.Join(labels, " "), cells: cells})
	}
	if len(head) > 0 {
		for i, c := range head[0] {
			if i >= nIndex {
				t.columns = append(t.columns, c.text)
			}
		}
	}
	return t
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

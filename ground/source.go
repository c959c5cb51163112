package ground

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/quarry-cli/quarry/kernel"
)

// SourceKind says what a source is.
type SourceKind string

const (
	Stdout  SourceKind = "stdout"
	Stderr  SourceKind = "stderr"
	Value   SourceKind = "value"   // a last expression's text
	Table   SourceKind = "table"   // a last expression's table, exact values
	Profile SourceKind = "profile" // an attached file's facts: rows, columns
	// Shown is the cell's result as the model read it: its sections, a
	// table's shape and rows as text, the files saved with their sizes.
	Shown SourceKind = "shown"
)

// Source is one output a claim may be grounded in.
type Source struct {
	Cell  int // the cell's number in the session; 0 for a file's profile
	Kind  SourceKind
	Text  string        // stdout, stderr, a value's text; a profile's file name
	Table *kernel.Table // Kind Table
	// Rows and Columns are a profile's facts.
	Rows, Columns int
}

// FromResult is every source in one cell's result.
func FromResult(cell int, r kernel.Result) []Source {
	var out []Source
	if r.Stdout != "" {
		out = append(out, Source{Cell: cell, Kind: Stdout, Text: r.Stdout})
	}
	if r.Stderr != "" {
		out = append(out, Source{Cell: cell, Kind: Stderr, Text: r.Stderr})
	}
	if r.Value != nil {
		if r.Value.Table != nil {
			out = append(out, Source{Cell: cell, Kind: Table, Table: r.Value.Table})
		} else if r.Value.Repr != "" {
			out = append(out, Source{Cell: cell, Kind: Value, Text: r.Value.Repr})
		}
	}
	return append(out, fromReport(cell, r.Report)...)
}

// FromProfile is an attached file's facts as a source.
func FromProfile(p kernel.Profile) Source {
	return Source{Kind: Profile, Text: p.Name, Rows: p.Rows, Columns: len(p.Columns)}
}

// value is one number a source holds, with where it is.
type value struct {
	v     float64
	ref   int32 // index into index.refs
	text  string
	count bool // a count of rows or columns: never a percent
}

// ref says where a value is: a source, and a line of its text or a table's
// row and column.
type ref struct {
	src       int
	line      int // 1-based line of a text; 0 otherwise
	row, col  int // a table's row (Head then Tail) and column; col -1 for the row count, -2 the column count
	lineStart int
	lineEnd   int
	labels    []int32 // the row's labels (known label ids), for claims that name a row
}

// index is every source's values, sorted, and the labels the sources use.
type index struct {
	srcs   []Source
	cols   []map[string]int // per source: a table's columns by normalized name
	vals   []value
	refs   []ref
	labels labelSet
	lines  []printedLine // the printed lines an answer's line may quote
}

// grids are the sources' tables, returned and printed, for matching an
// answer's tables to them.
func grids(srcs []Source) []*grid {
	var out []*grid
	for si, s := range srcs {
		switch {
		case s.Kind == Table && s.Table != nil:
			out = append(out, newGrid(si, s.Cell, s.Table))
		case s.Kind == Stdout:
			out = append(out, printedGrids(si, s)...)
		}
	}
	return out
}

// describe says in words where a value is: the printed line or the table cell.
func (ix *index) describe(v value) (int, string) {
	r := ix.refs[v.ref]
	s := ix.srcs[r.src]
	switch s.Kind {
	case Table:
		t := s.Table
		switch r.col {
		case -1:
			return s.Cell, fmt.Sprintf("table: %d rows", t.Rows)
		case -2:
			return s.Cell, fmt.Sprintf("table: %d columns", t.Cols)
		}
		label, _ := t.Exact(r.row)
		name := ""
		if r.col < len(t.Columns) {
			name = t.Columns[r.col]
		}
		return s.Cell, clip(fmt.Sprintf("table row %s, column %s: %s", label, name, v.text))
	case Profile:
		return 0, clip(fmt.Sprintf("%s: %s", s.Text, v.text))
	}
	return s.Cell, lineSource(s.Kind, r.line, s.Text[r.lineStart:r.lineEnd])
}

// lineSource says in words which printed line a value is on.
func lineSource(kind SourceKind, n int, line string) string {
	return clip(fmt.Sprintf("%s line %d: %s", kind, n, strings.TrimSpace(line)))
}

// normName is a column name for comparing a table's header in the answer
// with the source's: "Q1" and "q1", "Total EUR" and "total_eur", "change
// %" and "change_pct"; "change" is another column than "change %".
func normName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		case r == '%':
			b.WriteString("pct")
		}
	}
	return b.String()
}

func clip(s string) string {
	const max = 160
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// numericDtype says a column holds numbers pandas computes with.
func numericDtype(d string) bool {
	d = strings.ToLower(d)
	return strings.HasPrefix(d, "int") || strings.HasPrefix(d, "uint") || strings.HasPrefix(d, "float") || strings.HasPrefix(d, "decimal")
}

// labelColumn says a column's values name things (accounts, cost centres,
// years), even when they are integers.
func labelColumn(name string) bool {
	n := strings.ToLower(name)
	for _, w := range labelHeaders {
		if w == "no" || w == "nr" || w == "#" || w == "fy" {
			if n == w || strings.HasSuffix(n, "_"+w) || strings.HasSuffix(n, " "+w) {
				return true
			}
			continue
		}
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// exactNumber reads a table's exact cell: a Python float or int as text.
func exactNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || !(isDigit(s[0]) || s[0] == '-' || s[0] == '+' || s[0] == '.') {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

func buildIndex(srcs []Source) *index {
	ix := &index{srcs: srcs, labels: newLabelSet()}
	// labels first: a row's values carry the labels of their row
	for _, s := range srcs {
		if s.Kind == Table && s.Table != nil {
			ix.labels.addTable(s.Table)
		}
	}
	ix.labels.finish()
	ix.cols = make([]map[string]int, len(srcs))
	for si, s := range srcs {
		switch s.Kind {
		case Table:
			if s.Table != nil {
				ix.cols[si] = map[string]int{}
				for j, c := range s.Table.Columns {
					ix.cols[si][normName(c)] = j
				}
				ix.addTable(si, s.Table)
			}
		case Profile:
			ix.refs = append(ix.refs, ref{src: si})
			r := int32(len(ix.refs) - 1)
			ix.vals = append(ix.vals, value{v: float64(s.Rows), ref: r, text: fmt.Sprintf("%d rows", s.Rows), count: true})
			if s.Columns > 0 {
				ix.vals = append(ix.vals, value{v: float64(s.Columns), ref: r, text: fmt.Sprintf("%d columns", s.Columns), count: true})
			}
		default:
			ix.addText(si, s.Text)
		}
	}
	sortValues(ix.vals)
	ix.lines = printedLines(srcs)
	return ix
}

func (ix *index) addTable(si int, t *kernel.Table) {
	rows := len(t.Head) + len(t.Tail)
	ix.refs = append(ix.refs, ref{src: si, col: -1})
	ix.vals = append(ix.vals, value{v: float64(t.Rows), ref: int32(len(ix.refs) - 1), text: strconv.Itoa(t.Rows), count: true})
	numeric := make([]bool, len(t.Columns))
	for j, c := range t.Columns {
		numeric[j] = !labelColumn(c) && (j >= len(t.Dtypes) || numericDtype(t.Dtypes[j]))
	}
	for i := 0; i < rows; i++ {
		label, cells := t.Exact(i)
		labels := ix.labels.rowLabels(label, cells, numeric)
		for j, c := range cells {
			if j < len(numeric) && !numeric[j] {
				if labelColumn(t.Columns[j]) {
					continue
				}
				// formatted text in an object column: 1,234.50 or 12.5%
				for _, n := range scanSource(c) {
					ix.refs = append(ix.refs, ref{src: si, row: i, col: j, labels: labels})
					ix.vals = append(ix.vals, value{v: n.v, ref: int32(len(ix.refs) - 1), text: c})
				}
				continue
			}
			v, ok := exactNumber(c)
			if !ok {
				continue
			}
			ix.refs = append(ix.refs, ref{src: si, row: i, col: j, labels: labels})
			ix.vals = append(ix.vals, value{v: v, ref: int32(len(ix.refs) - 1), text: c})
		}
	}
}

func (ix *index) addText(si int, text string) {
	for k, ln := range splitLines(text) {
		line := text[ln.start:ln.end]
		nums := scanSource(line)
		if len(nums) == 0 {
			continue
		}
		ix.refs = append(ix.refs, ref{src: si, line: k + 1, lineStart: ln.start, lineEnd: ln.end, labels: ix.labels.inText(line)})
		r := int32(len(ix.refs) - 1)
		for _, n := range nums {
			ix.vals = append(ix.vals, value{v: n.v, ref: r, text: n.text})
		}
	}
}

type srcNum struct {
	v          float64
	text       string
	start, end int // in the line
}

// scanSource reads the numbers of a line of output as Python prints them:
// 1234.5, 1,234.50, -0.125, 1.2e+06, 12.5% (kept as the fraction 0.125).
func scanSource(line string) []srcNum {
	var out []srcNum
	for i := 0; i < len(line); {
		if !isDigit(line[i]) {
			i++
			continue
		}
		b := scanBody(line, i, false)
		i = b.end
		r, _, ok := b.read(styleEN)
		if prev, _ := lastRune(line, b.start); !ok || unicode.IsLetter(prev) || prev == '_' {
			continue // Q2, cell1, float64: names, not values
		}
		v := r.v
		end := b.end
		if end+1 < len(line) && (line[end] == 'e' || line[end] == 'E') {
			j := end + 1
			if line[j] == '+' || line[j] == '-' {
				j++
			}
			if n := digitsAt(line, j); n > 0 {
				if x, err := strconv.ParseFloat(strings.NewReplacer(",", "").Replace(line[b.start:j+n]), 64); err == nil {
					v = x
				}
				end = j + n
				i = end
			}
		}
		start := b.start
		if q, sg := signBefore(line, start); sg != 0 {
			start = q
			if sg < 0 {
				v = -v
			}
		}
		if n := percentAfter(line, end); n > 0 {
			v /= 100
			end += n
		}
		out = append(out, srcNum{v: v, text: line[start:end], start: start, end: end})
	}
	return out
}

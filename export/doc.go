package export

import (
	"fmt"
	"strings"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/session"
)

// doc is a record as every format shows it: the session's turns with all
// text already cleaned of terminal escapes and control characters, once,
// here. Escaping for HTML or Markdown is each writer's own.
type doc struct {
	dir     string
	id      string
	title   string
	model   string
	source  string
	started time.Time
	inputs  []session.Input
	turns   []session.Turn
}

func newDoc(rec *session.Record) *doc {
	d := &doc{dir: rec.Dir, id: rec.ID, title: clean1(rec.Title()), model: clean1(rec.Model), source: clean1(rec.Source), started: rec.Started}
	if d.title == "" {
		d.title = "Session " + rec.ID
	}
	for _, in := range rec.Inputs() {
		in.Name, in.Path = clean1(in.Name), clean1(in.Path)
		changes := make([]string, len(in.Changes))
		for i, c := range in.Changes {
			changes[i] = clean1(c)
		}
		in.Changes = changes
		if in.Profile != nil {
			p := *in.Profile
			p.Columns = append([]kernel.Column(nil), p.Columns...)
			for i := range p.Columns {
				p.Columns[i].Name, p.Columns[i].Dtype = clean1(p.Columns[i].Name), clean1(p.Columns[i].Dtype)
			}
			in.Profile = &p
		}
		d.inputs = append(d.inputs, in)
	}
	for _, t := range rec.Turns() {
		t.Question, t.Answer, t.Error = clean(t.Question), clean(t.Answer), clean(t.Error)
		cells := make([]session.Cell, len(t.Cells))
		for i, c := range t.Cells {
			c.Code = clean(c.Code)
			c.Result = cleanResult(c.Result)
			cells[i] = c
		}
		t.Cells = cells
		d.turns = append(d.turns, t)
	}
	return d
}

func clean(s string) string  { return render.Sanitize(s) }
func clean1(s string) string { return render.SanitizeLine(s) }

func cleanResult(r kernel.Result) kernel.Result {
	r.Stdout, r.Stderr = clean(r.Stdout), clean(r.Stderr)
	if r.Value != nil {
		v := *r.Value
		v.Repr = clean(v.Repr)
		if v.Table != nil {
			v.Table = cleanTable(v.Table)
		}
		r.Value = &v
	}
	if r.Error != nil {
		e := *r.Error
		e.Type, e.Message, e.Traceback = clean1(e.Type), clean(e.Message), clean(e.Traceback)
		r.Error = &e
	}
	r.Figures = cleanFiles(r.Figures)
	r.Files = cleanFiles(r.Files)
	notes := make([]string, len(r.Notes))
	for i, n := range r.Notes {
		notes[i] = clean1(n)
	}
	r.Notes = notes
	return r
}

func cleanTable(t *kernel.Table) *kernel.Table {
	c := *t
	line := func(xs []string) []string {
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = clean1(x)
		}
		return out
	}
	rows := func(rs [][]string) [][]string {
		out := make([][]string, len(rs))
		for i, r := range rs {
			out[i] = line(r)
		}
		return out
	}
	c.Columns, c.Dtypes, c.Index = line(t.Columns), line(t.Dtypes), line(t.Index)
	c.IndexName = clean1(t.IndexName)
	c.Head, c.Tail = rows(t.Head), rows(t.Tail)
	return &c
}

func cleanFiles(fs []kernel.File) []kernel.File {
	out := make([]kernel.File, len(fs))
	for i, f := range fs {
		f.Name = clean1(f.Name)
		out[i] = f
	}
	return out
}

// tableRows are a table's rows with their index label, and whether rows
// were left out between head and tail.
func tableRows(t *kernel.Table) (rows [][]string, gapAt int) {
	gapAt = -1
	label := func(i int) string {
		if i < len(t.Index) {
			return t.Index[i]
		}
		return ""
	}
	for i, r := range t.Head {
		rows = append(rows, append([]string{label(i)}, r...))
	}
	if len(t.Tail) > 0 {
		gapAt = len(rows)
		for i, r := range t.Tail {
			rows = append(rows, append([]string{label(len(t.Head) + i)}, r...))
		}
	}
	return rows, gapAt
}

// shape says how much of a table is shown.
func shape(t *kernel.Table) string {
	shown := len(t.Head) + len(t.Tail)
	s := fmt.Sprintf("%d rows × %d columns", t.Rows, t.Cols)
	if shown < t.Rows || len(t.Columns) < t.Cols {
		s += fmt.Sprintf(" (%d rows and %d columns shown)", shown, len(t.Columns))
	}
	return s
}

// cellTitle is "cell 3 · 120ms" or "cell 3 · failed: KeyError".
func cellTitle(c session.Cell) string {
	s := fmt.Sprintf("cell %d", c.Num)
	switch c.Status {
	case session.CellFailed:
		what := "failed"
		if e := c.Result.Error; e != nil && e.Type != "" {
			what += ": " + e.Type
		}
		return s + " · " + what
	case session.CellCancelled:
		return s + " · cancelled"
	}
	return s + " · " + render.FormatDuration(c.Result.Duration)
}

// errorText is a failed cell's traceback, or its message.
func errorText(e *kernel.Error) string {
	head := e.Message
	if e.Type != "" {
		head = e.Type + ": " + e.Message
	}
	if e.Traceback == "" {
		return head
	}
	if strings.Contains(e.Traceback, head) {
		return e.Traceback
	}
	return strings.TrimRight(e.Traceback, "\n") + "\n" + head
}

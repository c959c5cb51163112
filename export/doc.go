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
// here (tables when they are laid out, by render's Grid, as in the chat).
// Escaping for HTML or Markdown is each writer's own.
type doc struct {
	dir       string
	id        string
	thousands bool // group the digits of numbers in tables, as the chat did
	title     string
	model     string
	source    string
	started   time.Time
	inputs    []session.Input
	turns     []session.Turn
	sources   []session.RecordedSource
	extras    []session.RecordedExtra // Debian packages the session's sandbox had added
}

func newDoc(rec *session.Record) *doc {
	d := &doc{dir: rec.Dir, id: rec.ID, title: clean1(rec.Title()), model: clean1(rec.Model), source: clean1(rec.Source), started: rec.Started, thousands: rec.Settings.Thousands}
	if d.title == "" {
		d.title = "Session " + rec.ID
	}
	for _, src := range rec.Settings.Sources {
		d.sources = append(d.sources, session.RecordedSource{Name: clean1(src.Name), Where: clean1(src.Where), Kind: src.Kind})
	}
	for _, x := range rec.Extras() {
		d.extras = append(d.extras, session.RecordedExtra{Name: clean1(x.Name), Version: clean1(x.Version)})
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

// extrasWords names the extras: "python3-xgboost 3.3.0-1+b1, …"; their
// names alone are what quarry sandbox add takes.
func (d *doc) extrasWords() (words, names string) {
	var w, n []string
	for _, x := range d.extras {
		w, n = append(w, x.Name+" "+x.Version), append(n, x.Name)
	}
	return strings.Join(w, ", "), strings.Join(n, " ")
}

func clean(s string) string  { return render.Sanitize(s) }
func clean1(s string) string { return render.SanitizeLine(s) }

func cleanResult(r kernel.Result) kernel.Result {
	r.Stdout, r.Stderr = clean(r.Stdout), clean(r.Stderr)
	if r.Value != nil {
		v := *r.Value
		v.Repr = clean(v.Repr) // a table is cleaned where it is laid out (grid)
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

func cleanFiles(fs []kernel.File) []kernel.File {
	out := make([]kernel.File, len(fs))
	for i, f := range fs {
		f.Name = clean1(f.Name)
		out[i] = f
	}
	return out
}

// grid is a table as the chat shows it (render.NewGrid sanitizes every
// cell of it), and tableShape its size in the chat's words.
func (d *doc) grid(t *kernel.Table) render.Grid { return render.NewGrid(t, 0, d.thousands) }

func tableShape(t *kernel.Table, g render.Grid) string {
	s := render.TableShape(t)
	if g.Hidden > 0 {
		s += " (" + render.ColumnsNotShown(g.Hidden) + ")"
	}
	return s
}

// cellTitle is the chat's header of the cell, in the chat's words:
// "cell 3 · done in 120ms", "cell 3 · failed: KeyError in 300ms", "cell 3 ·
// interrupted after 3.0s".
func cellTitle(c session.Cell) string {
	return fmt.Sprintf("cell %d · %s", c.Num, render.CellSummary(&c.Result))
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

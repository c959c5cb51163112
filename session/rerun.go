package session

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
)

// A rerun runs an analysis's cells again in a fresh sandbox on other input
// files, without any model: each new file is put where the code read the
// old one (/data/<old name>), profiled and compared with the old one first;
// then the cells run in order until one fails. It is a session of its own
// (record, folder, index) with the questions and the new outputs, so it
// can be listed and exported like any other.

// RerunInput is one input of a rerun.
type RerunInput struct {
	Name string          // the name under /data the code reads
	Path string          // the host file to use now
	Was  *kernel.Profile // the original file's profile; nil when unknown
	// Rel, for a notebook's input, is where its code finds the file
	// relative to the working folder (rerun_layout.go).
	Rel string
}

// InputChange is how a new input differs from the original.
type InputChange struct {
	Name    string
	Path    string
	Profile kernel.Profile // the new file's
	Known   bool           // the original's profile was known, so the comparison means something
	Missing []string       // columns the original had and this one lacks
	Added   []string       // columns this one has and the original did not
	Dtypes  []DtypeChange
}

// DtypeChange is a column whose type changed.
type DtypeChange struct {
	Column string `json:"column"`
	Was    string `json:"was"`
	Now    string `json:"now"`
}

// Lines words the change for the user, one line each; none when the
// columns are the same.
func (c InputChange) Lines() []string {
	var out []string
	if len(c.Missing) > 0 {
		out = append(out, "missing column"+plural(len(c.Missing))+": "+strings.Join(c.Missing, ", "))
	}
	if len(c.Added) > 0 {
		out = append(out, "new column"+plural(len(c.Added))+": "+strings.Join(c.Added, ", "))
	}
	for _, d := range c.Dtypes {
		out = append(out, fmt.Sprintf("column %s was %s, now %s", d.Column, d.Was, d.Now))
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// compareProfiles finds what changed between the original file and the
// new one.
func compareProfiles(name, path string, was *kernel.Profile, now kernel.Profile) InputChange {
	c := InputChange{Name: name, Path: path, Profile: now, Known: was != nil && len(was.Columns) > 0}
	if !c.Known {
		return c
	}
	old := map[string]string{}
	for _, col := range was.Columns {
		old[col.Name] = col.Dtype
	}
	seen := map[string]bool{}
	for _, col := range now.Columns {
		seen[col.Name] = true
		dt, ok := old[col.Name]
		switch {
		case !ok:
			c.Added = append(c.Added, col.Name)
		case dt != col.Dtype:
			c.Dtypes = append(c.Dtypes, DtypeChange{Column: col.Name, Was: dt, Now: col.Dtype})
		}
	}
	for _, col := range was.Columns {
		if !seen[col.Name] {
			c.Missing = append(c.Missing, col.Name)
		}
	}
	return c
}

// RerunOptions configure a rerun. Options carries the configuration, the
// output folder, the event sink (cell progress) and the engine; Rerun sets
// Options.Rerun to Source.
type RerunOptions struct {
	Options
	Source string // what is rerun: a session id or a notebook's path
	Inputs []RerunInput
	// Folders are the folders a notebook's code writes into, made in the
	// working folder before the cells run (rerun_layout.go).
	Folders []string
	Turns   []Turn // the questions and the cells to run; only each cell's Num and Code are used
	// AllowErrors runs every cell, as jupyter nbconvert --execute
	// --allow-errors does; else the first cell that fails stops the rerun.
	AllowErrors bool
	// Compared, when set, hears the inputs' comparison before any cell runs.
	Compared func([]InputChange)
	// Extras are the packages the session had added to its sandbox: a
	// sandbox without them says which to add.
	Extras []RecordedExtra
}

// RerunResult is how a rerun went.
type RerunResult struct {
	ID, Dir string
	Changes []InputChange
	Ran     int // cells that ran, the failed ones included
	// Failed are the cells that failed: without AllowErrors at most one,
	// and the cells after it did not run.
	Failed []Cell
}

// Rerun runs o's cells on o's inputs in a fresh sandbox and records the
// outcome as a new session. The kernel checks every cell first: lines its
// IPython rules refuse are a *RefusedError, before any cell runs (and the
// session is not kept). An error means the rerun could not run (bad
// input file, engine); a failed cell is in RerunResult.Failed.
func Rerun(ctx context.Context, o RerunOptions) (*RerunResult, error) {
	o.Options.Rerun = o.Source
	s := New(o.Options)
	defer s.Close() // a session with no cell run is not kept (Close forgets it)
	if err := s.Start(ctx); err != nil {
		return nil, err
	}
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.release(StateReady, nil)
	if err := s.checkCells(ctx, o.Source, o.Turns); err != nil {
		return nil, err // masked there
	}
	s.warnExtras(o.Extras)
	res := &RerunResult{ID: s.ID(), Dir: s.OutputDir()}
	for _, in := range o.Inputs {
		got, err := s.attach(ctx, in.Path, in.Name)
		if err != nil {
			return nil, err
		}
		ch := compareProfiles(in.Name, in.Path, in.Was, *got.Profile)
		res.Changes = append(res.Changes, ch)
		if lines := ch.Lines(); len(lines) > 0 {
			got.Changes = lines
			s.rec.input(got) // the latest entry of a name wins: now with its changes
		}
	}
	if o.Compared != nil {
		o.Compared(res.Changes)
	}
	if err := s.makeLayout(ctx, o.Inputs, o.Folders); err != nil {
		return nil, s.maskErr(err)
	}
	sink := s.opts.Events
	for _, t := range o.Turns {
		if len(t.Cells) == 0 {
			continue
		}
		if t.Question != "" {
			s.rec.question(t.Question)
		}
		for _, c := range t.Cells {
			res.Ran++
			n := res.Ran
			s.publish(agent.Event{Kind: agent.EventCellStart, Cell: n, Code: c.Code}, sink)
			r, err := s.sb.Exec(ctx, c.Code, func(ch kernel.Chunk) {
				s.publish(agent.Event{Kind: agent.EventCellOutput, Cell: n, Chunk: &ch}, sink)
			})
			if err != nil {
				return nil, s.maskErr(fmt.Errorf("cell %d: %w", n, err))
			}
			if r.StateLost {
				s.remakeLayout(ctx, s.sb, &r)
			}
			s.explainNeeds(ctx, &r)
			s.publish(agent.Event{Kind: agent.EventCellDone, Cell: n, Code: c.Code, Result: &r, Time: time.Now()}, sink)
			if r.Error != nil {
				res.Failed = append(res.Failed, Cell{Num: n, Code: c.Code, Status: statusOf(r), Result: r})
				if !o.AllowErrors || ctx.Err() != nil {
					return res, nil
				}
			}
		}
	}
	return res, nil
}

// RerunTurns are the record's turns with only the cells that succeeded:
// what a rerun of the session runs.
func (rec *Record) RerunTurns() []Turn {
	var out []Turn
	for _, t := range rec.Turns() {
		var cells []Cell
		for _, c := range t.Cells {
			if c.Status == CellOK {
				cells = append(cells, c)
			}
		}
		t.Cells = cells
		out = append(out, t)
	}
	return out
}

package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/quarry-cli/quarry/headless"
	"github.com/quarry-cli/quarry/notebook"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/session"
)

// rerunJSON is the --json document of quarry rerun. Every string from the
// sandbox is sanitized, as on a terminal: scripts print it.
type rerunJSON struct {
	Session     string             `json:"session"`
	OutputDir   string             `json:"output_dir"`
	Source      string             `json:"source"`
	Report      string             `json:"report"`
	Reports     []string           `json:"reports,omitempty"` // --report: the variance report's files
	Status      string             `json:"status"`            // ok, failed
	FailedCell  *int               `json:"failed_cell"`       // the first that failed
	FailedCells []int              `json:"failed_cells"`      // every one (--allow-errors runs them all)
	Skipped     []rerunJSONSkipped `json:"skipped"`           // a notebook's code cells left out (skip-execution)
	// MissingInputs are a notebook's inputs that were not there: the cells
	// that read them failed (or would have), as in Jupyter.
	MissingInputs []rerunJSONMissing `json:"missing_inputs"`
	Inputs        []rerunJSONInput   `json:"inputs"`
	Cells         []rerunJSONCell    `json:"cells"`
}

type rerunJSONMissing struct {
	Path     string `json:"path"`      // as the notebook names it
	CodeCell int    `json:"code_cell"` // the code cell that reads it first; 0 when not known
}

type rerunJSONSkipped struct {
	CodeCell int    `json:"code_cell"` // the notebook's code cell, counted from 1
	Why      string `json:"why"`
}

type rerunJSONInput struct {
	Name           string                `json:"name"`
	Path           string                `json:"path"`
	Rows           int                   `json:"rows"`
	Compared       bool                  `json:"compared"` // the original's columns were known
	MissingColumns []string              `json:"missing_columns"`
	NewColumns     []string              `json:"new_columns"`
	ChangedDtypes  []session.DtypeChange `json:"changed_dtypes"`
}

// rerunJSONCell is a cell as -p --json gives it, with where it stands.
type rerunJSONCell struct {
	Cell     int    `json:"cell"`
	Question string `json:"question"`
	Status   string `json:"status"`
	// Compared is how the outputs stand to those the notebook held: same,
	// changed (Diff says what) or new (fails now); absent for a session.
	Compared string   `json:"compared,omitempty"`
	Diff     []string `json:"diff,omitempty"`
	headless.CellResult
}

func writeRerunJSON(w io.Writer, rec *session.Record, res *session.RerunResult, report string, compared map[int]notebook.Comparison, plan *rerunPlan, reports []string) error {
	doc := rerunJSON{Session: rec.ID, OutputDir: rec.Dir, Source: render.SanitizeLine(rec.Source), Report: report, Reports: reports,
		Status: "ok", FailedCells: []int{}, Skipped: []rerunJSONSkipped{}, MissingInputs: []rerunJSONMissing{}, Inputs: []rerunJSONInput{}, Cells: []rerunJSONCell{}}
	if plan == nil {
		plan = &rerunPlan{} // a session's rerun has neither
	}
	for _, m := range plan.missing {
		doc.MissingInputs = append(doc.MissingInputs, rerunJSONMissing{Path: render.SanitizeLine(m.path), CodeCell: m.cell})
	}
	for _, c := range plan.skipped {
		doc.Skipped = append(doc.Skipped, rerunJSONSkipped{CodeCell: c.Num, Why: c.Why})
	}
	for i, c := range res.Failed {
		if i == 0 {
			doc.Status = "failed"
			n := c.Num
			doc.FailedCell = &n
		}
		doc.FailedCells = append(doc.FailedCells, c.Num)
	}
	line := func(xs []string) []string {
		out := []string{}
		for _, x := range xs {
			out = append(out, render.SanitizeLine(x))
		}
		return out
	}
	for _, ch := range res.Changes {
		in := rerunJSONInput{Name: render.SanitizeLine(ch.Name), Path: render.SanitizeLine(ch.Path), Rows: ch.Profile.Rows,
			Compared: ch.Known, MissingColumns: line(ch.Missing), NewColumns: line(ch.Added), ChangedDtypes: []session.DtypeChange{}}
		for _, d := range ch.Dtypes {
			in.ChangedDtypes = append(in.ChangedDtypes, session.DtypeChange{Column: render.SanitizeLine(d.Column), Was: render.SanitizeLine(d.Was), Now: render.SanitizeLine(d.Now)})
		}
		doc.Inputs = append(doc.Inputs, in)
	}
	for _, t := range rec.Turns() {
		for _, c := range t.Cells {
			jc := rerunJSONCell{Cell: c.Num, Question: render.Sanitize(t.Question), Status: string(c.Status),
				CellResult: headless.NewCellResult(c.Code, &c.Result)}
			if cmp, ok := compared[c.Num]; ok {
				jc.Compared, jc.Diff = cmp.Kind, line(cmp.Diff)
			}
			doc.Cells = append(doc.Cells, jc)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// compareCells compares each cell that ran with the outputs the notebook
// held for it (stored, in the order the cells ran), by cell number.
func compareCells(rec *session.Record, stored []notebook.StoredOutputs) map[int]notebook.Comparison {
	if len(stored) == 0 {
		return nil
	}
	out := map[int]notebook.Comparison{}
	i := 0
	for _, t := range rec.Turns() {
		for _, c := range t.Cells {
			if i < len(stored) {
				out[c.Num] = notebook.Compare(stored[i], c.Result)
			}
			i++
		}
	}
	return out
}

// writeComparison adds to the Markdown report what moved since the
// notebook was saved, a line a cell, and the cells left out.
func writeComparison(w io.Writer, compared map[int]notebook.Comparison, skipped []notebook.Skipped) error {
	if len(compared) == 0 && len(skipped) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("\n## Compared with the notebook's outputs\n\n")
	for _, c := range skipped {
		fmt.Fprintf(&b, "- the notebook's code cell %d: skipped, %s\n", c.Num, c.Why)
	}
	for _, n := range sortedCells(compared) {
		c := compared[n]
		word := map[string]string{"same": "same", "changed": "changed", "new": "fails now (it did not in the notebook)"}[c.Kind]
		fmt.Fprintf(&b, "- cell %d: %s\n", n, word)
		for _, l := range c.Diff {
			fmt.Fprintf(&b, "    %s\n", render.SanitizeLine(l))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// comparisonSummary is one line: how many cells are the same, changed, new.
func comparisonSummary(compared map[int]notebook.Comparison) string {
	if len(compared) == 0 {
		return ""
	}
	n := map[string]int{}
	for _, c := range compared {
		n[c.Kind]++
	}
	return fmt.Sprintf("compared with the notebook's outputs: %d same, %d changed, %d failing now", n["same"], n["changed"], n["new"])
}

func sortedCells(m map[int]notebook.Comparison) []int {
	var ns []int
	for n := range m {
		ns = append(ns, n)
	}
	for i := 1; i < len(ns); i++ {
		for j := i; j > 0 && ns[j] < ns[j-1]; j-- {
			ns[j], ns[j-1] = ns[j-1], ns[j]
		}
	}
	return ns
}

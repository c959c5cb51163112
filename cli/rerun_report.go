package cli

import (
	"encoding/json"
	"io"

	"github.com/quarry-cli/quarry/headless"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/session"
)

// rerunJSON is the --json document of quarry rerun. Every string from the
// sandbox is sanitized, as on a terminal: scripts print it.
type rerunJSON struct {
	Session    string           `json:"session"`
	OutputDir  string           `json:"output_dir"`
	Source     string           `json:"source"`
	Report     string           `json:"report"`
	Status     string           `json:"status"` // ok, failed
	FailedCell *int             `json:"failed_cell"`
	Inputs     []rerunJSONInput `json:"inputs"`
	Cells      []rerunJSONCell  `json:"cells"`
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
	headless.CellResult
}

func writeRerunJSON(w io.Writer, rec *session.Record, res *session.RerunResult, report string) error {
	doc := rerunJSON{Session: rec.ID, OutputDir: rec.Dir, Source: render.SanitizeLine(rec.Source), Report: report,
		Status: "ok", Inputs: []rerunJSONInput{}, Cells: []rerunJSONCell{}}
	if res.Failed != nil {
		doc.Status = "failed"
		n := res.Failed.Num
		doc.FailedCell = &n
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
			doc.Cells = append(doc.Cells, jc)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

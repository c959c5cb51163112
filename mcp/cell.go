package mcp

import (
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/export"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/session"
)

// A cell's result as the client gets it: the text the chat's model would
// read (agent.CellView, cut as the chat cuts it), the last value's table
// as Markdown, each figure as an image (its bytes checked again), and the
// same in structured form.

// Caps on what one result carries; what is left out is said.
const (
	maxImageBytes   = 8 << 20 // all figures of one result together
	maxTableRows    = 50      // of the structured table
	maxTableColumns = 50
	maxCellText     = 200 // characters of one value in the structured table
)

// CellOutput is run_python's and run_sql's structured result.
type CellOutput struct {
	Cell       int          `json:"cell" jsonschema:"the cell's number in the session"`
	Status     string       `json:"status" jsonschema:"ok, failed or cancelled"`
	DurationMS int64        `json:"duration_ms"`
	Table      *TableOutput `json:"table,omitempty" jsonschema:"the last value, when it is a DataFrame or Series"`
	Figures    []OutputFile `json:"figures,omitempty"`
	Files      []OutputFile `json:"files,omitempty"`
	Error      *CellError   `json:"error,omitempty"`
}

// TableOutput is a DataFrame's first rows, exact values, and its shape.
type TableOutput struct {
	Columns []string   `json:"columns"`
	Dtypes  []string   `json:"dtypes"`
	Index   []string   `json:"index" jsonschema:"the index labels of the rows given"`
	Rows    [][]string `json:"rows" jsonschema:"the first rows"`
	Shape   Shape      `json:"shape"`
	Note    string     `json:"note,omitempty" jsonschema:"what was left out"`
}

// Shape is a table's whole size.
type Shape struct {
	Rows    int `json:"rows"`
	Columns int `json:"columns"`
}

// CellError is how a cell failed.
type CellError struct {
	Kind    string `json:"kind" jsonschema:"exception, timeout, interrupted, out_of_memory or crashed"`
	Type    string `json:"type,omitempty" jsonschema:"the Python exception's class"`
	Message string `json:"message"`
}

// OutputFile is a file the session's code saved.
type OutputFile struct {
	Name     string `json:"name" jsonschema:"its name under /output"`
	URI      string `json:"uri" jsonschema:"read it with resources/read"`
	MIMEType string `json:"mime_type"`
	Size     int64  `json:"size"`
	Width    int    `json:"width,omitempty"`
	Height   int    `json:"height,omitempty"`
}

// cellResult turns a finished cell into the tool's result; a cell that
// failed is an error result (isError) with its traceback in the text.
func cellResult(c session.Cell, thousands bool) (*sdk.CallToolResult, CellOutput) {
	r := c.Result
	out := CellOutput{Cell: c.Num, Status: string(c.Status), DurationMS: r.Duration.Milliseconds()}
	res := &sdk.CallToolResult{IsError: c.Status != session.CellOK}
	text := r
	var table *kernel.Table
	if r.Value != nil && r.Value.Table != nil {
		table, text.Value = r.Value.Table, nil
	}
	head := fmt.Sprintf("cell %d: %s in %s", c.Num, c.Status, r.Duration.Round(1e6))
	if view := agent.CellView(text); table == nil || !quiet(text) {
		head += "\n" + view
	}
	res.Content = append(res.Content, &sdk.TextContent{Text: head})
	if table != nil {
		res.Content = append(res.Content, &sdk.TextContent{Text: export.MarkdownTable(table, thousands)})
		out.Table = tableOutput(table)
	}
	budget := maxImageBytes
	var left []string
	for _, f := range r.Figures {
		of := outputFile(f)
		out.Figures = append(out.Figures, of)
		if _, _, err := kernel.CheckPNG(f.PNG); err != nil {
			left = append(left, fmt.Sprintf("%s (not a figure quarry shows: %v)", f.Name, err))
			continue
		}
		if len(f.PNG) > budget {
			left = append(left, fmt.Sprintf("%s (%s: past the %s this result may carry; read %s)", f.Name, kernel.FormatSize(int64(len(f.PNG))), kernel.FormatSize(maxImageBytes), of.URI))
			continue
		}
		budget -= len(f.PNG)
		res.Content = append(res.Content, &sdk.ImageContent{Data: f.PNG, MIMEType: "image/png"})
	}
	if len(left) > 0 {
		res.Content = append(res.Content, &sdk.TextContent{Text: "figures not included: " + strings.Join(left, "; ")})
	}
	for _, f := range r.Files {
		of := outputFile(f)
		out.Files = append(out.Files, of)
		size := f.Size
		res.Content = append(res.Content, &sdk.ResourceLink{URI: of.URI, Name: f.Name, MIMEType: of.MIMEType, Size: &size})
	}
	if e := r.Error; e != nil {
		out.Error = &CellError{Kind: string(e.Kind), Type: e.Type, Message: clipText(e.Message, 2000)}
	}
	return res, out
}

// quiet tells a result with nothing to say but its value.
func quiet(r kernel.Result) bool {
	return r.Stdout == "" && r.Stderr == "" && r.Value == nil && len(r.Figures) == 0 && len(r.Files) == 0 &&
		r.Error == nil && !r.StateLost && !r.Rewound && len(r.Notes) == 0
}

func tableOutput(t *kernel.Table) *TableOutput {
	cols := min(len(t.Columns), maxTableColumns)
	o := &TableOutput{Columns: clipAll(t.Columns[:cols]), Dtypes: []string{}, Index: []string{}, Rows: [][]string{}, Shape: Shape{Rows: t.Rows, Columns: t.Cols}}
	for i := range cols {
		d := ""
		if i < len(t.Dtypes) {
			d = t.Dtypes[i]
		}
		o.Dtypes = append(o.Dtypes, d)
	}
	rows := min(len(t.Head), maxTableRows)
	for i := range rows {
		label, cells := t.Exact(i)
		o.Index = append(o.Index, clipText(label, maxCellText))
		o.Rows = append(o.Rows, clipAll(cells[:min(len(cells), cols)]))
	}
	var notes []string
	if t.Rows > rows {
		notes = append(notes, fmt.Sprintf("the first %d of %d rows", rows, t.Rows))
	}
	if t.Cols > cols {
		notes = append(notes, fmt.Sprintf("the first %d of %d columns", cols, t.Cols))
	}
	if len(notes) > 0 {
		o.Note = "showing " + strings.Join(notes, " and ")
	}
	return o
}

func clipAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = clipText(s, maxCellText)
	}
	return out
}

// clipText cuts s to n characters, saying so.
func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

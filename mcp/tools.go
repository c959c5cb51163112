package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/export"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/session"
)

// The tools, their names fixed: a client's model acts on these
// descriptions, so each says what it does, what it returns and what to do
// next. Input and output schemas come from the Go types below.

// AttachInput is attach_file's argument.
type AttachInput struct {
	Path string `json:"path" jsonschema:"the data file to attach (CSV, TSV, Excel, JSON, Parquet, SQLite, DuckDB, SAS, SPSS, Stata and more): absolute, or relative to the first served folder"`
}

// AttachOutput is an attached file's profile, in brief.
type AttachOutput struct {
	Name    string       `json:"name" jsonschema:"the file's name under /data"`
	Path    string       `json:"path" jsonschema:"where the code reads it: /data/<name>"`
	Kind    string       `json:"kind"`
	Size    int64        `json:"size"`
	Rows    int          `json:"rows,omitempty"`
	Columns []ColumnInfo `json:"columns,omitempty"`
	Sheets  []string     `json:"sheets,omitempty" jsonschema:"a workbook's sheets or a database's tables"`
}

// ColumnInfo is one column of a profile.
type ColumnInfo struct {
	Name  string `json:"name"`
	Dtype string `json:"dtype"`
}

// RunPythonInput is run_python's arguments.
type RunPythonInput struct {
	Code     string  `json:"code" jsonschema:"the Python code to run; the value of its last expression is returned"`
	TimeoutS float64 `json:"timeout_s,omitempty" jsonschema:"stop the cell after this many seconds (at most the server's cell limit)"`
}

// RunSQLInput is run_sql's arguments.
type RunSQLInput struct {
	Query string `json:"query" jsonschema:"the SQL: DuckDB over the attached files by their /data paths (e.g. SELECT * FROM '/data/q1.csv'), or the dialect of the database db names"`
	DB    string `json:"db,omitempty" jsonschema:"a connected database's name, or an attached SQLite or DuckDB file's name without its extension; omit for DuckDB over the files"`
}

// NoInput is the argument of the tools that take none.
type NoInput struct{}

// CheckInput is check_numbers' argument.
type CheckInput struct {
	Text string `json:"text" jsonschema:"the answer to check, in Markdown, as you would give it to the user"`
}

// ExportInput is export_session's argument.
type ExportInput struct {
	Format string `json:"format" jsonschema:"the file to make"`
}

var (
	readOnly    = &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
	changesKern = &sdk.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
)

func ptr[T any](v T) *T { return &v }

func (s *Server) addTools() {
	sdk.AddTool(s.sdk, &sdk.Tool{Name: "attach_file", Title: "Attach a data file", Annotations: changesKern,
		InputSchema: schemaFor[AttachInput](), OutputSchema: schemaFor[AttachOutput](),
		Description: "Copy a data file into the sandbox (read-only, at /data/<name>) and profile it. Returns how to read it (the exact pandas call), its shape, columns and dtypes, the dialect (delimiter, decimal, encoding, header row) and notes. " +
			"Only files inside the folders this server serves can be attached; a path outside them, with '..', through a symbolic link leading out, or with hard links is refused with the reason. Attach before reading a file in run_python or run_sql."},
		s.attachFile)
	sdk.AddTool(s.sdk, &sdk.Tool{Name: "run_python", Title: "Run Python", Annotations: changesKern,
		InputSchema: schemaFor[RunPythonInput](), OutputSchema: schemaFor[CellOutput](),
		Description: "Run Python in the session's kernel (variables, imports and DataFrames persist between calls; pandas as pd, numpy as np and matplotlib.pyplot as plt are imported). Attached files are under /data; save files for the user under /output. sql(query) runs DuckDB over the files. There is no network. " +
			"Returns stdout and stderr, the last expression's value (a DataFrame as a table), each figure as an image, the files saved, or the traceback (isError). Long output is cut in the middle, saying how much. undo takes a call back."},
		s.runPython)
	sdk.AddTool(s.sdk, &sdk.Tool{Name: "run_sql", Title: "Run SQL", Annotations: changesKern,
		InputSchema: schemaFor[RunSQLInput](), OutputSchema: schemaFor[CellOutput](),
		Description: "Run SQL as sql() does in a cell: DuckDB over the attached files (SELECT * FROM '/data/q1.csv'), or, with db, a connected database or an attached SQLite or DuckDB file, read-only, with the server's row cap and time limit. Returns the rows as a table. It is a cell of the session: undo takes it back."},
		s.runSQL)
	sdk.AddTool(s.sdk, &sdk.Tool{Name: "list_outputs", Title: "List saved files", Annotations: readOnly,
		InputSchema: schemaFor[NoInput](), OutputSchema: schemaFor[OutputsOutput](),
		Description: "List the figures and files the session's code saved under /output, each with a resource URI to read it with resources/read."},
		s.listOutputs)
	sdk.AddTool(s.sdk, &sdk.Tool{Name: "undo", Title: "Undo the last call", Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
		InputSchema: schemaFor[NoInput](), OutputSchema: schemaFor[UndoOutput](),
		Description: "Take back the last run_python or run_sql: the kernel returns to the state it had before it (variables it made are gone, ones it changed have their old values) and the files it saved are removed. Call again to go further back."},
		s.undo)
	sdk.AddTool(s.sdk, &sdk.Tool{Name: "check_numbers", Title: "Check an answer's numbers", Annotations: readOnly,
		InputSchema: schemaFor[CheckInput](), OutputSchema: schemaFor[NumbersOutput](),
		Description: "Check each number of an answer against the outputs of the session's cells and the attached files' profiles, as quarry checks its own answers: grounded with the cell and the output line or table cell that holds it, or unverified. Compute an unverified number in a cell and quote the printed value, or drop it."},
		s.checkNumbers)
	in := schemaFor[ExportInput]()
	for _, f := range export.AllFormats() {
		in.Properties["format"].Enum = append(in.Properties["format"].Enum, string(f))
	}
	sdk.AddTool(s.sdk, &sdk.Tool{Name: "export_session", Title: "Export the session", Annotations: changesKern, InputSchema: in, OutputSchema: schemaFor[ExportOutput](),
		Description: "Write the session so far (its cells, outputs and figures, numbers checked) as a file: " + formatList() + ". " +
			"The workbook and the PDF are built in a fresh sandbox of their own, from the last variance() table, its bridge() chart, the commentary and the sources (without a variance() table they hold the rest, and say so). Returns the file as a resource to read with resources/read."},
		s.exportSession)
}

func formatList() string {
	var parts []string
	for _, f := range export.AllFormats() {
		parts = append(parts, string(f)+" ("+formatWords[f]+")")
	}
	return strings.Join(parts, ", ")
}

// formatWords say what each format is; one a later quarry adds reads as
// its name alone.
var formatWords = map[export.Format]string{
	export.Notebook: "a Jupyter notebook",
	export.Markdown: "a Markdown report",
	export.HTML:     "one self-contained HTML page",
	export.Workbook: "the variance report as a formatted Excel workbook",
	export.PDF:      "the variance report as a PDF",
}

// call is a tool call's client, or the reason there is none.
func (s *Server) call(req *sdk.CallToolRequest) (*client, error) {
	if c := s.clientOf(req.Session); c != nil {
		return c, nil
	}
	return nil, errGone
}

func (s *Server) attachFile(ctx context.Context, req *sdk.CallToolRequest, in AttachInput) (*sdk.CallToolResult, AttachOutput, error) {
	c, err := s.call(req)
	if err != nil {
		return nil, AttachOutput{}, err
	}
	path, err := s.roots.Resolve(in.Path)
	if err != nil {
		return nil, AttachOutput{}, err
	}
	if err := session.CheckFile(path); err != nil {
		return nil, AttachOutput{}, c.maskErr(err)
	}
	sess, err := c.session(ctx, newProgress(ctx, req))
	if err != nil {
		return nil, AttachOutput{}, err
	}
	p, err := sess.Attach(ctx, path)
	if err != nil {
		return nil, AttachOutput{}, err
	}
	text := sess.Mask(agent.ProfileText(p, s.opts.Config.Share != config.ShareSchema))
	out := AttachOutput{Name: sess.Mask(p.Name), Path: "/data/" + sess.Mask(p.Name), Kind: p.Kind, Size: p.Size, Rows: p.Rows}
	for _, col := range p.Columns {
		out.Columns = append(out.Columns, ColumnInfo{Name: sess.Mask(col.Name), Dtype: col.Dtype})
	}
	for _, sh := range p.Sheets {
		out.Sheets = append(out.Sheets, sess.Mask(sh.Name))
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}

func (s *Server) runPython(ctx context.Context, req *sdk.CallToolRequest, in RunPythonInput) (*sdk.CallToolResult, CellOutput, error) {
	if strings.TrimSpace(in.Code) == "" {
		return nil, CellOutput{}, errors.New("the code is empty: give the Python to run")
	}
	return s.runCell(ctx, req, "run_python", in.Code, in.TimeoutS)
}

func (s *Server) runSQL(ctx context.Context, req *sdk.CallToolRequest, in RunSQLInput) (*sdk.CallToolResult, CellOutput, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, CellOutput{}, errors.New("the query is empty: give the SQL to run")
	}
	code := "sql(" + kernel.PyString(in.Query) + ")"
	if in.DB != "" {
		code = "sql(" + kernel.PyString(in.Query) + ", db=" + kernel.PyString(in.DB) + ")"
	}
	return s.runCell(ctx, req, "run_sql", code, 0)
}

// runCell runs code as one turn of the client's session, its question
// naming the tool and the client.
func (s *Server) runCell(ctx context.Context, req *sdk.CallToolRequest, tool, code string, timeoutS float64) (*sdk.CallToolResult, CellOutput, error) {
	c, err := s.call(req)
	if err != nil {
		return nil, CellOutput{}, err
	}
	if timeoutS < 0 {
		return nil, CellOutput{}, errors.New("timeout_s must be positive: leave it out for the server's limit")
	}
	p := newProgress(ctx, req)
	sess, err := c.session(ctx, p)
	if err != nil {
		return nil, CellOutput{}, err
	}
	limit := s.opts.Config.Timeout
	runCtx := ctx
	var own time.Duration
	if timeoutS > 0 {
		own = time.Duration(timeoutS * float64(time.Second))
		if limit <= 0 || own < limit {
			runCtx = sandbox.WithCellLimit(ctx, own) // counted from the cell's start, as the server's limit is
		}
	}
	limited := runCtx != ctx
	done := p.beat("the cell")
	runCtx, ended := c.startCell(runCtx, postOf(req.Extra))
	cell, err := sess.RunCell(runCtx, tool+", called by "+c.name()+" over MCP", code, func(ch kernel.Chunk) { p.output(ch.Text) })
	ended()
	done()
	if err != nil {
		return nil, CellOutput{}, err
	}
	if e := cell.Result.Error; e != nil && e.Kind == kernel.ErrTimeout && own > 0 && limited {
		e.Message = fmt.Sprintf("the cell ran longer than timeout_s (%s)", own)
	}
	c.saved(cell.Result.Figures...)
	c.saved(cell.Result.Files...)
	res, out := cellResult(cell, s.opts.Config.Thousands)
	return res, out, nil
}

// Package kernel describes what the sandbox's Python kernel reports: output
// chunks, cell results, tables and file profiles. It is plain data shared by
// sandbox (which produces it), agent (which reasons over it) and render, ui and
// headless (which show it), with the rules that must read the same on both
// sides: the size format (FormatSize) and the PNG limits (CheckPNG, and
// ReadPNG for a figure read back from a session folder). It must not import
// any other quarry package.
package kernel

import "time"

// Stream names an output stream of a cell.
type Stream string

const (
	Stdout Stream = "stdout"
	Stderr Stream = "stderr"
	// Progress is no output: a line on how the cell's work goes elsewhere
	// ("120 of 480 tasks done on the Dask cluster"), for a status line.
	Progress Stream = "progress"
)

// Chunk is output as it happens, in order. Text is valid UTF-8 (invalid bytes
// replaced) but otherwise untrusted: sanitize before it reaches a terminal.
type Chunk struct {
	Stream Stream `json:"stream"`
	Text   string `json:"text"`
}

// ErrorKind says why a cell did not finish normally.
type ErrorKind string

const (
	ErrException   ErrorKind = "exception"   // the code raised; Type/Message/Traceback set
	ErrTimeout     ErrorKind = "timeout"     // wall-clock limit hit; interrupted
	ErrInterrupted ErrorKind = "interrupted" // cancelled by the user
	ErrOutOfMemory ErrorKind = "oom"         // the kernel was killed for memory
	ErrCrashed     ErrorKind = "crashed"     // the kernel died (segfault, os._exit, killed)
)

// Error describes a failed cell in words a model and a person can act on.
type Error struct {
	Kind      ErrorKind `json:"kind"`
	Type      string    `json:"type,omitempty"` // Python exception class, e.g. KeyError
	Message   string    `json:"message"`
	Traceback string    `json:"traceback,omitempty"` // trimmed to the user's own code
	// Needs is what the cell lacked that a package may provide; nil for
	// any other failure.
	Needs *Needs `json:"needs,omitempty"`
}

// Needs is what a failed cell lacked: the top-level modules an import did
// not find (in the cell or in a library it called), or the names a %pip,
// %conda or !apt line asked for. The names come from the sandbox: untrusted.
type Needs struct {
	Modules  []string `json:"modules,omitempty"`
	Packages []string `json:"packages,omitempty"` // as typed
	Via      string   `json:"via,omitempty"`      // pip, conda or apt: what the line asked
}

// Result is the outcome of one cell.
type Result struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	// Dropped counts the bytes of output omitted by the output cap (head and
	// tail are kept); Stdout/Stderr carry a marker where they were cut.
	Dropped  int64         `json:"dropped,omitempty"`
	Value    *Value        `json:"value,omitempty"`
	Figures  []File        `json:"figures,omitempty"`
	Files    []File        `json:"files,omitempty"`
	Error    *Error        `json:"error,omitempty"`
	Duration time.Duration `json:"duration"`
	// StateLost is true when the kernel had to be replaced during or after
	// this cell: the variables defined so far are gone.
	StateLost bool `json:"state_lost,omitempty"`
	// Rewound is true when the kernel died during or before this cell and
	// came back at the checkpoint of the current question: variables from
	// earlier questions are kept, those made since the question began are gone.
	Rewound bool `json:"rewound,omitempty"`
	// Notes are short remarks from the sandbox (caps hit, files skipped).
	Notes []string `json:"notes,omitempty"`
	// Report is what the cell gave the variance report (report.go).
	Report *Report `json:"report,omitempty"`
}

// Value is the last expression of a cell, as IPython would show it.
type Value struct {
	Repr  string `json:"repr"`            // text/plain representation, capped
	Table *Table `json:"table,omitempty"` // set for a DataFrame or Series
}

// Table is a DataFrame (or Series) in structured form, head and tail only.
type Table struct {
	Columns   []string   `json:"columns"`
	Dtypes    []string   `json:"dtypes"`
	IndexName string     `json:"index_name,omitempty"`
	Index     []string   `json:"index"` // index labels for Head then Tail rows
	Head      [][]string `json:"head"`
	Tail      [][]string `json:"tail,omitempty"` // empty when Head holds every row
	Rows      int        `json:"rows"`           // total rows in the frame
	Cols      int        `json:"cols"`           // total columns in the frame
	// Display is Head then Tail as pandas displays them (display.precision,
	// one format for a whole column), and IndexDisplay the index labels:
	// for the screen. Head and Tail keep the exact values, for the model.
	Display      [][]string `json:"display,omitempty"`
	IndexDisplay []string   `json:"index_display,omitempty"`
	// The columns are those Jupyter shows for display.max_columns: all, or
	// the first and the last half, ColumnGap of them before the gap (0: no
	// gap; the ones after Columns are left out, as in older records).
	ColumnGap int `json:"column_gap,omitempty"`
	// A MultiIndex: each row's labels level by level (as displayed), the
	// levels' names; Index holds the labels joined, for one column.
	IndexLevels [][]string `json:"index_levels,omitempty"`
	IndexNames  []string   `json:"index_names,omitempty"`
	// MultiIndex columns: each column's labels level by level; Columns
	// holds them joined.
	ColumnLevels [][]string `json:"column_levels,omitempty"`
}

// Exact is row i (Head then Tail) as the exact values, with its index
// label: what the model is given, and what is copied and saved.
func (t *Table) Exact(i int) (label string, cells []string) {
	if i < len(t.Head) {
		cells = t.Head[i]
	} else if j := i - len(t.Head); j < len(t.Tail) {
		cells = t.Tail[j]
	}
	if i < len(t.Index) {
		label = t.Index[i]
	}
	return label, cells
}

// Shown is row i (Head then Tail) as displayed, with its index label:
// Display when the kernel sent it, the exact values otherwise.
func (t *Table) Shown(i int) (label string, cells []string) {
	label, cells = t.Exact(i)
	if i < len(t.Display) && len(t.Display[i]) == len(cells) {
		cells = t.Display[i]
	}
	if i < len(t.IndexDisplay) && len(t.IndexDisplay) == len(t.Index) {
		label = t.IndexDisplay[i]
	}
	return label, cells
}

// File is a file harvested from the sandbox's output folder onto the host.
type File struct {
	Name   string `json:"name"` // relative name inside /output (untrusted text)
	Path   string `json:"path"` // host path inside the session's output folder
	Size   int64  `json:"size"`
	Width  int    `json:"width,omitempty"` // PNG only, after validation
	Height int    `json:"height,omitempty"`
	// PNG is a figure's bytes, already checked (CheckPNG), so the front end
	// draws it without reading the file back; nil for other files and in
	// records read from disk.
	PNG []byte `json:"-"`
	// Inline is the figure drawn again for the chat, at the size and
	// resolution its window shows it at (checked like PNG); nil when the
	// front end asked for none.
	Inline []byte `json:"-"`
}

// FigureBox is how a front end shows figures inline: at most W × H pixels,
// with text FontPx pixels high so it reads at the size shown. The kernel
// draws each figure a second time for it (File.Inline); the saved PNG stays
// as the code made it. The zero value asks for none.
type FigureBox struct {
	W      int `json:"w"`
	H      int `json:"h"`
	FontPx int `json:"font_px"`
}

// Profile describes an attached file, computed inside the sandbox.
type Profile struct {
	Name string `json:"name"` // base name, visible at Path
	Path string `json:"path"` // /data/<name>
	Size int64  `json:"size"`
	// Kind is the profile reader that read it (filekind's Reader: csv,
	// excel, json, parquet, feather, arrow_stream, stata, spss, sas,
	// sqlite, duckdb).
	Kind string `json:"kind"`
	// KindNote says how the file's name and content disagree when it was
	// read by its content: "named .csv, but it is an SQLite database". Set
	// by the host, not the kernel.
	KindNote string `json:"kind_note,omitempty"`
	// Compression is how a CSV or JSON file is packed (gzip, bz2, xz, zip);
	// pandas unpacks it while reading.
	Compression string `json:"compression,omitempty"`
	// Unpacked is a compressed file's size unpacked, counted or estimated
	// within the profile's time (gzip's trailer, a zip's directory, or the
	// rate of a bounded read); "large" and sampling go by it.
	Unpacked int64  `json:"unpacked,omitempty"`
	Encoding string `json:"encoding,omitempty"`
	// EncodingSample is some of the file's non-ASCII text as Encoding
	// decodes it (cells joined by " · "), so that a wrong guess shows:
	// "Taxi – airport “Dublin T2” · €42,50", not "Taxi û airport ôDublin T2ö".
	EncodingSample string `json:"encoding_sample,omitempty"`
	Delimiter      string `json:"delimiter,omitempty"`
	Decimal        string `json:"decimal,omitempty"`
	// Thousands is the digit-group separator the numbers use ("." in
	// "1.234,56"), empty when there is none; read_csv needs it as thousands=.
	Thousands string   `json:"thousands,omitempty"`
	HeaderRow int      `json:"header_row"` // 0-based; -1 when there is no header
	Rows      int      `json:"rows"`
	Columns   []Column `json:"columns,omitempty"`
	// ColumnCount is the number of columns the file has when Columns lists
	// only the first of them (very wide tables); 0 when it lists all.
	ColumnCount int        `json:"column_count,omitempty"`
	Head        [][]string `json:"head,omitempty"`
	Sheets      []Sheet    `json:"sheets,omitempty"` // Excel workbooks; an SQLite database's tables
	// Tables is how many tables a database file holds (SQLite's tables,
	// DuckDB's tables and views), all of them: Sheets lists only the first.
	Tables int    `json:"tables,omitempty"`
	Error  string `json:"error,omitempty"` // profiling failed; the file is still attached
	// Read is the call that loaded the file in the profile (for a workbook,
	// its main sheet's): loading it the same way gives the same table.
	Read *ReadCall `json:"read,omitempty"`
	// MemoryEstimate is about how many bytes a DataFrame of the whole file
	// takes, scaled from the rows the profile read; MemoryLimit is the
	// sandbox's memory. Large is set when the estimate is over half of the
	// limit: loading it whole into pandas would likely run out of memory.
	MemoryEstimate int64 `json:"memory_estimate,omitempty"`
	MemoryLimit    int64 `json:"memory_limit,omitempty"`
	Large          bool  `json:"large,omitempty"`
	// Notes say where the profile is partial, e.g. computed from the first
	// rows of a large file with the row count estimated, and what the read
	// call had to handle (lines above or below the table, ragged rows).
	Notes []string `json:"notes,omitempty"`
}

// Width is the number of columns the file has: ColumnCount when the
// profile lists only the first of them, else the columns listed.
func (p *Profile) Width() int {
	return max(p.ColumnCount, len(p.Columns))
}

// Column is one column of a profiled file.
type Column struct {
	Name     string   `json:"name"`
	Dtype    string   `json:"dtype"`
	Nulls    int      `json:"nulls"`
	Examples []string `json:"examples,omitempty"`
	// DateFormat is the strftime format of a text column parsed as dates
	// (e.g. "%d.%m.%Y"); read_csv needs parse_dates and date_format for it.
	DateFormat string `json:"date_format,omitempty"`
}

// Sheet is one sheet of an Excel workbook.
type Sheet struct {
	Name string `json:"name"`
	// State is "hidden" or "very hidden" for a sheet Excel does not show.
	State     string   `json:"state,omitempty"`
	HeaderRow int      `json:"header_row"` // 0-based row of the sheet; -1 when there is none
	Rows      int      `json:"rows"`
	Columns   []Column `json:"columns,omitempty"`
	// ColumnCount is as in Profile: the sheet's columns when Columns lists
	// only the first of them.
	ColumnCount int        `json:"column_count,omitempty"`
	Head        [][]string `json:"head,omitempty"`
	Read        *ReadCall  `json:"read,omitempty"`  // loads this sheet's table
	Notes       []string   `json:"notes,omitempty"` // e.g. where the table starts, only the first rows were read
}

// CheckCell is one cell of a notebook, for the kernel to check before any
// runs: its number (the notebook's code cell) and its code.
type CheckCell struct {
	Cell int    `json:"cell"`
	Code string `json:"code"`
}

// Refusal is a line of a cell the kernel does not run (its IPython rules,
// pykernel/quarry_kernel/ipython/syntax.py), and why, with what to do.
type Refusal struct {
	Cell int    `json:"cell"`
	Line int    `json:"line"` // 1-based, in the cell
	Text string `json:"text"` // the line
	Why  string `json:"why"`
}

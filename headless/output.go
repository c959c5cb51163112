package headless

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/ground"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
)

// Result is the --json document. Every string from the model or the
// sandbox is sanitized, as on a terminal: scripts often print it.
type Result struct {
	Answer string       `json:"answer"` // Markdown
	Cells  []CellResult `json:"cells"`
	Files  []string     `json:"files"` // host paths of figures and files, in order
	Usage  UsageResult  `json:"usage"`
	// Incomplete is set when the answer is not what the question needed:
	// no code ran although the model tried, or the answer was cut off,
	// filtered or empty. Warnings say why.
	Incomplete bool     `json:"incomplete"`
	Warnings   []string `json:"warnings"`
	Model      string   `json:"model"`
	// Session is the session id (the default output folder's name).
	Session string `json:"session"`
	// OutputDir is the host folder of the files and the transcript.
	OutputDir string `json:"output_dir"`
	// Numbers are the answer's numbers in answer order, each grounded in a
	// cell's output or not (verify = off: none); Unverified counts the
	// ones no output holds.
	Numbers    []NumberResult `json:"numbers"`
	Unverified int            `json:"unverified"`
	// Report are the report files written after the answer (--report).
	Report []string `json:"report,omitempty"`
}

// NumberResult is one number of the answer: as written, its value (percent
// as a fraction), and the cell and output line or table cell holding it
// (null when none does).
type NumberResult struct {
	Text     string  `json:"text"`
	Value    float64 `json:"value"`
	Grounded bool    `json:"grounded"`
	Cell     *int    `json:"cell"`
	Source   *string `json:"source"`
}

// CellResult is one executed cell.
type CellResult struct {
	Code    string        `json:"code"`
	Stdout  string        `json:"stdout"`
	Stderr  string        `json:"stderr"`
	Value   *string       `json:"value"`           // repr of the last expression, null when none
	Table   *TableResult  `json:"table,omitempty"` // the value as a table, when it is a DataFrame or Series
	Error   *kernel.Error `json:"error"`           // null when the cell finished normally
	Figures []string      `json:"figures"`
	Files   []string      `json:"files"`
	// Notes are what quarry says of the cell: files it did not harvest
	// (a cap reached, a link skipped), a kernel restart.
	Notes      []string `json:"notes"`
	DurationMS int64    `json:"duration_ms"`
}

// TableResult is a value's table as Jupyter shows it: the index columns
// (one a level) and the columns display.max_columns shows ("⋯" where it
// leaves some out), the rows as displayed, head then tail.
type TableResult struct {
	Columns      []string   `json:"columns"`
	IndexColumns int        `json:"index_columns"`
	Rows         [][]string `json:"rows"`
	RowsLeftOut  *int       `json:"rows_left_out_before"` // the row before which rows were left out; null for none
	RowsTotal    int        `json:"rows_total"`
	ColumnsTotal int        `json:"columns_total"`
}

func newTableResult(t *kernel.Table) *TableResult {
	g := render.NewGrid(t, 0, false)
	out := &TableResult{Columns: g.Header, IndexColumns: g.IndexCols, Rows: g.Rows, RowsTotal: t.Rows, ColumnsTotal: t.Cols}
	if g.Gap >= 0 {
		gap := g.Gap
		out.RowsLeftOut = &gap
	}
	if out.Rows == nil {
		out.Rows = [][]string{}
	}
	return out
}

// UsageResult is the token usage of the turn; reasoning tokens are part
// of the completion tokens.
type UsageResult struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	ReasoningTokens  int     `json:"reasoning_tokens"`
	CostUSD          float64 `json:"cost_usd"`
}

// collector gathers a turn's cells and usage from the event stream.
type collector struct {
	cells      []CellResult
	files      []string
	seen       map[string]bool
	usage      UsageResult
	steps      int
	warnings   []string
	incomplete bool
	numbers    []ground.Claim
}

func newCollector() *collector { return &collector{seen: map[string]bool{}} }

func (c *collector) Event(e agent.Event) {
	switch e.Kind {
	case agent.EventCellDone:
		c.steps++
		if e.Result != nil {
			c.addCell(e.Code, e.Result)
		}
	case agent.EventUsage:
		if e.Usage != nil {
			t := e.Usage.Turn
			c.usage = UsageResult{PromptTokens: t.Prompt, CompletionTokens: t.Completion, ReasoningTokens: t.Reasoning, CostUSD: t.CostUSD}
		}
	case agent.EventIncomplete:
		c.incomplete = true
		c.warnings = append(c.warnings, render.SanitizeLine(e.Text))
	case agent.EventWarning, agent.EventRevise:
		c.warnings = append(c.warnings, render.SanitizeLine(e.Text))
	case agent.EventTurnDone:
		c.numbers = e.Numbers
	}
}

func (c *collector) addCell(code string, r *kernel.Result) {
	cell := NewCellResult(code, r)
	for _, p := range append(append([]string{}, cell.Figures...), cell.Files...) {
		if !c.seen[p] {
			c.seen[p] = true
			c.files = append(c.files, p)
		}
	}
	c.cells = append(c.cells, cell)
}

// NewCellResult is a cell as every --json document gives it (-p here,
// quarry rerun in cli), each string sanitized.
func NewCellResult(code string, r *kernel.Result) CellResult {
	cell := CellResult{
		Code:       render.Sanitize(code),
		Stdout:     render.Sanitize(r.Stdout),
		Stderr:     render.Sanitize(r.Stderr),
		Figures:    []string{},
		Files:      []string{},
		Notes:      []string{},
		DurationMS: r.Duration.Milliseconds(),
	}
	for _, n := range r.Notes {
		cell.Notes = append(cell.Notes, render.SanitizeLine(n))
	}
	if r.Value != nil {
		v := render.Sanitize(r.Value.Repr)
		cell.Value = &v
		if r.Value.Table != nil {
			cell.Table = newTableResult(r.Value.Table)
		}
	}
	if r.Error != nil {
		e := *r.Error
		e.Type = render.SanitizeLine(e.Type)
		e.Message = render.Sanitize(e.Message)
		e.Traceback = render.Sanitize(e.Traceback)
		cell.Error = &e
	}
	for _, f := range r.Figures {
		cell.Figures = append(cell.Figures, render.SanitizeLine(f.Path))
	}
	for _, f := range r.Files {
		cell.Files = append(cell.Files, render.SanitizeLine(f.Path))
	}
	return cell
}

// Finish builds the document from the final answer.
func (c *collector) Finish(answer, model, session, outDir string) Result {
	r := Result{
		Answer:     render.Sanitize(answer),
		Cells:      c.cells,
		Files:      c.files,
		Usage:      c.usage,
		Incomplete: c.incomplete,
		Warnings:   c.warnings,
		Model:      render.SanitizeLine(model),
		Session:    session,
		OutputDir:  outDir,
	}
	if r.Cells == nil {
		r.Cells = []CellResult{}
	}
	if r.Files == nil {
		r.Files = []string{}
	}
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
	r.Numbers = []NumberResult{}
	for _, n := range c.numbers {
		nr := NumberResult{Text: render.SanitizeLine(n.Text), Value: n.Value, Grounded: n.Grounded, Cell: n.Cell}
		if n.Source != nil {
			src := render.SanitizeLine(*n.Source)
			nr.Source = &src
		}
		if !n.Grounded {
			r.Unverified++
		}
		r.Numbers = append(r.Numbers, nr)
	}
	return r
}

func writeJSON(w io.Writer, r Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// answerMarkdown is the answer followed by the files it produced, by host path.
func answerMarkdown(r Result) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(r.Answer, "\n"))
	b.WriteString("\n")
	if len(r.Files) > 0 {
		b.WriteString("\nFiles:\n\n")
		for _, f := range r.Files {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	}
	return b.String()
}

// mdStyle says how to print Markdown: plain for pipes, glamour on terminals.
type mdStyle struct {
	render bool
	width  int
	style  render.Style
}

func writeMarkdown(w io.Writer, r Result, st mdStyle) error {
	if st.render {
		// Only the answer goes through glamour: it would wrap long paths,
		// which must stay whole to be copied.
		out, err := render.NewMarkdown().Render(r.Answer, st.width, st.style)
		if err == nil {
			var b strings.Builder
			b.WriteString(out)
			if len(r.Files) > 0 {
				b.WriteString("\n  Files:\n")
				for _, f := range r.Files {
					fmt.Fprintf(&b, "  • %s\n", f)
				}
			}
			_, err = io.WriteString(w, b.String())
			return err
		}
		// glamour failed: the plain text is still the answer
	}
	_, err := io.WriteString(w, answerMarkdown(r))
	return err
}

func markdownStyle(o Options, theme string) mdStyle {
	if !isTerminal(o.Stdout) {
		return mdStyle{}
	}
	dark := theme != "light"
	return mdStyle{render: true, width: terminalWidth(o.Stdout), style: render.DetectStyle(o.Getenv, dark)}
}

// unverifiedLine is the stderr line after the answer naming its numbers no
// cell's output holds, as written; empty when there are none.
func unverifiedLine(r Result) string {
	if r.Unverified == 0 {
		return ""
	}
	var texts []string
	for _, n := range r.Numbers {
		if !n.Grounded {
			texts = append(texts, n.Text)
		}
	}
	what := "numbers"
	if len(texts) == 1 {
		what = "number"
	}
	return fmt.Sprintf("unverified: %s (%d %s of the answer in no cell's output)", strings.Join(texts, ", "), len(texts), what)
}

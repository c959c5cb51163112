package agent

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/quarry-cli/quarry/kernel"
)

// modelViewLimit bounds what the model sees of one cell; the UI and the
// transcript get the whole kernel.Result through events.
const modelViewLimit = 8000

// cellView is what the model is told about a cell's outcome: compact text,
// figures and files by their path under /output, a traceback as an answer
// (not a Go error) so the model can correct itself.
func cellView(r kernel.Result) string {
	var b strings.Builder
	section := func(name, body string) {
		body = strings.TrimRight(body, "\n")
		if body == "" {
			return
		}
		fmt.Fprintf(&b, "[%s]\n%s\n", name, body)
	}
	section("stdout", r.Stdout)
	section("stderr", r.Stderr)
	if r.Value != nil {
		if r.Value.Table != nil {
			section("value", tableText(r.Value.Table))
		} else {
			section("value", r.Value.Repr)
		}
	}
	if len(r.Figures) > 0 {
		section("figures (shown to the user)", fileList(r.Figures))
	}
	if len(r.Files) > 0 {
		section("files saved (the user receives them)", fileList(r.Files))
	}
	if e := r.Error; e != nil {
		section("error", errorText(e))
	}
	if r.StateLost {
		section("note", "The Python kernel was restarted: every variable and import is gone. Load the data again before using it.")
	}
	if r.Rewound {
		section("note", "The Python kernel went back to where it was when this question began: variables from earlier questions are kept; everything the cells of this question defined or imported is gone. Redo what you need of it, lighter, before using it.")
	}
	if len(r.Notes) > 0 {
		section("notes", strings.Join(r.Notes, "\n"))
	}
	if b.Len() == 0 {
		return "(the cell ran and printed nothing)"
	}
	return clipMiddle(strings.TrimRight(b.String(), "\n"), modelViewLimit)
}

func errorText(e *kernel.Error) string {
	switch e.Kind {
	case kernel.ErrTimeout:
		return "The cell hit the time limit and was interrupted: " + e.Message + "\nMake the code faster (vectorize, sample the data) or split it into steps."
	case kernel.ErrOutOfMemory:
		return "The kernel ran out of memory and was restarted: " + e.Message + "\nRead fewer columns (usecols), use smaller dtypes or process in chunks."
	case kernel.ErrCrashed:
		return "The kernel crashed: " + e.Message
	case kernel.ErrInterrupted:
		return "Cancelled by the user: the cell was interrupted."
	}
	head := e.Message
	if e.Type != "" {
		head = e.Type + ": " + e.Message
	}
	if e.Traceback != "" && !strings.Contains(e.Traceback, head) {
		return e.Traceback + "\n" + head
	}
	if e.Traceback != "" {
		return e.Traceback
	}
	return head
}

func fileList(fs []kernel.File) string {
	lines := make([]string, 0, len(fs))
	for _, f := range fs {
		lines = append(lines, fmt.Sprintf("/output/%s (%s)", strings.TrimPrefix(f.Name, "/"), kernel.FormatSize(f.Size)))
	}
	return strings.Join(lines, "\n")
}

// tableText renders a table compactly: a shape line, then pipe-separated
// rows, head and tail with an ellipsis row between.
func tableText(t *kernel.Table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "table: %d rows × %d columns\n", t.Rows, t.Cols)
	// The columns left out (display.max_columns) stand as one "…" column,
	// in the middle as Jupyter leaves them out, or at the end.
	gap, hidden := len(t.Columns), t.Cols-len(t.Columns)
	if t.ColumnGap > 0 && t.ColumnGap < len(t.Columns) {
		gap = t.ColumnGap
	}
	withGap := func(first string, cells []string, mark string) string {
		out := append([]string{first}, cells[:min(gap, len(cells))]...)
		if hidden > 0 {
			out = append(out, mark)
		}
		if gap < len(cells) {
			out = append(out, cells[gap:]...)
		}
		return strings.Join(out, " | ")
	}
	cols := make([]string, 0, len(t.Columns))
	for i, c := range t.Columns {
		if i < len(t.Dtypes) && t.Dtypes[i] != "" {
			c += " (" + t.Dtypes[i] + ")"
		}
		cols = append(cols, c)
	}
	b.WriteString(withGap(t.IndexName, cols, fmt.Sprintf("… (%d columns not shown)", hidden)) + "\n")
	for i := range len(t.Head) + len(t.Tail) {
		if i == len(t.Head) {
			b.WriteString("… | " + fmt.Sprintf("(%d rows not shown)", max(t.Rows-len(t.Head)-len(t.Tail), 0)) + "\n")
		}
		label, cells := t.Exact(i)
		b.WriteString(withGap(label, cells, "…") + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// clipMiddle keeps the head and tail of s within limit characters, with a
// marker saying how much was left out.
func clipMiddle(s string, limit int) string {
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s
	}
	rs := []rune(s)
	keep := limit - 60
	head, tail := keep*2/3, keep/3
	omitted := n - head - tail
	return string(rs[:head]) + fmt.Sprintf("\n… [%d characters omitted] …\n", omitted) + string(rs[n-tail:])
}

// clip cuts s to at most n characters, on a character boundary.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// CellView is what a model is told of a cell's outcome (the chat's own
// cut included), for a client outside that stands where the model does.
func CellView(r kernel.Result) string { return cellView(r) }

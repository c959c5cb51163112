package render

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/quarry-cli/quarry/kernel"
)

// ResultOptions control the compact rendering of a cell's result.
type ResultOptions struct {
	Width    int  // lines are cut to this many cells; 0 means 80
	MaxLines int  // lines kept per stream; 0 means 8, negative means all
	Color    bool // dim stderr, red errors
	Links    bool // file names as OSC 8 links to their host paths
}

// Result renders a cell's outcome compactly for the TUI and the headless
// progress: stdout and stderr folded, the value (a table fitted to the
// width), an error summary, figures and files with sizes, the sandbox's
// notes. Every text from the sandbox is sanitized. No trailing newline.
func Result(r *kernel.Result, opt ResultOptions) string {
	if r == nil {
		return ""
	}
	width := opt.Width
	if width <= 0 {
		width = 80
	}
	n := opt.MaxLines
	if n == 0 {
		n = 8
	}
	plain := lipgloss.NewStyle()
	dim, bad, warn := plain, plain, plain
	if opt.Color {
		dim = dim.Faint(true)
		bad = bad.Foreground(lipgloss.Red).Bold(true)
		warn = warn.Foreground(lipgloss.Yellow)
	}
	var parts []string
	add := func(style lipgloss.Style, text string) {
		for _, l := range strings.Split(text, "\n") {
			parts = append(parts, style.Render(ansi.Truncate(l, width, "…")))
		}
	}
	if out := Sanitize(r.Stdout); strings.TrimSpace(out) != "" {
		add(plain, FoldLines(out, n))
	}
	if errOut := Sanitize(r.Stderr); strings.TrimSpace(errOut) != "" {
		add(dim, FoldLines(errOut, n))
	}
	if r.Dropped > 0 {
		add(dim, fmt.Sprintf("… %s of output omitted", HumanSize(r.Dropped)))
	}
	if v := r.Value; v != nil && r.Error == nil {
		if v.Table != nil {
			parts = append(parts, Table(v.Table, TableOptions{Width: width, MaxRows: max(n, 5), Color: opt.Color}))
		} else if repr := Sanitize(v.Repr); strings.TrimSpace(repr) != "" {
			add(plain, FoldLines(repr, n))
		}
	}
	if e := r.Error; e != nil {
		add(bad, "✗ "+errorSummary(e, r.Duration))
		if tb := Sanitize(e.Traceback); strings.TrimSpace(tb) != "" {
			add(dim, foldTail(tb, n))
		}
	}
	if r.StateLost {
		add(warn, "⚠ the kernel was restarted: variables defined so far are gone")
	}
	for _, f := range r.Figures {
		add(plain, "▣ "+fileLine(f, opt.Links, true))
	}
	for _, f := range r.Files {
		add(plain, "▤ "+fileLine(f, opt.Links, false))
	}
	for _, note := range r.Notes {
		add(dim, "note: "+SanitizeLine(note))
	}
	return strings.Join(parts, "\n")
}

// ResultSummary is one line about a cell: "ok · 1.2s · 1 figure · 2 files"
// or the error summary. For progress lines; sanitized.
func ResultSummary(r *kernel.Result) string {
	if r == nil {
		return ""
	}
	if r.Error != nil {
		return errorSummary(r.Error, r.Duration)
	}
	s := "ok · " + shortDuration(r.Duration)
	if n := len(r.Figures); n > 0 {
		s += fmt.Sprintf(" · %d %s", n, plural(n, "figure"))
	}
	if n := len(r.Files); n > 0 {
		s += fmt.Sprintf(" · %d %s", n, plural(n, "file"))
	}
	return s
}

func errorSummary(e *kernel.Error, d time.Duration) string {
	msg := SanitizeLine(e.Message)
	switch e.Kind {
	case kernel.ErrTimeout:
		return "timed out after " + shortDuration(d) + suffix(msg)
	case kernel.ErrInterrupted:
		return "interrupted" + suffix(msg)
	case kernel.ErrOutOfMemory:
		return "out of memory: the kernel was restarted" + suffix(msg)
	case kernel.ErrCrashed:
		return "the kernel crashed" + suffix(msg)
	}
	if typ := SanitizeLine(e.Type); typ != "" {
		if msg == "" {
			return typ
		}
		return typ + ": " + msg
	}
	if msg == "" {
		return "failed"
	}
	return msg
}

func suffix(msg string) string {
	if msg == "" {
		return ""
	}
	return " (" + msg + ")"
}

func fileLine(f kernel.File, link, figure bool) string {
	name := SanitizeLine(f.Name)
	if link && f.Path != "" {
		name = Hyperlink(f.Path, name)
	}
	meta := HumanSize(f.Size)
	if figure && f.Width > 0 {
		meta = fmt.Sprintf("%d×%d, %s", f.Width, f.Height, meta)
	}
	return name + " (" + meta + ")"
}

func shortDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// FoldLines keeps the first n lines of s and says how many more there
// were; n < 0 keeps all. A final newline does not count as a line.
func FoldLines(s string, n int) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if n < 0 || len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	more := len(lines) - n
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… %d more %s", more, plural(more, "line"))
}

// foldTail keeps the last n lines: the end of a traceback is what matters.
func foldTail(s string, n int) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if n < 0 || len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	more := len(lines) - n
	return fmt.Sprintf("… %d more %s\n", more, plural(more, "line")) + strings.Join(lines[more:], "\n")
}

// HumanSize formats a byte count in SI units: 512 B, 1.2 kB, 3.4 MB.
func HumanSize(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTP"[exp])
}

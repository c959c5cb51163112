package cli

import (
	"bytes"
	"io"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/quarry-cli/quarry/render"
)

// wrapWriter is where a command prints its own text on a terminal: each
// line is wrapped at the terminal's width at word boundaries, continued
// under its text (render.WrapLines), where the terminal itself would cut
// words (budget_q1.csv, b / udget_q2.csv). Piped, text goes out whole
// (textWriter returns the stream itself). It keeps the file's descriptor
// (Fd), so colour detection still sees the terminal.
type wrapWriter struct {
	f   *os.File
	buf []byte
}

// textWriter wraps w when it is a terminal.
func textWriter(w io.Writer) io.Writer {
	if f, ok := w.(*os.File); ok && term.IsTerminal(f.Fd()) {
		return &wrapWriter{f: f}
	}
	return w
}

func (w *wrapWriter) Fd() uintptr { return w.f.Fd() }

func (w *wrapWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	i := bytes.LastIndexByte(w.buf, '\n')
	if i < 0 {
		return len(p), nil
	}
	lines := string(w.buf[:i])
	w.buf = w.buf[i+1:]
	if err := w.put(lines + "\n"); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w *wrapWriter) put(s string) error {
	if width, _, err := term.GetSize(w.f.Fd()); err == nil && width >= 20 {
		out := render.WrapLines(s, width, "/")
		s = ""
		for k, l := range out {
			if k > 0 {
				s += "\n"
			}
			s += l
		}
	}
	_, err := io.WriteString(w.f, s)
	return err
}

// Flush writes a last line that has no newline.
func (w *wrapWriter) Flush() {
	if len(w.buf) > 0 {
		w.put(string(w.buf))
		w.buf = nil
	}
}

// termWidth is the width of the terminal w is, or 0.
func termWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return 0
	}
	width, _, err := term.GetSize(f.Fd())
	if err != nil {
		return 0
	}
	return width
}

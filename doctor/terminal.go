package doctor

import (
	"fmt"
	"io"
	"os"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/term"
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/render"
)

// ProbeTerminal asks the terminal on in and out what it is and draws, the
// way the chat does (render.TerminalQueries), and collects the replies
// until the last query's, for at most timeout. in is put in raw mode for
// the time, so the replies are not echoed. A terminal that does not answer
// leaves the environment alone to decide.
func ProbeTerminal(in, out *os.File, getenv func(string) string, timeout time.Duration) render.Terminal {
	t := render.Terminal{Getenv: getenv}
	if getenv("TERM") == "dumb" || !term.IsTerminal(in.Fd()) || !term.IsTerminal(out.Fd()) {
		return t
	}
	old, err := term.MakeRaw(in.Fd())
	if err != nil {
		return t
	}
	defer term.Restore(in.Fd(), old)
	return probe(in, out, t, timeout)
}

// probe writes the queries to w and reads the replies from r.
func probe(r io.Reader, w io.Writer, t render.Terminal, timeout time.Duration) render.Terminal {
	if _, err := io.WriteString(w, render.TerminalQueries); err != nil {
		return t
	}
	chunks := make(chan []byte, 8)
	go func() {
		// Left blocked on a terminal that never answers; doctor exits soon.
		for {
			b := make([]byte, 256)
			n, err := r.Read(b)
			if n > 0 {
				chunks <- b[:n]
			}
			if err != nil {
				close(chunks)
				return
			}
		}
	}()
	var dec uv.EventDecoder
	var buf []byte
	deadline := time.After(timeout)
	for {
		select {
		case b, ok := <-chunks:
			if !ok {
				return t
			}
			buf = append(buf, b...)
			for len(buf) > 0 {
				n, ev := dec.Decode(buf)
				if n == 0 {
					break
				}
				buf = buf[n:]
				if t.Reply(ev) && t.Answered {
					return t
				}
			}
		case <-deadline:
			return t
		}
	}
}

// checkTerminal reports colours and how figures are drawn, and why; it
// informs and never fails.
func checkTerminal(c config.Config, tty bool, t render.Terminal) Check {
	r := Check{Name: "terminal"}
	if !tty {
		r.Detail = "output is not a terminal: plain text, no colours, figures as files"
		return r
	}
	getenv := t.Getenv
	term := getenv("TERM")
	if term == "" {
		term = "(unset)"
	}
	colours := map[render.ColorDepth]string{render.ColorNone: "none", render.Color256: "256", render.ColorTrue: "true colour"}[render.DetectColorDepth(getenv)]
	if getenv("NO_COLOR") != "" {
		colours = "off (NO_COLOR is set)"
	}
	name := t.Describe()
	switch {
	case name != "":
		name = ", says it is " + name
	case t.Answered:
		name = ", does not say what it is"
	default:
		name = ", did not answer quarry's queries"
	}
	p, why := t.Images()
	images := fmt.Sprintf("%s (%s)", p, why)
	if c.Images != "" && c.Images != "auto" {
		images = fmt.Sprintf("%s (set by images, %s; detected: %s, %s)", c.Images, c.Source("images"), p, why)
	}
	r.Detail = fmt.Sprintf("TERM=%s%s, colours: %s\nfigures: %s", term, name, colours, images)
	if t.CellW > 0 {
		r.Detail += fmt.Sprintf("; cells %d×%d pixels", t.CellW, t.CellH)
	}
	return r
}

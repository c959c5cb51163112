package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/quarry-cli/quarry/render"
)

// Text is wrapped at word boundaries (render.WrapLines); a line of code
// continues after a mark, so it cannot be read as a line of its own.

// codeBreaks are where a line of code may also break: after these.
const codeBreaks = ",([{."

// outputBreaks are where printed output, notices and questions may also
// break: after a "/" of a path (never at a hyphen: render.Wrap).
const outputBreaks = "/"

// continuation starts a line of code that continues the one above.
const continuation = "↪ "

// wrapText wraps each line of s at width, each continued under its
// text's start (render.WrapLines).
func wrapText(s string, width int, breaks string) []string { return render.WrapLines(s, width, breaks) }

// wrapCode wraps each line of code at width, at a space or after one of
// codeBreaks; a continued line keeps the line's indent and starts with the
// continuation mark, styled by mark.
func wrapCode(code string, width int, mark func(string) string) []string {
	markW := ansi.StringWidth(continuation)
	var out []string
	for _, l := range strings.Split(code, "\n") {
		if ansi.StringWidth(l) <= width {
			out = append(out, l)
			continue
		}
		plain := ansi.Strip(l)
		indent := min(len(plain)-len(strings.TrimLeft(plain, " ")), width/2)
		parts := strings.Split(render.WrapCode(ansi.TruncateLeft(l, indent, ""), max(width-indent-markW, 1), codeBreaks), "\n")
		out = append(out, ansi.Truncate(l, indent, "")+parts[0])
		for _, p := range parts[1:] {
			out = append(out, strings.Repeat(" ", indent)+mark(continuation)+strings.TrimLeft(p, " "))
		}
	}
	return out
}

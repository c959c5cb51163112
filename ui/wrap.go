package ui

import (
	"regexp"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/quarry-cli/quarry/render"
)

// Text is wrapped at word boundaries, never inside a word unless the word
// alone is longer than the line; a wrapped line continues under where its
// text starts (a list item's text, a table's second column), and a line of
// code continues after a mark, so it cannot be read as a line of its own.

// codeBreaks are where a line of code may also break: after these.
const codeBreaks = ",([{."

// outputBreaks are where printed output, notices and questions may also
// break: after a "/" of a path (never at a hyphen: render.Wrap).
const outputBreaks = "/"

// continuation starts a line of code that continues the one above.
const continuation = "↪ "

var (
	itemStart = regexp.MustCompile(`^( *)([-*•]|[0-9]+[.)]) +`)
	// twoColumns is a line laid out as a table: a first column, two or
	// more spaces, the second.
	twoColumns = regexp.MustCompile(`^( *\S(?:\S| \S)*)  +\S`)
)

// wrapText wraps each line of s at width (word boundaries, breaks as the
// extra characters allowed), each continued under its text's start.
func wrapText(s string, width int, breaks string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, wrapHanging(l, width, hangOf(ansi.Strip(l), width), breaks)...)
	}
	return out
}

// hangOf is where the continued lines of line start: under a list item's
// text, under a second column, or under the line's own indent.
func hangOf(line string, width int) int {
	indent := len(line) - len(strings.TrimLeft(line, " "))
	hang := indent
	if m := itemStart.FindStringIndex(line); m != nil {
		hang = ansi.StringWidth(line[:m[1]])
	} else if m := twoColumns.FindStringSubmatchIndex(line); m != nil {
		hang = ansi.StringWidth(line[:m[1]-1])
	}
	if hang > width/2 {
		return min(indent, width/2)
	}
	return hang
}

// wrapHanging wraps one line at width, its continued lines indented by hang.
func wrapHanging(line string, width, hang int, breaks string) []string {
	if width <= 0 || ansi.StringWidth(line) <= width {
		return []string{line}
	}
	head := ansi.Truncate(line, hang, "")
	rest := ansi.TruncateLeft(line, hang, "")
	parts := strings.Split(render.Wrap(rest, max(width-hang, 1), breaks), "\n")
	out := []string{head + parts[0]}
	pad := strings.Repeat(" ", hang)
	for _, p := range parts[1:] {
		out = append(out, pad+strings.TrimLeft(p, " "))
	}
	return out
}

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

package ui

import (
	"regexp"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
)

// The few places where untrusted text becomes terminal text; all of them go
// through package render (code cells: sanitized by render, then coloured by
// highlight.go).

func sanitize(s string) string { return render.Sanitize(s) }

func sanitizeLine(s string) string { return render.SanitizeLine(s) }

// markdown renders an answer; on a renderer error the sanitized text is
// shown as is rather than nothing.
func (rc renderCtx) markdown(md string, width int) string {
	out, err := rc.md.Render(md, width, rc.style)
	if err != nil {
		return sanitize(md)
	}
	return trimPadding(trimBlank(out))
}

// trailingPad is glamour's padding: styled spaces up to the full width, one
// SGR pair per cell. Dropping it keeps frames small and lines resizable.
var trailingPad = regexp.MustCompile(`(?:\x1b\[[0-9;:]*m| )+$`)

func trimPadding(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if loc := trailingPad.FindStringIndex(l); loc != nil {
			l = l[:loc[0]]
			if strings.Contains(l, "\x1b[") {
				l += "\x1b[m"
			}
			lines[i] = l
		}
	}
	return strings.Join(lines, "\n")
}

// codeBlock is a cell's Python: sanitized by render, coloured by chroma
// (highlight.go), hard-wrapped to width.
func (rc renderCtx) codeBlock(code string, width int) []string {
	code = strings.TrimRight(sanitize(strings.ReplaceAll(code, "\t", "    ")), "\n")
	if rc.style.Colour() {
		code = highlightPython(code, rc.th.dark)
	}
	if code == "" {
		return nil
	}
	lines := wrapCode(code, width, func(s string) string { return rc.th.dim.Render(s) })
	for i := range lines {
		lines[i] = truncate(lines[i], width)
	}
	return lines
}

func (rc renderCtx) table(t *kernel.Table, width int) string {
	return render.Table(t, render.TableOptions{Width: width, MaxRows: 10, Color: rc.style.Colour(), Dark: rc.th.dark, Thousands: rc.thousands})
}

// trimBlank drops the blank lines glamour puts around a document.
func trimBlank(s string) string {
	lines := strings.Split(s, "\n")
	isBlank := func(l string) bool { return strings.TrimSpace(ansi.Strip(l)) == "" }
	for len(lines) > 0 && isBlank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && isBlank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

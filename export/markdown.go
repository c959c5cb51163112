package export

import (
	"fmt"
	"html"
	"io"
	"path/filepath"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/session"
)

// writeMarkdown is the report: the questions, each cell's code and output
// (tables as Markdown tables, figures linked through link), the answers.
func writeMarkdown(w io.Writer, d *doc, link func(kernel.File) string) error {
	var b strings.Builder
	b.WriteString("# " + escapeMarkdown(d.title) + "\n\n" + sessionLine(d) + "\n")
	if len(d.inputs) > 0 {
		b.WriteString("\nInputs:\n\n")
		for _, in := range d.inputs {
			fmt.Fprintf(&b, "- %s\n", inputLine(in))
		}
	}
	for i, t := range d.turns {
		heading := firstLine(t.Question)
		if heading == "" {
			heading = fmt.Sprintf("Cells %d", i+1)
		}
		fmt.Fprintf(&b, "\n## %d. %s\n\n", i+1, escapeMarkdown(heading))
		if t.Question != "" && strings.Contains(strings.TrimSpace(t.Question), "\n") {
			b.WriteString(quoteBlock(safeMarkdown(t.Question)) + "\n\n")
		}
		for _, c := range t.Cells {
			markdownCell(&b, d, c, link)
		}
		if t.Answer != "" {
			b.WriteString("**Answer**\n\n" + strings.TrimSpace(safeMarkdown(footnoted(demoteHeadings(t.Answer, answerTop), t.Numbers, i+1))) + "\n\n")
		}
		if t.Error != "" {
			b.WriteString("*The turn failed:* " + escapeMarkdown(t.Error) + "\n\n")
		}
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

func markdownCell(b *strings.Builder, d *doc, c session.Cell, link func(kernel.File) string) {
	fmt.Fprintf(b, "**%s**\n\n", escapeMarkdown(cellTitle(c)))
	b.WriteString(fenced("python", c.Code))
	r := c.Result
	if out := strings.TrimRight(r.Stdout+r.Stderr, "\n"); out != "" {
		b.WriteString(fenced("text", out))
	}
	if v := r.Value; v != nil && r.Error == nil {
		if v.Table != nil {
			b.WriteString(markdownTable(v.Table, d.grid(v.Table)) + "\n")
		} else if strings.TrimSpace(v.Repr) != "" {
			b.WriteString(fenced("text", v.Repr))
		}
	}
	if r.Error != nil {
		b.WriteString(fenced("text", errorText(r.Error)))
	}
	for i, f := range r.Figures {
		target := ""
		if _, err := kernel.ReadPNG(f.Path); err == nil {
			target = link(f)
		}
		if target == "" {
			fmt.Fprintf(b, "*(figure %s is missing from the session folder)*\n\n", escapeMarkdown(f.Name))
			continue
		}
		fmt.Fprintf(b, "![cell %d, figure %d](%s)\n\n", c.Num, i+1, linkTarget(target))
	}
	if len(r.Files) > 0 {
		var parts []string
		for _, f := range r.Files {
			parts = append(parts, fmt.Sprintf("%s (%s)", escapeMarkdown(f.Name), kernel.FormatSize(f.Size)))
		}
		b.WriteString("Files saved: " + strings.Join(parts, ", ") + "\n\n")
	}
}

// MarkdownTable is a table as the Markdown report writes it (the chat's
// layout, digits grouped when thousands is set), for a client outside.
func MarkdownTable(t *kernel.Table, thousands bool) string {
	return markdownTable(t, render.NewGrid(t, 0, thousands))
}

// markdownTable is a GitHub-style table; numbers are right-aligned.
func markdownTable(t *kernel.Table, g render.Grid) string {
	var b strings.Builder
	b.WriteString("|")
	for _, h := range g.Header {
		b.WriteString(" " + escapeMarkdown(h) + " |")
	}
	b.WriteString("\n|")
	for _, num := range g.Numeric {
		if num {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for i, r := range g.Rows {
		if i == g.Gap {
			b.WriteString("|" + strings.Repeat(" … |", len(g.Header)) + "\n")
		}
		b.WriteString("|")
		for _, v := range r {
			b.WriteString(" " + escapeMarkdown(v) + " |")
		}
		b.WriteString("\n")
	}
	if g.Gap == len(g.Rows) {
		b.WriteString("|" + strings.Repeat(" … |", len(g.Header)) + "\n")
	}
	b.WriteString("\n*" + escapeMarkdown(tableShape(t, g)) + "*\n")
	return b.String()
}

// fenced puts text in a code block whose fence no line of it can close.
func fenced(lang, text string) string {
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	return fence + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + fence + "\n\n"
}

func sessionLine(d *doc) string {
	parts := []string{"Session `" + d.id + "`"}
	if d.source != "" {
		parts = append(parts, "rerun of "+escapeMarkdown(d.source))
	}
	if !d.started.IsZero() {
		parts = append(parts, "started "+d.started.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if d.model != "" {
		parts = append(parts, "model "+escapeMarkdown(d.model))
	}
	if words, names := d.extrasWords(); words != "" {
		parts = append(parts, "Debian packages added to the sandbox: "+escapeMarkdown(words)+" (`quarry sandbox add "+names+"`)")
	}
	return strings.Join(parts, " · ")
}

func inputLine(in session.Input) string {
	s := escapeMarkdown(in.Name)
	var about []string
	if in.Path != "" && filepath.Base(in.Path) != in.Path {
		about = append(about, escapeMarkdown(in.Path))
	}
	if in.Size > 0 {
		about = append(about, kernel.FormatSize(in.Size))
	}
	if p := in.Profile; p != nil && p.Rows > 0 {
		about = append(about, fmt.Sprintf("%d rows × %d columns", p.Rows, p.Width()))
	}
	if in.SHA256 != "" {
		about = append(about, "sha256 "+in.SHA256[:min(12, len(in.SHA256))]+"…")
	}
	if len(about) > 0 {
		s += " — " + strings.Join(about, ", ")
	}
	for _, c := range in.Changes {
		s += "; **" + escapeMarkdown(c) + "**"
	}
	return s
}

func questionMarkdown(q string) string {
	return "**You asked:**\n\n" + quoteBlock(safeMarkdown(q))
}

func quoteBlock(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "> " + l
	}
	return strings.Join(lines, "\n")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

// linkTarget keeps a link target whole: spaces and parentheses would end
// it early.
func linkTarget(p string) string {
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E").Replace(p)
}

func esc(s string) string { return html.EscapeString(s) }

// escapeMarkdown keeps one line of untrusted text plain in Markdown: no
// emphasis, link, heading or HTML made from it. It escapes with
// backslashes, never with HTML entities, so the file reads as text too
// (R&D stays R&D; only an & that would start an entity is escaped).
func escapeMarkdown(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	var b strings.Builder
	for i, r := range s {
		switch {
		case strings.ContainsRune("\\`*_[]#!|~<>", r):
			b.WriteRune('\\')
			b.WriteRune(r)
		case r == '&' && startsEntity(s[i+1:]):
			b.WriteString(`\&`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// startsEntity tells whether s, after an &, reads as the rest of an HTML
// entity (amp;, #39;, #x27;), which Markdown viewers would decode.
func startsEntity(s string) bool {
	n := 0
	for n < len(s) && n < 32 && (s[n] == '#' || s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z' || s[n] >= '0' && s[n] <= '9') {
		n++
	}
	return n > 0 && n < len(s) && s[n] == ';'
}

// safeMarkdown keeps the model's Markdown but neutralises raw HTML and
// images in it: outside code, < becomes \<, so no viewer builds a tag
// from it, and ![ becomes \![, a link, so no viewer fetches from a host the
// model chose (the HTML page shows images as text for the same reason).
func safeMarkdown(s string) string {
	var b strings.Builder
	lines := strings.SplitAfter(s, "\n")
	fence := ""
	for _, l := range lines {
		t := strings.TrimLeft(l, " ")
		if fence != "" {
			b.WriteString(l)
			if strings.HasPrefix(strings.TrimSpace(t), fence) {
				fence = ""
			}
			continue
		}
		if f := fenceOf(t); f != "" {
			fence = f
			b.WriteString(l)
			continue
		}
		b.WriteString(escapeHTMLOutsideCode(l))
	}
	return b.String()
}

// fenceOf returns the fence a line opens (``` or ~~~, at least three).
func fenceOf(l string) string {
	for _, c := range []string{"`", "~"} {
		n := 0
		for n < len(l) && l[n] == c[0] {
			n++
		}
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// escapeHTMLOutsideCode escapes < and the ! of an image outside inline
// code spans of one line.
func escapeHTMLOutsideCode(l string) string {
	var b strings.Builder
	for i := 0; i < len(l); {
		if l[i] == '`' {
			n := 0
			for i+n < len(l) && l[i+n] == '`' {
				n++
			}
			ticks := l[i : i+n]
			if end := strings.Index(l[i+n:], ticks); end >= 0 {
				b.WriteString(l[i : i+n+end+n])
				i += n + end + n
				continue
			}
			b.WriteString(ticks)
			i += n
			continue
		}
		switch {
		case l[i] == '<' && backslashesBefore(l, i)%2 == 0:
			b.WriteString(`\<`) // a backslash, not &lt;: the file reads as text too
		case l[i] == '!' && strings.HasPrefix(l[i+1:], "[") && backslashesBefore(l, i)%2 == 0:
			b.WriteString(`\!`)
		default:
			b.WriteByte(l[i])
		}
		i++
	}
	return b.String()
}

// backslashesBefore counts the backslashes right before l[i]: an odd
// number escapes it.
func backslashesBefore(l string, i int) int {
	n := 0
	for i-n-1 >= 0 && l[i-n-1] == '\\' {
		n++
	}
	return n
}

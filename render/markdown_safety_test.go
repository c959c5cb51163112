package render

import (
	"strings"
	"testing"
)

// assertOnlySGR fails when rendered output holds anything a terminal acts
// on besides SGR colours (quarry's own styling).
func assertOnlySGR(t testing.TB, s string) {
	t.Helper()
	assertClean(t, stripSGR(s), false)
}

// Markdown decodes character references (&#27;) after Sanitize has run, in
// text, headings, tables, links and even code spans: glamour's output must
// be cleaned again or the model can clear the screen or set the clipboard.
func TestMarkdownEntitiesCannotSmuggleControls(t *testing.T) {
	docs := []string{
		"a &#27;[2J b",
		"a &#x1b;]52;c;QUJD&#7; b",
		"`code &#27;[2J`",
		"# &#27;[H&#27;[2J title",
		"| a | b |\n|---|---|\n| &#27;[6n | &#x202e;gnp.exe |",
		"[&#27;[2J](http://a) and &#x9b;31m",
		"&#127;&#8;&#x85;&#x10eeee;&#x2066;x",
		"<b>&#27;P+q&#27;\\</b>",
	}
	m := NewMarkdown()
	for _, style := range []Style{StyleDark, StyleNoColor, StyleNoTTY} {
		for _, doc := range docs {
			out, err := m.Render(doc, 60, style)
			if err != nil {
				t.Fatal(err)
			}
			assertOnlySGR(t, out)
			s := m.NewStream(60, style)
			for i := 1; i <= len(doc); i++ {
				out, err := s.Render(doc[:i])
				if err != nil {
					t.Fatal(err)
				}
				assertOnlySGR(t, out)
			}
		}
	}
}

// The text around a smuggled control survives.
func TestMarkdownEntitiesKeepText(t *testing.T) {
	out, err := NewMarkdown().Render("before &#27;[2J after &amp; &#8364;", 60, StyleNoTTY)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "before  after & €") {
		t.Errorf("got %q", out)
	}
}

// Whatever the Markdown, glamour's output holds SGR and text only.
func FuzzMarkdownOnlySGR(f *testing.F) {
	for _, s := range []string{"a &#27;[2J b", "`&#x9b;`", "# &#7;", "| &#x202e; |\n|---|", "[x](&#27;)", "&#13;x", "<p>&#27;</p>", "***&#x1b;]8;;x&#7;***"} {
		f.Add(s)
	}
	m := NewMarkdown()
	f.Fuzz(func(t *testing.T, doc string) {
		for _, style := range []Style{StyleDark, StyleNoColor, StyleNoTTY} {
			out, err := m.Render(doc, 40, style)
			if err != nil {
				return
			}
			assertOnlySGR(t, out)
		}
	})
}

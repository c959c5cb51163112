package render

import (
	"os"
	"regexp"
	"strings"

	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/charmbracelet/x/exp/golden"
)

func readAnswer(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/answer.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStreamEqualsFullRender feeds the answer one cut at a time, as a model
// would stream it, and compares every update with a full render of the same
// text.
func TestStreamEqualsFullRender(t *testing.T) {
	doc := readAnswer(t)
	for _, style := range []Style{StyleNoTTY, StyleNoColor, StyleDark, StyleLight} {
		t.Run(string(style), func(t *testing.T) {
			md := NewMarkdown()
			full := NewMarkdown()
			st := md.NewStream(60, style)
			step := 7
			if testing.Short() {
				step = 41
			}
			for k := 0; k <= len(doc); k += step {
				cut := doc[:k]
				got, err := st.Render(cut)
				if err != nil {
					t.Fatal(err)
				}
				want, err := full.Render(cut, 60, style)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("cut %d (%q…): stream differs from full render\n got: %q\nwant: %q", k, tailOf(cut), got, want)
				}
			}
			got, _ := st.Render(doc)
			want, _ := full.Render(doc, 60, style)
			if got != want {
				t.Fatalf("finished text: stream differs from full render\n got: %q\nwant: %q", got, want)
			}
			if st.clean == "" || st.fallbacks != 0 {
				t.Fatalf("stream committed %d bytes, fell back to full renders %d times", len(st.clean), st.fallbacks)
			}
		})
	}
}

func tailOf(s string) string {
	if len(s) > 30 {
		return s[len(s)-30:]
	}
	return s
}

func TestStreamResizeAndRestart(t *testing.T) {
	doc := readAnswer(t)
	md := NewMarkdown()
	st := md.NewStream(60, StyleNoTTY)
	if _, err := st.Render(doc); err != nil {
		t.Fatal(err)
	}
	st.Resize(40)
	got, _ := st.Render(doc)
	want, _ := NewMarkdown().Render(doc, 40, StyleNoTTY)
	if got != want {
		t.Fatal("after resize the stream differs from a full render")
	}
	// A text that does not extend the previous one (an edited answer).
	other := "Different answer.\n\nSecond paragraph.\n"
	got, _ = st.Render(other)
	want, _ = NewMarkdown().Render(other, 40, StyleNoTTY)
	if got != want {
		t.Fatalf("restart: got %q want %q", got, want)
	}
}

func TestMarkdownSanitizesInput(t *testing.T) {
	md := NewMarkdown()
	in := "Hello \x1b]52;c;cm0gLXJmIH4=\x07world \x1b[2J\x1b]0;title\x07\u009b6n\n"
	for _, style := range []Style{StyleNoTTY, StyleDark} {
		out, err := md.Render(in, 60, style)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"\x1b]52", "\x1b[2J", "\x1b]0;", "\u009b", "cm0gLXJmIH4"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: output holds %q: %q", style, bad, out)
			}
		}
		if !strings.Contains(out, "Hello") || !strings.Contains(out, "world") {
			t.Errorf("%s: text lost: %q", style, out)
		}
	}
	st := md.NewStream(60, StyleDark)
	out, _ := st.Render(in)
	if strings.Contains(out, "\x1b]52") {
		t.Errorf("stream output holds OSC 52: %q", out)
	}
}

func TestNoTTYHasNoEscapes(t *testing.T) {
	out, err := NewMarkdown().Render(readAnswer(t), 60, StyleNoTTY)
	if err != nil {
		t.Fatal(err)
	}
	if i := strings.IndexByte(out, 0x1b); i >= 0 {
		t.Fatalf("notty output holds an escape at %d: %q", i, out[max(0, i-20):min(len(out), i+20)])
	}
}

func TestDetectStyle(t *testing.T) {
	env := func(m map[string]string) func(string) string {
		return func(k string) string { return m[k] }
	}
	if s := DetectStyle(env(map[string]string{"NO_COLOR": "1"}), true); s != StyleNoColor {
		t.Errorf("NO_COLOR: got %s", s)
	}
	if s := DetectStyle(env(map[string]string{"TERM": "dumb"}), true); s != StyleNoTTY {
		t.Errorf("TERM=dumb: got %s", s)
	}
	if s := DetectStyle(env(nil), true); s != StyleDark {
		t.Errorf("dark: got %s", s)
	}
	if s := DetectStyle(env(nil), false); s != StyleLight {
		t.Errorf("light: got %s", s)
	}
}

func TestMarkdownGolden(t *testing.T) {
	doc := readAnswer(t)
	md := NewMarkdown()
	for _, style := range []Style{StyleDark, StyleLight, StyleNoColor, StyleNoTTY} {
		t.Run(string(style), func(t *testing.T) {
			out, err := md.Render(doc, 72, style)
			if err != nil {
				t.Fatal(err)
			}
			golden.RequireEqual(t, out)
		})
	}
}

func BenchmarkStreamVsFull(b *testing.B) {
	base := readAnswer(b)
	doc := strings.Repeat(base, 20000/len(base)+1)[:20000]
	const updates = 200
	cuts := make([]int, updates)
	for i := range cuts {
		cuts[i] = len(doc) * (i + 1) / updates
	}
	b.Run("stream", func(b *testing.B) {
		for b.Loop() {
			st := NewMarkdown().NewStream(80, StyleDark)
			for _, c := range cuts {
				if _, err := st.Render(doc[:c]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			md := NewMarkdown()
			for _, c := range cuts {
				if _, err := md.Render(doc[:c], 80, StyleDark); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// FuzzStream looks for Markdown whose streamed rendering differs from a
// full render. Run: go test ./render -run XXX -fuzz FuzzStream
func FuzzStream(f *testing.F) {
	f.Add(readAnswer(f), 13)
	f.Add("# a\n\nb\n\n- c\n\nd\n", 3)
	f.Add("1. a\n\n2. b\n\nc\n", 2)
	f.Add("```\nx\n\ny\n```\n\nz\n", 5)
	f.Add("> q\n\n> r\n\ns\n", 4)
	f.Fuzz(func(t *testing.T, doc string, step int) {
		if len(doc) > 2000 {
			return
		}
		step = 1 + abs(step)%50
		md, full := NewMarkdown(), NewMarkdown()
		st := md.NewStream(40, StyleNoTTY)
		for k := 0; k <= len(doc); k += step {
			got, err1 := st.Render(doc[:k])
			want, err2 := full.Render(doc[:k], 40, StyleNoTTY)
			if (err1 == nil) != (err2 == nil) {
				t.Fatalf("errors differ: %v / %v", err1, err2)
			}
			if got != want {
				t.Fatalf("cut %d of %q:\n got %q\nwant %q", k, doc, got, want)
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestRenderedEscapesAreOnlySGR checks that glamour adds nothing but colour
// and weight: no OSC 8 links, no cursor movement.
func TestRenderedEscapesAreOnlySGR(t *testing.T) {
	doc := readAnswer(t) + "\n[click](https://example.com/\x1b]52;c;AAAA\x07)\n"
	md := NewMarkdown()
	for _, style := range []Style{StyleDark, StyleLight, StyleNoTTY, StyleASCII} {
		out, err := md.Render(doc, 60, style)
		if err != nil {
			t.Fatal(err)
		}
		assertClean(t, strings.ReplaceAll(stripSGR(out), "\n", ""), true)
		if !strings.Contains(stripSGR(out), "https://example.com/") {
			t.Errorf("%s: the link's URL is not visible", style)
		}
		st := md.NewStream(60, style)
		got, _ := st.Render(doc)
		if got != out {
			t.Errorf("%s: stream differs from full render", style)
		}
	}
}

func TestRendererCacheIsBounded(t *testing.T) {
	md := NewMarkdown()
	for w := 20; w < 60; w++ {
		if _, err := md.Render("hello", w, StyleNoTTY); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(md.renderers); n > maxRenderers {
		t.Fatalf("%d renderers cached", n)
	}
	a, _ := md.renderer(80, StyleDark)
	b, _ := md.renderer(80, StyleDark)
	if a != b {
		t.Fatal("renderer not reused for the same width and style")
	}
}

func TestHeadingsWithoutMarkup(t *testing.T) {
	md := NewMarkdown()
	for _, st := range []Style{StyleDark, StyleLight} {
		out, err := md.Render("# Report\n\n## Variance\n\n### By region\n\ntext", 60, st)
		if err != nil {
			t.Fatal(err)
		}
		plain := ansi.Strip(out)
		for _, h := range []string{"Report", "Variance", "By region"} {
			if !strings.Contains(plain, h) {
				t.Errorf("%s: heading %q missing:\n%s", st, h, plain)
			}
		}
		if strings.Contains(plain, "#") {
			t.Errorf("%s: heading markup shown:\n%s", st, plain)
		}
		if !strings.Contains(out, "\x1b[1;") && !strings.Contains(out, ";1m") && !strings.Contains(out, "[1m") {
			t.Errorf("%s: headings are not bold:\n%q", st, out)
		}
	}
}

// Without colour, bold, italics and headings are shown as emphasis, never
// as their raw markup, while lists and tables still render.
func TestNoColorRendersEmphasis(t *testing.T) {
	doc := "## Regional revenue, Q1 to Q2\n\n**Budget Q2 against Q1** is *up*.\n\n- North\n- South\n\n| region | q2 |\n|---|---|\n| North | 90 |\n"
	out, err := NewMarkdown().Render(doc, 60, StyleNoColor)
	if err != nil {
		t.Fatal(err)
	}
	plain := ansi.Strip(out)
	for _, raw := range []string{"**", "##", "*up*"} {
		if strings.Contains(plain, raw) {
			t.Errorf("raw markup %q in:\n%s", raw, plain)
		}
	}
	for _, want := range []string{"Regional revenue, Q1 to Q2", "Budget Q2 against Q1", "• North", "North  | 90", "\x1b[1m"} {
		if !strings.Contains(out, want) && !strings.Contains(plain, want) {
			t.Errorf("want %q in:\n%q", want, out)
		}
	}
	if regexp.MustCompile(`\x1b\[[0-9;]*3[0-8][;m]`).MatchString(out) {
		t.Errorf("a colour in the NO_COLOR rendering:\n%q", out)
	}
}

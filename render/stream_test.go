package render

import (
	"math/rand/v2"
	"strings"
	"testing"
)

var blockPieces = []string{
	"# Heading", "## Sub heading", "Plain paragraph text\nover two lines.", "- item one\n- item two",
	"1. first\n2. second", "7. seventh", "  indented continuation", "```python\nx = 1\n\ny = 2\n```",
	"> quoted\n> text", "| a | b |\n|---|--:|\n| 1 | 2 |", "***", "---", "Term\n: definition",
	"[ref]: https://example.com", "Text with a [ref] link and [inline](https://example.com/x).",
	"<div>html</div>", "    indented code", "2024 was a year.", "~~~\ntilde\n\nfence\n~~~",
	"Setext heading\n===", "- [ ] task\n- [x] done", "*emphasis* first", "+ plus item",
	"**bold** and `code`", "<!--\ncomment\n\nstill comment\n-->", "<pre>\na\n\nb\n</pre>", "1) paren item", "- nested\n  - deeper\n    - deepest", "東京 wide text ✓",
}

// TestStreamRandomDocuments builds documents from typical blocks joined by
// one, two or three newlines and checks the streamed rendering against a
// full render at many cuts.
func TestStreamRandomDocuments(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	docs := 60
	if testing.Short() {
		docs = 10
	}
	for d := 0; d < docs; d++ {
		var b strings.Builder
		for n := 2 + rng.IntN(8); n > 0; n-- {
			b.WriteString(blockPieces[rng.IntN(len(blockPieces))])
			b.WriteString(strings.Repeat("\n", 1+rng.IntN(3)))
		}
		doc := b.String()
		md, full := NewMarkdown(), NewMarkdown()
		st := md.NewStream(50, StyleDark)
		for k := 0; k <= len(doc); k += 1 + rng.IntN(9) {
			got, err := st.Render(doc[:k])
			if err != nil {
				t.Fatal(err)
			}
			want, _ := full.Render(doc[:k], 50, StyleDark)
			if got != want {
				t.Fatalf("doc %d cut %d differs:\n%s\n---\n got %q\nwant %q", d, k, doc[:k], got, want)
			}
		}
		if st.fallbacks > 0 {
			t.Errorf("doc %d: %d fallbacks to a full render:\n%s", d, st.fallbacks, doc)
		}
	}
}

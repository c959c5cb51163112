package cli

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateContents = flag.Bool("update-contents", false, "rewrite the contents lists of docs/*.md")

// Every doc opens with a contents list of its sections (and, under each,
// its subsections), made from its headings; go test ./cli -run
// TestDocsContents -update-contents rewrites them.
func TestDocsContents(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if len(files) == 0 {
		t.Fatal("no docs")
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		doc := string(b)
		want := contentsOf(doc)
		const open, close = "<!-- contents -->\n", "<!-- /contents -->\n"
		a, b2 := strings.Index(doc, open), strings.Index(doc, close)
		if *updateContents {
			if a >= 0 && b2 > a {
				doc = doc[:a] + doc[b2+len(close):]
			}
			title := strings.Index(doc, "\n") + 1
			doc = doc[:title] + "\n" + open + want + close + "\n" + strings.TrimLeft(doc[title:], "\n")
			os.WriteFile(p, []byte(doc), 0o644)
			continue
		}
		if a < 0 || b2 < a {
			t.Errorf("%s has no contents list (go test ./cli -run TestDocsContents -update-contents)", p)
			continue
		}
		if got := doc[a+len(open) : b2]; got != want {
			t.Errorf("%s: the contents list is not its headings (-update-contents):\n got %s\nwant %s", p, got, want)
		}
	}
}

var anchorDrop = regexp.MustCompile(`[^\p{L}\p{N}\- _]`)

// anchor is the id GitHub gives a heading.
func anchor(h string) string {
	return strings.ReplaceAll(anchorDrop.ReplaceAllString(strings.ToLower(strings.TrimSpace(h)), ""), " ", "-")
}

func contentsOf(doc string) string {
	var b strings.Builder
	fence, subs := false, []string{}
	flush := func() {
		if len(subs) > 0 {
			b.WriteString(": " + strings.Join(subs, " · "))
			subs = nil
		}
	}
	n := 0
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, "```") {
			fence = !fence
		}
		if fence {
			continue
		}
		link := func(h string) string { return "[" + strings.ReplaceAll(h, "`", "") + "](#" + anchor(h) + ")" }
		switch {
		case strings.HasPrefix(l, "## "):
			flush()
			if n > 0 {
				b.WriteString("\n")
			}
			n++
			b.WriteString("- " + link(l[3:]))
		case strings.HasPrefix(l, "### ") && n > 0:
			subs = append(subs, link(l[4:]))
		}
	}
	flush()
	return b.String() + "\n"
}

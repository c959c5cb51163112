package export

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/yuin/goldmark"

	"github.com/quarry-cli/quarry/session"
)

// An image in the model's Markdown is a request to a host the model chose
// (a prompt injected through the data can put the numbers in its URL): the
// HTML page shows it as text, and so do the Markdown report and the
// notebook's answer cells wherever a Markdown viewer or Jupyter renders
// them. Links stay links; code keeps its text.
func TestMarkdownAndNotebookFetchNoImage(t *testing.T) {
	answer := "Totals below.\n\n![tracker](http://127.0.0.1:9/pixel.png?q=270000)\n\n" +
		"![ref][r]\n\n\\![not an image](http://127.0.0.1:9/a)\n\n\\\\![after a backslash](http://127.0.0.1:9/b)\n\n" +
		"[r]: http://127.0.0.1:9/ref.png\n\n`![in code](x)`\n\n[a link](http://127.0.0.1:9/doc)\n"
	rec := tableRecord(t, nil, false)
	rec.Entries = append(rec.Entries, session.Entry{Kind: session.EntryAnswer, Text: answer})

	render := func(md string) string {
		var b bytes.Buffer
		if err := goldmark.New().Convert([]byte(md), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	check := func(what, md string) {
		t.Helper()
		html := render(md)
		if strings.Contains(html, "<img") {
			t.Errorf("%s renders an image:\n%s", what, html)
		}
		for _, want := range []string{"tracker", `<a href="http://127.0.0.1:9/doc">a link</a>`, "<code>![in code](x)</code>"} {
			if !strings.Contains(html, want) {
				t.Errorf("%s lost %q:\n%s", what, want, html)
			}
		}
	}
	var md bytes.Buffer
	if err := Render(&md, rec, Markdown); err != nil {
		t.Fatal(err)
	}
	check("the Markdown report", md.String())

	var nb bytes.Buffer
	if err := Render(&nb, rec, Notebook); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cells []struct {
			Source   string         `json:"source"`
			Metadata map[string]any `json:"metadata"`
		} `json:"cells"`
	}
	json.Unmarshal(nb.Bytes(), &doc)
	found := false
	for _, c := range doc.Cells {
		if q, _ := c.Metadata["quarry"].(map[string]any); q != nil && q["role"] == "answer" {
			check("the notebook's answer cell", c.Source)
			found = true
		}
	}
	if !found {
		t.Fatal("the notebook has no answer cell")
	}
}

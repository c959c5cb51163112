package export

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/yuin/goldmark"

	"github.com/quarry-cli/quarry/ground"
)

// An answer's numbers as the session checked them: the HTML report wraps
// each in a span whose class says grounded or unverified and whose title
// names the grounding cell, an unverified one ⟦in brackets⟧ as the chat
// draws it; Markdown and notebooks bracket each unverified one and give it
// a footnote.

// numberSpan is a claim found in the answer as the export has it (cleaned
// of terminal escapes, which leaves an ordinary answer as it was).
type numberSpan struct {
	start, end int
	claim      ground.Claim
}

// locate finds each claim at its offsets, or else at its text after the
// previous one.
func locate(answer string, cs []ground.Claim) []numberSpan {
	var out []numberSpan
	at := 0
	for _, c := range cs {
		if c.Text == "" {
			continue
		}
		s, e := c.Start, c.End
		if s < at || e > len(answer) || s >= e || answer[s:e] != c.Text {
			k := strings.Index(answer[at:], c.Text)
			if k < 0 {
				continue
			}
			s, e = at+k, at+k+len(c.Text)
		}
		out = append(out, numberSpan{s, e, c})
		at = e
	}
	return out
}

// numberTitle says where a number comes from, for a tooltip or a footnote.
func numberTitle(c ground.Claim) string {
	switch {
	case !c.Grounded:
		return "unverified: in no cell's output"
	case c.Cell != nil && c.Source != nil:
		return fmt.Sprintf("grounded: cell %d · %s", *c.Cell, clean1(*c.Source))
	case c.Source != nil:
		return "grounded: " + clean1(*c.Source)
	}
	return "grounded"
}

// Private-use runes bracket each number through goldmark; the model's own
// are dropped first.
const (
	numOpen  = '\ue000'
	numClose = '\ue001'
)

var dropMarks = strings.NewReplacer(string(numOpen), "", string(numClose), "")

// answerHTML renders an answer with its numbers marked, and a line under it
// listing the unverified ones.
func answerHTML(md goldmark.Markdown, answer string, cs []ground.Claim) template.HTML {
	spans := locate(answer, cs)
	if len(spans) == 0 {
		return markdownHTML(md, answer)
	}
	var src strings.Builder
	at := 0
	for _, s := range spans {
		src.WriteString(dropMarks.Replace(answer[at:s.start]))
		src.WriteRune(numOpen)
		src.WriteString(dropMarks.Replace(answer[s.start:s.end]))
		src.WriteRune(numClose)
		at = s.end
	}
	src.WriteString(dropMarks.Replace(answer[at:]))
	out := string(markdownHTML(md, src.String()))

	// The k-th bracket in the HTML is the k-th number: goldmark keeps text
	// in order. One that lands inside a tag (a link's title) is dropped.
	var b strings.Builder
	k, inTag := 0, false
	var unverified []string
	for _, r := range out {
		switch {
		case r == '<':
			inTag = true
		case r == '>':
			inTag = false
		}
		switch r {
		case numOpen:
			if inTag || k >= len(spans) {
				continue
			}
			c := spans[k].claim
			class := "number grounded"
			if !c.Grounded {
				class = "number unverified"
			}
			fmt.Fprintf(&b, `<span class="%s" title="%s">`, class, esc(numberTitle(c)))
			if !c.Grounded {
				b.WriteString(`<span class="unverified-mark">` + ground.UnverifiedOpen + `</span>`)
			}
		case numClose:
			if inTag || k >= len(spans) {
				continue
			}
			if c := spans[k].claim; !c.Grounded {
				b.WriteString(`<span class="unverified-mark">` + ground.UnverifiedClose + `</span>`)
				unverified = append(unverified, esc(clean1(c.Text)))
			}
			b.WriteString("</span>")
			k++
		default:
			b.WriteRune(r)
		}
	}
	if len(unverified) > 0 {
		fmt.Fprintf(&b, `<p class="unverified-list">%s%s</p>`, unverifiedLegend, strings.Join(unverified, ", "))
	}
	return template.HTML(b.String())
}

// footnoted is an answer with a footnote after each unverified number and
// the notes at its end; turn makes the labels unique in the document.
func footnoted(answer string, cs []ground.Claim, turn int) string {
	var b, notes strings.Builder
	at, n := 0, 0
	for _, s := range locate(answer, cs) {
		if s.claim.Grounded {
			continue
		}
		n++
		label := fmt.Sprintf("[^q%d-%d]", turn, n)
		b.WriteString(answer[at:s.start] + ground.UnverifiedOpen + answer[s.start:s.end] + ground.UnverifiedClose + label)
		fmt.Fprintf(&notes, "%s: %s%s%s is unverified: it is in no cell's output.\n", label, ground.UnverifiedOpen, clean1(s.claim.Text), ground.UnverifiedClose)
		at = s.end
	}
	if n == 0 {
		return answer
	}
	b.WriteString(answer[at:])
	return strings.TrimRight(b.String(), "\n") + "\n\n" + notes.String()
}

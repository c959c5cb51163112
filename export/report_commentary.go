package export

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/quarry-cli/quarry/ground"
)

// The commentary of the workbook and the PDF is the answer's Markdown laid
// out as blocks of text runs (bold, italic, code), each number the session
// checked a run of its own, marked when it is unverified: the builder lays
// runs out and never reads Markdown.

// block is a heading (h), a paragraph (p), a list item (li, its bullet in
// the text), a table row (row) or preformatted text (pre).
type block struct {
	Style string `json:"style"`
	Runs  []run  `json:"runs"`
}

type run struct {
	T    string `json:"t"`
	B    bool   `json:"b,omitempty"`
	I    bool   `json:"i,omitempty"`
	Mono bool   `json:"mono,omitempty"`
	Mark string `json:"mark,omitempty"` // unverified, grounded
}

// unverifiedLegend is the line under an answer naming its unverified
// numbers, in every format.
const unverifiedLegend = ground.UnverifiedOpen + ground.UnverifiedClose + " Unverified, in no cell's output: "

// Each number is bracketed in the Markdown by numOpen, its index as one
// rune of the supplementary private-use plane, the number, numClose; the
// index keeps each number its own claim wherever goldmark puts the text.
const numIndex = 0xF0000

// commentary lays out an answer with its checked numbers.
func commentary(answer string, cs []ground.Claim) []block {
	spans := locate(answer, cs)
	var src strings.Builder
	at := 0
	for k, s := range spans {
		src.WriteString(dropMarks.Replace(answer[at:s.start]))
		src.WriteRune(numOpen)
		src.WriteRune(rune(numIndex + k))
		src.WriteString(dropMarks.Replace(answer[s.start:s.end]))
		src.WriteRune(numClose)
		at = s.end
	}
	src.WriteString(dropMarks.Replace(answer[at:]))
	source := []byte(src.String())
	md := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))
	root := md.Parser().Parse(text.NewReader(source))
	w := &blockWriter{src: source, spans: spans}
	w.blocks(root, "")
	return w.out
}

type blockWriter struct {
	src   []byte
	spans []numberSpan
	out   []block
}

func (w *blockWriter) blocks(n ast.Node, bullet string) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Heading:
			w.add("h", w.inline(c, run{B: true}))
		case *ast.Paragraph, *ast.TextBlock:
			runs := w.inline(c, run{})
			if bullet != "" {
				runs = append([]run{{T: bullet}}, runs...)
				bullet = "" // a second paragraph of an item is indented text
			}
			w.add("p", runs)
		case *ast.List:
			i := c.Start
			for item := c.FirstChild(); item != nil; item = item.NextSibling() {
				mark := "• "
				if c.IsOrdered() {
					mark = strconv.Itoa(i) + ". "
					i++
				}
				before := len(w.out)
				w.blocks(item, mark)
				if len(w.out) > before && w.out[before].Style == "p" {
					w.out[before].Style = "li"
				}
			}
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			var b bytes.Buffer
			lines := c.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				b.Write(seg.Value(w.src))
			}
			w.add("pre", []run{{T: dropAll(strings.TrimRight(b.String(), "\n")), Mono: true}})
		case *east.Table:
			for row := c.FirstChild(); row != nil; row = row.NextSibling() {
				_, head := row.(*east.TableHeader)
				var runs []run
				for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
					if len(runs) > 0 {
						runs = append(runs, run{T: "  |  "})
					}
					runs = append(runs, w.inline(cell, run{B: head})...)
				}
				w.add("row", runs)
			}
		case *ast.ThematicBreak, *ast.HTMLBlock:
		default:
			w.blocks(c, bullet)
		}
	}
}

func (w *blockWriter) add(style string, runs []run) {
	if len(runs) > 0 {
		w.out = append(w.out, block{Style: style, Runs: runs})
	}
}

// inline is the text of n's inline children as runs in the style given,
// the numbers split out.
func (w *blockWriter) inline(n ast.Node, style run) []run {
	var out []run
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			out = append(out, w.split(string(c.Segment.Value(w.src)), style)...)
			if c.SoftLineBreak() || c.HardLineBreak() {
				out = append(out, run{T: " ", B: style.B, I: style.I})
			}
		case *ast.String:
			out = append(out, w.split(string(c.Value), style)...)
		case *ast.CodeSpan:
			s := style
			s.Mono = true
			out = append(out, run{T: dropAll(string(c.Text(w.src))), B: s.B, I: s.I, Mono: true})
		case *ast.Emphasis:
			s := style
			if c.Level >= 2 {
				s.B = true
			} else {
				s.I = true
			}
			out = append(out, w.inline(c, s)...)
		case *ast.AutoLink:
			out = append(out, run{T: dropAll(string(c.URL(w.src))), B: style.B, I: style.I})
		case *ast.Image:
			out = append(out, run{T: "[image: " + dropAll(string(c.Text(w.src))) + "]", I: true})
		case *ast.RawHTML:
		default:
			out = append(out, w.inline(c, style)...)
		}
	}
	return out
}

// split cuts text at the number brackets: each number a run marked as
// the session checked it.
func (w *blockWriter) split(s string, style run) []run {
	var out []run
	plain := func(t string) {
		if t != "" {
			r := style
			r.T = t
			out = append(out, r)
		}
	}
	for {
		i := strings.IndexRune(s, numOpen)
		if i < 0 {
			plain(dropAll(s))
			return out
		}
		plain(dropAll(s[:i]))
		rest := s[i+len(string(numOpen)):]
		j := strings.IndexRune(rest, numClose)
		if j < 0 {
			plain(dropAll(rest))
			return out
		}
		num := rest[:j]
		s = rest[j+len(string(numClose)):]
		k := -1
		if r := []rune(num); len(r) > 0 && r[0] >= numIndex {
			k, num = int(r[0]-numIndex), string(r[1:])
		}
		r := style
		r.T = dropAll(num)
		if k >= 0 && k < len(w.spans) {
			r.Mark = "grounded"
			if !w.spans[k].claim.Grounded {
				r.Mark, r.T = "unverified", ground.UnverifiedOpen+r.T+ground.UnverifiedClose // as the chat brackets it
			}
		}
		if r.T != "" {
			out = append(out, r)
		}
	}
}

// dropAll removes the brackets and the indexes from text that is not a
// number's.
func dropAll(s string) string {
	if !strings.ContainsFunc(s, isBracketRune) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isBracketRune(r) {
			return -1
		}
		return r
	}, s)
}

func isBracketRune(r rune) bool {
	return r == numOpen || r == numClose || r >= numIndex && r <= 0xFFFFD
}

// unverifiedNumbers are the answer's unverified numbers, for the legend.
func unverifiedNumbers(cs []ground.Claim) []string {
	var out []string
	for _, c := range cs {
		if !c.Grounded && c.Text != "" {
			out = append(out, clean1(c.Text))
		}
	}
	return out
}

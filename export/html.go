package export

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/session"
)

// The HTML report is one file that opens offline: figures are embedded as
// data: URIs, styles are inline, and nothing else is referenced. The
// Content-Security-Policy is the first thing in <head>: even if some text
// slipped through as markup, the browser would run no script, load no
// image but the embedded ones and send no request.
const contentPolicy = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

//go:embed report.html.tmpl
var reportTemplate string

var reportHTML = template.Must(template.New("report").Parse(reportTemplate))

type htmlPage struct {
	Policy  string
	Title   string
	Session template.HTML
	Inputs  []string
	Report  *htmlReport // report_html.go
	Turns   []htmlTurn
}

type htmlTurn struct {
	N        int
	Question string
	Cells    []htmlCell
	Answer   template.HTML
	Error    string
}

type htmlCell struct {
	Title   string
	Failed  bool
	Code    string
	Output  string
	Table   template.HTML
	Value   string
	Error   string
	Figures []htmlFigure
	Files   string
}

type htmlFigure struct {
	Src     template.URL // a data:image/png URI of bytes checked by kernel.CheckPNG
	Alt     string
	Missing string
}

func writeHTML(w io.Writer, d *doc) error {
	md := newHTMLMarkdown()
	p := htmlPage{Policy: contentPolicy, Title: d.title, Session: markdownHTML(md, sessionLine(d))}
	for _, in := range d.inputs {
		p.Inputs = append(p.Inputs, inputText(in))
	}
	p.Report = htmlReportOf(d, md)
	for i, t := range d.turns {
		ht := htmlTurn{N: i + 1, Question: t.Question, Error: t.Error}
		for _, c := range t.Cells {
			ht.Cells = append(ht.Cells, htmlCellOf(d, c))
		}
		if t.Answer != "" {
			ht.Answer = answerHTML(md, demoteHeadings(t.Answer, answerTop), t.Numbers)
		}
		p.Turns = append(p.Turns, ht)
	}
	var buf bytes.Buffer
	if err := reportHTML.Execute(&buf, p); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func htmlCellOf(d *doc, c session.Cell) htmlCell {
	r := c.Result
	hc := htmlCell{Title: cellTitle(c), Failed: c.Status != session.CellOK, Code: c.Code,
		Output: strings.TrimRight(r.Stdout+r.Stderr, "\n")}
	if v := r.Value; v != nil && r.Error == nil {
		if v.Table != nil {
			hc.Table = template.HTML(tableHTML(v.Table, d.grid(v.Table))) // every cell escaped by tableHTML
		} else {
			hc.Value = v.Repr
		}
	}
	if r.Error != nil {
		hc.Error = errorText(r.Error)
	}
	for i, f := range r.Figures {
		fig := htmlFigure{Alt: fmt.Sprintf("cell %d, figure %d", c.Num, i+1)}
		if data, err := kernel.ReadPNG(f.Path); err == nil {
			fig.Src = template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(data))
		} else {
			fig.Missing = fmt.Sprintf("figure %s is missing from the session folder", f.Name)
		}
		hc.Figures = append(hc.Figures, fig)
	}
	var files []string
	for _, f := range r.Files {
		files = append(files, fmt.Sprintf("%s (%s)", f.Name, kernel.FormatSize(f.Size)))
	}
	hc.Files = strings.Join(files, ", ")
	return hc
}

// inputText is an input's line, plain (the template escapes it).
func inputText(in session.Input) string {
	s := in.Name
	if in.Path != "" && in.Path != in.Name {
		s += " — " + in.Path
	}
	if in.Size > 0 {
		s += ", " + kernel.FormatSize(in.Size)
	}
	if in.SHA256 != "" {
		s += ", sha256 " + in.SHA256
	}
	for _, c := range in.Changes {
		s += "; " + c
	}
	return s
}

// newHTMLMarkdown renders the model's Markdown: GitHub tables and lists,
// raw HTML left out (goldmark's default), dangerous link schemes dropped,
// and images shown as their text, never fetched.
func newHTMLMarkdown() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(imageAsText{}, 100))),
	)
}

func markdownHTML(md goldmark.Markdown, src string) template.HTML {
	var b bytes.Buffer
	if err := md.Convert([]byte(src), &b); err != nil {
		return template.HTML("<pre>" + esc(src) + "</pre>")
	}
	return template.HTML(b.String()) // goldmark escapes text and omits raw HTML
}

// imageAsText renders ![alt](url) as "[image: alt]" with the address as
// text: an answer's image would be a request to a host the model chose.
type imageAsText struct{}

func (imageAsText) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindImage, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		img := n.(*ast.Image)
		var alt bytes.Buffer
		for c := img.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				alt.Write(t.Segment.Value(src))
			}
		}
		fmt.Fprintf(w, `<span class="image">[image: %s — %s, not loaded]</span>`, esc(alt.String()), esc(string(img.Destination)))
		return ast.WalkSkipChildren, nil
	})
}

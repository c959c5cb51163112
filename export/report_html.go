package export

import (
	"encoding/base64"
	"html/template"
	"strings"

	"github.com/yuin/goldmark"

	"github.com/quarry-cli/quarry/kernel"
)

// The HTML page opens with the report, laid out as the workbook's Summary
// and the PDF are: the variance table (better and worse in colour and in
// words), the bridge chart, the key figures, the commentary with its
// unverified numbers marked, and the sources; the session follows.

type htmlReport struct {
	Title      string
	Subtitle   string
	Highlights []string
	Head       []htmlHead
	Labels     int
	Lines      []htmlLine
	LeftOut    string
	Said       []string
	Chart      template.URL
	Commentary template.HTML
	Notes      []string
	Databases  []string
	Analyses   []htmlAnalysis // against forecast and prior year; why it moved: explain(), pvm(), FX
}

// htmlAnalysis is an analysis's section: its largest rows as the PDF
// prints them (report_analyses.go).
type htmlAnalysis struct {
	Title   string
	Head    []htmlHead
	Rows    [][]htmlAmount
	LeftOut string
	Notes   []string
}

type htmlHead struct {
	Text string
	Num  bool
}

type htmlLine struct {
	Labels   []string
	Kind     string
	Amounts  [4]htmlAmount // actual, budget, variance, variance %
	Effect   string
	Fill     string // better, worse or none: the class of the variance's cells
	Material bool
	Total    bool
}

type htmlAmount struct {
	Text     string
	Negative bool
}

// htmlReportOf is the report's section, or nil when the session has
// neither a variance table nor an answer.
func htmlReportOf(d *doc, md goldmark.Markdown) *htmlReport {
	r := d.report()
	if r.variance == nil {
		return nil
	}
	v := r.variance
	h := &htmlReport{Title: reportTitle(r), Subtitle: reportSubtitle(r), Labels: len(v.Labels)}
	for _, b := range highlights(v) {
		h.Highlights = append(h.Highlights, strings.TrimPrefix(runsText(b.Runs), "• "))
	}
	for _, l := range v.Labels {
		h.Head = append(h.Head, htmlHead{Text: clean1(l)})
	}
	cur := ""
	if v.Currency != "" {
		cur = " (" + clean1(v.Currency) + ")"
	}
	for _, c := range []string{"Kind", "Actual" + cur, "Budget" + cur, "Variance" + cur, "Variance %", "Effect", "Material"} {
		h.Head = append(h.Head, htmlHead{Text: c, Num: strings.HasPrefix(c, "Actual") || strings.HasPrefix(c, "Budget") || strings.HasPrefix(c, "Variance")})
	}
	lines := v.Lines
	if keep, left := printedLines(lines, "this page"); keep != nil {
		h.LeftOut, lines = left, nil
		for _, i := range keep {
			lines = append(lines, v.Lines[i])
		}
	}
	for _, ln := range lines {
		hl := htmlLine{Kind: clean1(ln.Kind), Effect: clean1(ln.Effect), Material: ln.Material, Total: ln.Total}
		if ln.Effect == "better" || ln.Effect == "worse" {
			hl.Fill = ln.Effect
		}
		for _, l := range ln.Label {
			hl.Labels = append(hl.Labels, clean1(l))
		}
		for len(hl.Labels) < h.Labels {
			hl.Labels = append([]string{""}, hl.Labels...)
		}
		hl.Amounts = [4]htmlAmount{{moneyText(ln.Actual), negative(ln.Actual)}, {moneyText(ln.Budget), negative(ln.Budget)},
			{moneyText(ln.Variance), negative(ln.Variance)}, {pctText(ln.Pct), strings.HasPrefix(pctText(ln.Pct), "(")}}
		h.Lines = append(h.Lines, hl)
	}
	h.Said = said(r)
	if r.chart != "" {
		if data, err := kernel.ReadPNG(r.chart); err == nil {
			h.Chart = template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(data))
		}
	}
	if r.turn != nil && r.turn.Answer != "" {
		h.Commentary = answerHTML(md, demoteHeadings(r.turn.Answer, answerTop), r.turn.Numbers)
	} else if blocks, _ := reportCommentary(d, r); len(blocks) > 0 {
		h.Commentary = template.HTML("<p><em>" + esc(runsText(blocks[0].Runs)) + "</em></p>")
	}
	for _, n := range v.Notes {
		h.Notes = append(h.Notes, clean1(n))
	}
	for _, s := range d.sources {
		h.Databases = append(h.Databases, s.Name+" — "+s.Where)
	}
	if c := comparisonsHTML(v, lines); c != nil {
		h.Analyses = append(h.Analyses, *c)
	}
	for _, a := range specAnalyses(d.analysesOf(r)) {
		ha := htmlAnalysis{Title: a.Title, LeftOut: a.LeftOut, Notes: a.Notes}
		for _, j := range a.Printed {
			ha.Head = append(ha.Head, htmlHead{Text: strings.ReplaceAll(a.Columns[j], "_", " "), Num: a.Numeric[j]})
		}
		for _, r := range a.Text {
			var row []htmlAmount
			for _, t := range r {
				row = append(row, htmlAmount{Text: t, Negative: strings.HasPrefix(t, "(")})
			}
			ha.Rows = append(ha.Rows, row)
		}
		h.Analyses = append(h.Analyses, ha)
	}
	return h
}

func runsText(rs []run) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.T)
	}
	return b.String()
}

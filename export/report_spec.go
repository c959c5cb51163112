package export

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/session"
)

// The report's content, chosen from the record: the session's last
// variance() table, the bridge drawn from it, the answer that commented
// on it, the tables the cells saved, the inputs and the code. The HTML page
// lays it out itself; the workbook and the PDF get it as the spec, JSON the
// builder reads in the sandbox.

// reportData is what a report shows.
type reportData struct {
	variance *kernel.Variance
	vcell    int            // the cell that made it
	bridge   *kernel.Bridge // drawn in that cell or a later one
	chart    string         // the bridge's figure in the session folder; "" for none
	turn     *session.Turn  // the turn whose answer is the commentary
	notes    []string       // what the kernel could not carry
}

// report chooses the report's content from the session's turns.
func (d *doc) report() reportData {
	var r reportData
	for i := range d.turns {
		t := &d.turns[i]
		for _, c := range t.Cells {
			rep := c.Result.Report
			if rep == nil || c.Status != session.CellOK {
				continue
			}
			if rep.Variance != nil {
				r.variance, r.vcell, r.turn = rep.Variance, c.Num, t
				r.bridge, r.chart, r.notes = nil, "", nil
			}
			if rep.Bridge != nil && r.variance != nil {
				r.bridge, r.chart = rep.Bridge, figurePath(c.Result.Figures, rep.Bridge.File)
			}
			for _, n := range rep.Notes {
				r.notes = append(r.notes, clean1(n))
			}
		}
	}
	if r.turn == nil || r.turn.Answer == "" {
		for i := len(d.turns) - 1; i >= 0; i-- {
			if d.turns[i].Answer != "" {
				r.turn = &d.turns[i]
				break
			}
		}
	}
	return r
}

func figurePath(figs []kernel.File, name string) string {
	if name == "" {
		return ""
	}
	for _, f := range figs {
		if f.Name == name && f.Path != "" {
			if _, err := kernel.ReadPNG(f.Path); err == nil {
				return f.Path
			}
		}
	}
	return ""
}

// reportSpec is the builder's input (export/reportpy/report_main.py).
type reportSpec struct {
	Formats       []string          `json:"formats"`
	Names         map[string]string `json:"names"`
	Title         string            `json:"title"`
	Subtitle      string            `json:"subtitle"`
	Question      string            `json:"question,omitempty"`
	Model         string            `json:"model,omitempty"`
	Date          string            `json:"date,omitempty"`
	Session       string            `json:"session"`
	RerunOf       string            `json:"rerun_of,omitempty"`
	Generated     string            `json:"generated"`
	Paper         string            `json:"paper"`
	Currency      string            `json:"currency,omitempty"`
	NumberFormats map[string]string `json:"number_formats"`
	Variance      *specVariance     `json:"variance"`
	NoVariance    string            `json:"no_variance,omitempty"`
	Chart         *specChart        `json:"chart"`
	Highlights    []block           `json:"highlights"`
	Commentary    []block           `json:"commentary"`
	Legend        string            `json:"unverified_legend,omitempty"`
	Analyses      []specAnalysis    `json:"analyses"`
	Tables        []specTable       `json:"tables"`
	Sources       specSources       `json:"sources"`
	Code          []specCode        `json:"code"`
}

type specVariance struct {
	Labels []string   `json:"labels"`
	Lines  []specLine `json:"lines"`
	Notes  []string   `json:"notes"`
	Said   []string   `json:"said,omitempty"` // what the table leaves out
	// Printed are the lines a printed table (the PDF) shows, by index,
	// when it cannot show them all, and LeftOut says so; nil: all.
	Printed []int  `json:"printed,omitempty"`
	LeftOut string `json:"left_out,omitempty"`
	// Comparisons are budget, forecast, prior: those the table has beyond
	// the budget, with their Titles; nil for the budget alone.
	Comparisons []string `json:"comparisons,omitempty"`
	Titles      []string `json:"titles,omitempty"`
}

// specLine is a line with its amounts as the report prints them (actual,
// budget, variance, variance %), for the PDF.
type specLine struct {
	kernel.VarianceLine
	Text [4]string `json:"text"`
	// CompText is each comparison's amount, variance and percent as
	// printed (report_comparisons.go).
	CompText map[string][3]string `json:"comp_text,omitempty"`
}

type specChart struct {
	File string `json:"file"`
	Cell int    `json:"cell"`
}

type specTable struct {
	File string `json:"file"` // its name under /data
	Name string `json:"name"` // as the cell saved it
	Cell int    `json:"cell"`
	Kind string `json:"kind"`
}

type specSources struct {
	Files     []specFile     `json:"files"`
	Databases []specDatabase `json:"databases"`
}

type specFile struct {
	Name     string   `json:"name"`
	Path     string   `json:"path"`
	Size     int64    `json:"size"`
	SizeText string   `json:"size_text"`
	SHA256   string   `json:"sha256"`
	Changes  []string `json:"changes"`
}

type specDatabase struct {
	Name  string `json:"name"`
	Where string `json:"where"`
}

type specCode struct {
	Cell     int    `json:"cell"`
	Question string `json:"question,omitempty"`
	Status   string `json:"status"`
	Code     string `json:"code"`
}

// tableKinds are the saved files the workbook gives a sheet, by extension:
// the readers of report_workbook.py's read_table.
var tableKinds = map[string]string{
	".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".feather": "feather", ".json": "json",
	".xlsx": "xlsx", ".xls": "xls", ".ods": "ods",
}

// maxTableFile is the largest saved file the workbook reads.
const maxTableFile = 1 << 30

// spec is the builder's input, and the host files it reads by their
// names under /data.
func (d *doc) spec(r reportData, formats []Format, paper string, now time.Time) (*reportSpec, map[string]string) {
	files := map[string]string{}
	s := &reportSpec{Names: map[string]string{}, Session: d.id, Model: d.model, RerunOf: d.source, Paper: paper,
		Generated:     now.UTC().Format("2006-01-02 15:04 UTC"),
		NumberFormats: map[string]string{"money": moneyFormat, "percent": percentFormat}}
	for _, f := range formats {
		s.Formats = append(s.Formats, string(f))
		s.Names[string(f)] = DefaultName(f)
	}
	if !d.started.IsZero() {
		s.Date = d.started.UTC().Format("2006-01-02 15:04 UTC")
	}
	if r.turn != nil {
		s.Question = r.turn.Question
	}
	s.Title, s.Subtitle = reportTitle(r), reportSubtitle(r)
	if v := r.variance; v != nil {
		s.Currency = v.Currency
		sv := &specVariance{Labels: v.Labels, Notes: v.Notes, Comparisons: knownComparisons(v.Comparisons)}
		for _, n := range sv.Comparisons {
			sv.Titles = append(sv.Titles, comparisonTitle(n))
		}
		for _, ln := range v.Lines {
			ln.Comparisons = lineComparisons(ln, sv.Comparisons)
			sv.Lines = append(sv.Lines, specLine{VarianceLine: ln, CompText: comparisonText(ln.Comparisons),
				Text: [4]string{moneyText(ln.Actual), moneyText(ln.Budget), moneyText(ln.Variance), pctText(ln.Pct)}})
		}
		sv.Said = said(r)
		sv.Printed, sv.LeftOut = printedLines(v.Lines, "this PDF")
		s.Variance = sv
		s.Highlights = highlights(v)
	} else {
		s.NoVariance = NoVariance
	}
	if r.chart != "" {
		files["chart.png"] = r.chart
		s.Chart = &specChart{File: "chart.png", Cell: r.vcell}
	}
	s.Commentary, s.Legend = reportCommentary(d, r)
	s.Analyses = specAnalyses(d.analysesOf(r))
	s.Tables = d.savedTables(files)
	for _, in := range d.inputs {
		s.Sources.Files = append(s.Sources.Files, specFile{Name: in.Name, Path: in.Path, Size: in.Size,
			SizeText: kernel.FormatSize(in.Size), SHA256: in.SHA256, Changes: in.Changes})
	}
	for _, src := range d.sources {
		s.Sources.Databases = append(s.Sources.Databases, specDatabase{Name: src.Name, Where: src.Where})
	}
	for _, t := range d.turns {
		for i, c := range t.Cells {
			sc := specCode{Cell: c.Num, Status: string(c.Status), Code: c.Code}
			if i == 0 {
				sc.Question = t.Question
			}
			s.Code = append(s.Code, sc)
		}
	}
	return s, files
}

// maxPrinted are the lines a printed table (the PDF, the HTML page)
// shows; beyond, the material ones and the Total, the largest variances
// when even those are more (every line is in the workbook).
const maxPrinted = 2000

// printedLines are the indexes of the lines a printed table shows, in the
// table's order, nil for all, and the sentence that says what it left
// out; where names it.
func printedLines(lines []kernel.VarianceLine, where string) ([]int, string) {
	if len(lines) <= maxPrinted {
		return nil, ""
	}
	var material, totals []int
	for i, ln := range lines {
		switch {
		case ln.Total:
			totals = append(totals, i)
		case ln.Material:
			material = append(material, i)
		}
	}
	room := max(0, maxPrinted-len(totals))
	shown := material
	if len(material) > room {
		shown = slices.Clone(material)
		slices.SortStableFunc(shown, func(a, b int) int {
			return cmp.Compare(math.Abs(lines[b].Variance), math.Abs(lines[a].Variance))
		})
		shown = shown[:room]
	}
	keep := append(slices.Clone(shown), totals...)
	slices.Sort(keep)
	which := fmt.Sprintf("the %s material ones", render.GroupInt(len(shown)))
	if len(shown) < len(material) {
		which = fmt.Sprintf("the %s largest of its %s material ones", render.GroupInt(len(shown)), render.GroupInt(len(material)))
	}
	return keep, fmt.Sprintf("The table has %s lines: %s lists %s and the Total; every line is in the workbook.",
		render.GroupInt(len(lines)), where, which)
}

// said is what the report's table leaves out, and what the kernel could
// not carry.
func said(r reportData) []string {
	var out []string
	if v := r.variance; v.Rows > len(v.Lines) {
		out = append(out, fmt.Sprintf("The table had %s lines; the session kept the first %s and the Total.",
			render.GroupInt(v.Rows), render.GroupInt(len(v.Lines)-1)))
	}
	return append(out, r.notes...)
}

func reportTitle(r reportData) string {
	if r.variance == nil {
		return "Report"
	}
	for _, t := range r.variance.Title {
		if t = strings.TrimSpace(t); t != "" {
			return "Variance report: " + t
		}
	}
	return "Variance report: actuals against budget"
}

func reportSubtitle(r reportData) string {
	v := r.variance
	if v == nil {
		return ""
	}
	var parts []string
	switch {
	case len(v.Periods) > 0 && v.Period != "":
		parts = append(parts, periodSpan(v.Periods)+" ("+v.Period+")")
	case len(v.Periods) > 0:
		parts = append(parts, periodSpan(v.Periods))
	}
	m := "material: " + strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.2f", v.MaterialPct), "0"), ".0") + "% of budget"
	if v.MaterialAbs != nil {
		m += " and " + moneyText(*v.MaterialAbs)
	}
	parts = append(parts, m, render.GroupInt(max(0, v.Rows-1))+" lines")
	return strings.Join(parts, " · ")
}

func periodSpan(ps []string) string {
	if len(ps) == 1 {
		return ps[0]
	}
	return ps[0] + " – " + ps[len(ps)-1]
}

// highlights are the key figures, from the table alone: every number in
// them is one of its cells.
func highlights(v *kernel.Variance) []block {
	var total *kernel.VarianceLine
	var lines []kernel.VarianceLine
	for i := range v.Lines {
		if v.Lines[i].Total {
			total = &v.Lines[i]
		} else {
			lines = append(lines, v.Lines[i])
		}
	}
	li := func(s string) block { return block{Style: "li", Runs: []run{{T: "• " + s}}} }
	var out []block
	if total != nil {
		what := map[string]string{"profit": "profit", "revenue": "revenue", "cost": "cost"}[v.BottomLine]
		if what == "" {
			what = "total"
		}
		eff := total.Effect
		if eff != "better" && eff != "worse" {
			eff = map[bool]string{true: "above budget", false: "below budget"}[total.Variance > 0]
			if total.Variance == 0 {
				eff = "on budget"
			}
		}
		line := fmt.Sprintf("Bottom line (%s): actual %s against budget %s: %s %s", what,
			moneyText(total.Actual), moneyText(total.Budget), moneyText(total.Variance), eff)
		if total.Pct != nil {
			line += ", " + pctText(total.Pct) + " of budget"
		}
		out = append(out, li(line+"."))
	}
	var material, better, worse int
	var worst, best *kernel.VarianceLine
	for i := range lines {
		ln := &lines[i]
		if !ln.Material {
			continue
		}
		material++
		switch ln.Effect {
		case "better":
			better++
			if best == nil || math.Abs(ln.Variance) > math.Abs(best.Variance) {
				best = ln
			}
		case "worse":
			worse++
			if worst == nil || math.Abs(ln.Variance) > math.Abs(worst.Variance) {
				worst = ln
			}
		}
	}
	out = append(out, li(fmt.Sprintf("Material lines: %s of %s (%s worse, %s better).", render.GroupInt(material),
		render.GroupInt(len(lines)), render.GroupInt(worse), render.GroupInt(better))))
	for _, x := range []struct {
		word string
		ln   *kernel.VarianceLine
	}{{"worse", worst}, {"better", best}} {
		if x.ln != nil {
			line := fmt.Sprintf("Largest %s: %s, %s", x.word, lineLabel(*x.ln), moneyText(x.ln.Variance))
			if x.ln.Pct != nil {
				line += ", " + pctText(x.ln.Pct) + " of budget"
			} else {
				line += ", with no budget"
			}
			out = append(out, li(line+"."))
		}
	}
	return out
}

// lineLabel is a line's labels as one: "4000 · Sales", cut for a sentence.
func lineLabel(ln kernel.VarianceLine) string {
	var parts []string
	for _, l := range ln.Label {
		if l = strings.TrimSpace(clean1(l)); l != "" {
			parts = append(parts, l)
		}
	}
	s := strings.Join(parts, " · ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}

// reportCommentary is the commented answer, or for a rerun (no model, so
// no answer) why there is none.
func reportCommentary(d *doc, r reportData) ([]block, string) {
	if r.turn == nil || r.turn.Answer == "" {
		if d.source != "" {
			return []block{{Style: "p", Runs: []run{{T: "This report is a rerun of " + d.source +
				" on new files, without a model: the table, the chart and the key figures are the new files'; " +
				"the commentary of the original session is left out, its numbers being those of the old files.", I: true}}}}, ""
		}
		return nil, ""
	}
	blocks := commentary(r.turn.Answer, r.turn.Numbers)
	legend := ""
	if un := unverifiedNumbers(r.turn.Numbers); len(un) > 0 {
		legend = unverifiedLegend + strings.Join(un, ", ")
	}
	return blocks, legend
}

// savedTables are the table files the cells saved, each once (its last
// version), named under /data as t1.csv, t2.parquet...
func (d *doc) savedTables(files map[string]string) []specTable {
	var order []string
	last := map[string]specTable{}
	paths := map[string]string{}
	for _, t := range d.turns {
		for _, c := range t.Cells {
			for _, f := range c.Result.Files {
				ext := strings.ToLower(filepath.Ext(f.Name))
				kind, ok := tableKinds[ext]
				if !ok || f.Path == "" {
					continue
				}
				if st, err := os.Stat(f.Path); err != nil || !st.Mode().IsRegular() || st.Size() > maxTableFile {
					continue
				}
				if _, seen := last[f.Name]; !seen {
					order = append(order, f.Name)
				}
				last[f.Name] = specTable{Name: f.Name, Cell: c.Num, Kind: kind}
				paths[f.Name] = f.Path
			}
		}
	}
	var out []specTable
	for i, name := range order {
		t := last[name]
		t.File = fmt.Sprintf("t%d%s", i+1, strings.ToLower(filepath.Ext(name)))
		files[t.File] = paths[name]
		out = append(out, t)
	}
	return out
}

package agent

import (
	"bytes"
	"embed"
	"fmt"
	"regexp"
	"strings"
	"text/template"

	"github.com/quarry-cli/quarry/kernel"
)

//go:embed prompt/*.tmpl
var promptFS embed.FS

var systemTemplate = template.Must(template.ParseFS(promptFS, "prompt/system.tmpl"))

// systemPrompt renders the system prompt for the attached files and the
// current tool mode.
func (a *Agent) systemPrompt() string {
	data := struct {
		Files        []string
		Databases    []string
		Markdown     bool
		Schema       bool
		Verify       bool
		Libraries    string
		Cluster      string
		ClusterLimit string
		ClusterData  []string
	}{Cluster: oneLine(a.cluster.Text, 400), ClusterLimit: a.cluster.Limit, ClusterData: clusterDataTexts(a.cluster.Datasets),
		Markdown: a.mode == modeMarkdown, Schema: a.cfg.Share == ShareSchema, Verify: a.cfg.Verify, Databases: a.dbs,
		Libraries: strings.Join(a.libs, ", ")}
	for _, p := range a.files {
		data.Files = append(data.Files, profileText(p, !data.Schema))
	}
	var b bytes.Buffer
	if err := systemTemplate.Execute(&b, data); err != nil {
		// The template is embedded and tested; this cannot happen at run time.
		panic(fmt.Sprintf("agent: system prompt: %v", err))
	}
	return b.String()
}

// profileText renders a file profile compactly. Without examples (share =
// "schema") no value of the file goes to the model: no example values, no
// first rows, and a profiling error loses what it quotes.
func profileText(p kernel.Profile, examples bool) string {
	var b strings.Builder
	path := p.Path
	if path == "" {
		path = "/data/" + p.Name
	}
	kind := p.Kind
	if p.Compression != "" {
		kind += " (" + oneLine(p.Compression, 8) + ")"
	}
	size := kernel.FormatSize(p.Size)
	if p.Unpacked > 0 {
		size += ", about " + kernel.FormatSize(p.Unpacked) + " unpacked"
	}
	facts := []string{kind, size}
	if p.Rows > 0 {
		facts = append(facts, fmt.Sprintf("%d rows", p.Rows))
	}
	if p.Encoding != "" {
		enc := "encoding " + p.Encoding
		if p.EncodingSample != "" && examples { // the file's own text: not with share = "schema"
			enc += " (its non-ASCII text reads: " + oneLine(p.EncodingSample, 200) + ")"
		}
		facts = append(facts, enc)
	}
	if p.Delimiter != "" {
		facts = append(facts, fmt.Sprintf("delimiter %q", p.Delimiter))
	}
	if p.Decimal != "" && p.Decimal != "." {
		facts = append(facts, fmt.Sprintf("decimal %q", p.Decimal))
	}
	if p.Thousands != "" {
		facts = append(facts, fmt.Sprintf("thousands %q", p.Thousands))
	}
	switch {
	case len(p.Sheets) > 0:
	case p.HeaderRow < 0:
		facts = append(facts, "no header row")
	case p.HeaderRow > 0:
		facts = append(facts, fmt.Sprintf("header on line %d", p.HeaderRow+1))
	}
	if p.Large {
		facts = append(facts, fmt.Sprintf("large: about %s in memory as a DataFrame, limit %s",
			kernel.FormatSize(p.MemoryEstimate), kernel.FormatSize(p.MemoryLimit)))
	}
	fmt.Fprintf(&b, "- %s (%s)", path, strings.Join(facts, ", "))
	if p.Error != "" {
		msg := p.Error
		if !examples {
			msg = quoted.ReplaceAllString(msg, "'…'")
		}
		fmt.Fprintf(&b, "\n  could not be profiled: %s", oneLine(msg, 200))
	}
	if call := readCall(p, path); call != "" {
		fmt.Fprintf(&b, "\n  read with: %s", call)
	}
	notes := p.Notes
	if p.KindNote != "" {
		notes = append([]string{p.KindNote}, notes...)
	}
	writeNotes(&b, "  ", notes)
	if len(p.Sheets) == 0 {
		writeColumns(&b, "  ", p.Columns, p.ColumnCount, p.Head, examples)
	}
	part := "sheet"
	if p.Kind == "sqlite" {
		part = "table" // a database's tables are profiled as a workbook's sheets
	}
	for _, s := range p.Sheets[:min(len(p.Sheets), maxPromptSheets)] {
		fmt.Fprintf(&b, "\n  %s %s: %d rows", part, kernel.PyString(s.Name), s.Rows)
		if s.State != "" {
			fmt.Fprintf(&b, " (%s)", oneLine(s.State, 16))
		}
		if p.Error == "" {
			if call := s.Read.Python(path); call != "" {
				fmt.Fprintf(&b, "\n    read with: %s", call)
			}
		}
		writeNotes(&b, "    ", s.Notes)
		writeColumns(&b, "    ", s.Columns, s.ColumnCount, s.Head, examples)
	}
	if len(p.Sheets) > maxPromptSheets {
		list := "pd.ExcelFile(path).sheet_names lists them"
		if part == "table" {
			list = "sqlite_master lists them"
		}
		fmt.Fprintf(&b, "\n  … and %d more %ss (%s)", len(p.Sheets)-maxPromptSheets, part, list)
	}
	return b.String()
}

// quoted is text in quotes in a message, which may be a value of the file.
var quoted = regexp.MustCompile(`'[^']*'|"[^"]*"`)

// maxPromptSheets keeps a workbook of many sheets from filling the prompt.
const maxPromptSheets = 12

// writeNotes adds the profile's remarks (a sample, an estimated row count):
// the model must know when dtypes and counts are not the whole file's.
func writeNotes(b *strings.Builder, indent string, notes []string) {
	for _, n := range notes[:min(len(notes), 5)] {
		fmt.Fprintf(b, "\n%snote: %s", indent, oneLine(n, 300))
	}
}

// oneLine clips kernel text and folds its line breaks, so it cannot start
// a line of its own in the prompt.
func oneLine(s string, n int) string {
	return clip(strings.Join(strings.Fields(s), " "), n)
}

// maxPromptColumns keeps very wide files from filling the prompt.
const maxPromptColumns = 60

// writeColumns lists the columns and the first rows. Names, examples and
// cells are values from the file: each is folded onto one line, so a cell
// holding line breaks cannot break the layout.
func writeColumns(b *strings.Builder, indent string, cols []kernel.Column, total int, head [][]string, examples bool) {
	if len(cols) == 0 {
		return
	}
	parts := make([]string, 0, min(len(cols), maxPromptColumns)+1)
	for _, c := range cols[:min(len(cols), maxPromptColumns)] {
		s := fmt.Sprintf("%s: %s", oneLine(c.Name, 60), oneLine(c.Dtype, 30))
		if c.DateFormat != "" {
			s += fmt.Sprintf(" (parsed from text %q)", c.DateFormat)
		}
		if c.Nulls > 0 {
			s += fmt.Sprintf(", %d missing", c.Nulls)
		}
		if examples && len(c.Examples) > 0 {
			ex := make([]string, 0, 3)
			for _, e := range c.Examples[:min(3, len(c.Examples))] {
				ex = append(ex, oneLine(e, 40))
			}
			s += ", e.g. " + strings.Join(ex, "; ")
		}
		parts = append(parts, s)
	}
	// total is the file's count: a very wide file's profile lists only its
	// first columns, and the prompt fewer still.
	total = max(total, len(cols))
	count := fmt.Sprintf("%d", total)
	if shown := len(parts); total > shown {
		parts = append(parts, fmt.Sprintf("… and %d more (list them with df.columns)", total-shown))
		count = fmt.Sprintf("%d, the first %d listed", total, shown)
	}
	fmt.Fprintf(b, "\n%scolumns (%s): %s", indent, count, strings.Join(parts, " · "))
	if !examples || len(head) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%sfirst rows:", indent)
	for _, row := range head[:min(5, len(head))] {
		cells := make([]string, 0, len(row))
		for _, c := range row[:min(len(row), maxPromptColumns)] {
			cells = append(cells, oneLine(c, 30))
		}
		fmt.Fprintf(b, "\n%s  %s", indent, strings.Join(cells, " | "))
	}
}

// ProfileText is an attached file as the system prompt describes it to the
// model; examples false keeps the file's values out (share = "schema").
func ProfileText(p kernel.Profile, examples bool) string { return profileText(p, examples) }

// clusterDataTexts are --dask-data's datasets as the model reads them,
// like a file's profile: where the workers read it, how, its shape and
// dtypes, and a few rows when values are shared. Every part came from the
// cluster: folded onto one line each.
func clusterDataTexts(sets []kernel.ClusterData) []string {
	var out []string
	for _, d := range sets {
		var b strings.Builder
		if d.Error != "" {
			fmt.Fprintf(&b, "- dataset %s at %s: the workers could not read it (%s)", oneLine(d.Name, 64), oneLine(d.URL, 300), oneLine(d.Error, 300))
			out = append(out, b.String())
			continue
		}
		reader := "read_parquet"
		if d.Format == "csv" {
			reader = "read_csv"
		}
		fmt.Fprintf(&b, "- dataset %s: `dd.%s(%q)`, %d partitions", oneLine(d.Name, 64), reader, oneLine(d.URL, 300), d.Partitions)
		if d.Rows >= 0 {
			fmt.Fprintf(&b, ", %d rows", d.Rows)
		}
		cols := make([]string, 0, len(d.Columns))
		for _, c := range d.Columns {
			cols = append(cols, oneLine(c[0], 80)+" ("+oneLine(c[1], 40)+")")
		}
		fmt.Fprintf(&b, "\n  columns: %s", strings.Join(cols, ", "))
		if more := d.ColumnCount - len(d.Columns); more > 0 {
			fmt.Fprintf(&b, " and %d more", more)
		}
		for _, row := range d.Head {
			vals := make([]string, len(row))
			for i, v := range row {
				vals[i] = oneLine(v, 80)
			}
			b.WriteString("\n  | " + strings.Join(vals, " | ") + " |")
		}
		out = append(out, b.String())
	}
	return out
}

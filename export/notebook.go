package export

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/notebook"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/session"
)

// The notebook is nbformat 4.5: a Markdown cell for each question and each
// answer, a code cell for each cell the session ran, with its outputs as
// Jupyter would have shown them. Its first code cell defines DATA_DIR and
// OUTPUT_DIR, and the code's /data/... and /output/... literals are
// rewritten to use them, so it runs beside the data in Jupyter; quarry
// rerun puts the sandbox's folders back in that cell.

type nbNotebook struct {
	Cells         []nbCell       `json:"cells"`
	Metadata      map[string]any `json:"metadata"`
	NBFormat      int            `json:"nbformat"`
	NBFormatMinor int            `json:"nbformat_minor"`
}

type nbCell struct {
	ID             string         `json:"id"`
	CellType       string         `json:"cell_type"`
	Metadata       map[string]any `json:"metadata"`
	Source         string         `json:"source"`
	ExecutionCount *int           `json:"execution_count,omitempty"`
	Outputs        []nbOutput     `json:"outputs,omitempty"`
	code           bool
}

// MarshalJSON writes a code cell's execution_count and outputs even when
// null or empty (the schema requires them) and a Markdown cell without.
func (c nbCell) MarshalJSON() ([]byte, error) {
	m := map[string]any{"id": c.ID, "cell_type": c.CellType, "metadata": c.Metadata, "source": c.Source}
	if c.code {
		m["execution_count"] = c.ExecutionCount
		outs := c.Outputs
		if outs == nil {
			outs = []nbOutput{}
		}
		m["outputs"] = outs
	}
	return json.Marshal(m)
}

// nbOutput is one output: each type has its own required keys and no
// others (the schema forbids extra ones), so it is built as a map.
type nbOutput map[string]any

func streamOutput(name, text string) nbOutput {
	return nbOutput{"output_type": "stream", "name": name, "text": text}
}

func writeNotebook(w io.Writer, d *doc) error {
	nb := nbNotebook{NBFormat: 4, NBFormatMinor: 5, Metadata: map[string]any{
		"kernelspec":    map[string]string{"name": "python3", "display_name": "Python 3", "language": "python"},
		"language_info": map[string]string{"name": "python"},
		"quarry":        notebookMeta(d),
	}}
	intro := "# " + escapeMarkdown(d.title) + "\n\n" + sessionLine(d)
	nb.Cells = append(nb.Cells, nbCell{ID: "quarry-title", CellType: "markdown", Metadata: map[string]any{}, Source: intro})
	nb.Cells = append(nb.Cells, nbCell{ID: notebook.SetupID, CellType: "code", code: true, Source: setupSource(d),
		Metadata: map[string]any{"tags": []string{notebook.SetupID}, "quarry": map[string]any{"role": "setup"}}})
	for i, t := range d.turns {
		if t.Question != "" {
			nb.Cells = append(nb.Cells, nbCell{ID: fmt.Sprintf("q%d", i+1), CellType: "markdown",
				Metadata: map[string]any{"quarry": map[string]any{"role": "question"}}, Source: questionMarkdown(t.Question)})
		}
		for _, c := range t.Cells {
			nb.Cells = append(nb.Cells, codeCell(d, c))
		}
		if t.Answer != "" {
			nb.Cells = append(nb.Cells, nbCell{ID: fmt.Sprintf("a%d", i+1), CellType: "markdown",
				Metadata: map[string]any{"quarry": map[string]any{"role": "answer"}}, Source: safeMarkdown(footnoted(demoteHeadings(t.Answer, answerTop), t.Numbers, i+1))})
		}
		if t.Error != "" {
			nb.Cells = append(nb.Cells, nbCell{ID: fmt.Sprintf("e%d", i+1), CellType: "markdown",
				Metadata: map[string]any{"quarry": map[string]any{"role": "error"}}, Source: "*The turn failed:* " + escapeMarkdown(t.Error)})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(nb)
}

// notebookMeta lets a rerun of the notebook find and compare its inputs.
func notebookMeta(d *doc) map[string]any {
	var inputs []map[string]any
	for _, in := range d.inputs {
		m := map[string]any{"name": in.Name, "path": in.Path, "size": in.Size, "sha256": in.SHA256}
		if in.Profile != nil {
			var cols []map[string]string
			for _, c := range in.Profile.Columns {
				cols = append(cols, map[string]string{"name": c.Name, "dtype": c.Dtype})
			}
			m["columns"] = cols
		}
		inputs = append(inputs, m)
	}
	meta := map[string]any{"session": d.id, "model": d.model, "inputs": inputs}
	if len(d.extras) > 0 {
		meta["extras"] = d.extras
	}
	return meta
}

func setupSource(d *doc) string {
	var names []string
	for _, in := range d.inputs {
		names = append(names, in.Name)
	}
	what := "its input files"
	if len(names) > 0 {
		what = strings.Join(names, ", ")
	}
	head := []string{
		"# Set up by quarry. In the session the code read " + pyComment(what) + " from /data",
		"# and saved its files in /output; here both are this notebook's folder.",
		"# Point DATA_DIR at the folder that holds the files if it is another one.",
	}
	if words, names := d.extrasWords(); words != "" {
		head = append(head, "# The sandbox had Debian packages added: "+pyComment(words)+";",
			"# in quarry: quarry sandbox add "+pyComment(names)+"; elsewhere Debian's apt install them.")
	}
	return strings.Join(append(append(head,
		"import numpy as np",
		"import pandas as pd",
		"import matplotlib",
		"import matplotlib.pyplot as plt",
		"DATA_DIR = './'",
		"OUTPUT_DIR = './'",
	), append(d.sourcesSetup(), d.varianceSetup()...)...), "\n")
}

// pyComment keeps text on one comment line.
func pyComment(s string) string { return strings.Join(strings.Fields(s), " ") }

func codeCell(d *doc, c session.Cell) nbCell {
	n := c.Num
	meta := map[string]any{"quarry": map[string]any{"cell": c.Num, "status": string(c.Status)}}
	if c.Status != session.CellOK {
		// Jupyter's own mark for a cell expected to raise: running the
		// notebook goes on past it, and quarry rerun leaves it out.
		meta["tags"] = []string{"raises-exception"}
	}
	cell := nbCell{ID: fmt.Sprintf("cell-%d", c.Num), CellType: "code", code: true, ExecutionCount: &n,
		Metadata: meta, Source: notebook.RelocatePaths(c.Code)}
	r := c.Result
	if r.Stdout != "" {
		cell.Outputs = append(cell.Outputs, streamOutput("stdout", r.Stdout))
	}
	if r.Stderr != "" {
		cell.Outputs = append(cell.Outputs, streamOutput("stderr", r.Stderr))
	}
	for _, f := range r.Figures {
		data, err := kernel.ReadPNG(f.Path)
		if err != nil {
			cell.Outputs = append(cell.Outputs, streamOutput("stderr", fmt.Sprintf("[quarry: figure %s is missing from the session folder]\n", f.Name)))
			continue
		}
		cell.Outputs = append(cell.Outputs, nbOutput{"output_type": "display_data", "metadata": map[string]any{},
			"data": map[string]string{"image/png": base64.StdEncoding.EncodeToString(data), "text/plain": "<Figure>"}})
	}
	if v := r.Value; v != nil && r.Error == nil {
		data := map[string]string{"text/plain": v.Repr}
		if v.Table != nil {
			data["text/html"] = tableHTML(v.Table, d.grid(v.Table))
		}
		cell.Outputs = append(cell.Outputs, nbOutput{"output_type": "execute_result", "execution_count": n, "metadata": map[string]any{}, "data": data})
	}
	if e := r.Error; e != nil {
		name := e.Type
		if name == "" {
			name = string(e.Kind)
		}
		tb := strings.Split(strings.TrimRight(errorText(e), "\n"), "\n")
		cell.Outputs = append(cell.Outputs, nbOutput{"output_type": "error", "ename": name, "evalue": e.Message, "traceback": tb})
	}
	return cell
}

// tableHTML is a table as pandas' own HTML would show it in Jupyter,
// every cell escaped.
func tableHTML(t *kernel.Table, g render.Grid) string {
	var b strings.Builder
	cell := func(j int, v string) string {
		switch {
		case j < g.IndexCols:
			return "<th>" + esc(v) + "</th>"
		case g.Numeric[j]:
			return `<td class="num">` + esc(v) + "</td>"
		}
		return "<td>" + esc(v) + "</td>"
	}
	gap := func() {
		b.WriteString(`<tr class="gap">`)
		for j := range g.Header {
			if j < g.IndexCols {
				b.WriteString("<th>…</th>")
			} else {
				b.WriteString("<td>…</td>")
			}
		}
		b.WriteString("</tr>")
	}
	b.WriteString(`<table class="dataframe"><thead><tr>`)
	for _, h := range g.Header {
		b.WriteString("<th>" + esc(h) + "</th>")
	}
	b.WriteString("</tr></thead><tbody>")
	for i, r := range g.Rows {
		if i == g.Gap {
			gap()
		}
		b.WriteString("<tr>")
		for j, v := range r {
			b.WriteString(cell(j, v))
		}
		b.WriteString("</tr>")
	}
	if g.Gap == len(g.Rows) {
		gap()
	}
	b.WriteString("</tbody></table>")
	b.WriteString(`<p class="shape">` + esc(tableShape(t, g)) + `</p>`)
	return b.String()
}

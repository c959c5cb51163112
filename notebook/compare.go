package notebook

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
)

// What moved between a notebook's stored outputs and a rerun's: for each
// cell the printed text, the value (a table cell by cell, by row label,
// so Jupyter's truncated HTML and quarry's head and tail still meet:
// compare_table.go), the number of figures and the error. Timing lines (%time, %timeit) always
// differ and are left out. quarry prints display()'s objects, so a cell
// that displayed something may print more than the notebook's stream held.

// maxStoredText caps the text kept of a cell's stored outputs.
const maxStoredText = 64 << 10

// StoredOutputs is what a notebook holds of a code cell's last run.
type StoredOutputs struct {
	Ran      bool   // it has an execution count or outputs
	Stdout   string // the stdout stream
	Displays int    // display_data outputs
	Figures  int    // outputs holding a PNG
	Value    string // the result's text/plain, "" when it is an object's address
	Table    *htmlTable
	Error    string // "KeyError: 'discount'"
	EName    string
}

type storedOutput struct {
	OutputType string                     `json:"output_type"`
	Name       string                     `json:"name"`
	Text       json.RawMessage            `json:"text"`
	Data       map[string]json.RawMessage `json:"data"`
	EName      string                     `json:"ename"`
	EValue     string                     `json:"evalue"`
}

var objectRepr = regexp.MustCompile(`^<[\w.]+ (object|at 0x[0-9a-f]+)>$`)

func storedOutputs(c readNBCell) StoredOutputs {
	s := StoredOutputs{Ran: c.ExecutionCount != nil || len(c.Outputs) > 0}
	var out strings.Builder
	for _, o := range c.Outputs {
		switch o.OutputType {
		case "stream":
			if t, err := cellSource(o.Text); err == nil && o.Name == "stdout" && out.Len() < maxStoredText {
				out.WriteString(t)
			}
		case "display_data", "execute_result":
			if _, ok := o.Data["image/png"]; ok {
				s.Figures++
			}
			if o.OutputType == "display_data" {
				s.Displays++
				continue
			}
			if t, err := cellSource(o.Data["text/plain"]); err == nil && !objectRepr.MatchString(strings.TrimSpace(t)) {
				s.Value = clip(t, maxStoredText)
			}
			if h, err := cellSource(o.Data["text/html"]); err == nil {
				s.Table = parseHTMLTable(h)
			}
		case "error":
			s.EName, s.Error = o.EName, o.EName+": "+clip(o.EValue, 500)
		}
	}
	s.Stdout = clip(strings.ReplaceAll(out.String(), cutMark, ""), maxStoredText)
	return s
}

// Comparison is how a cell's new outputs stand to the stored ones.
type Comparison struct {
	Kind string   // same, changed, new (fails now, did not in the notebook)
	Diff []string // what changed, a few lines
}

// maxDiff bounds the lines of a comparison.
const maxDiff = 8

// Compare compares a cell's stored outputs with its new result.
func Compare(was StoredOutputs, now kernel.Result) Comparison {
	var d diffLines
	switch {
	case now.Error != nil && was.EName == "":
		msg := now.Error.Type + ": " + now.Error.Message
		return Comparison{Kind: "new", Diff: []string{"fails now: " + clip(firstLine(msg), 200)}}
	case now.Error != nil && now.Error.Type != was.EName:
		d.add(fmt.Sprintf("fails with %s, was %s", now.Error.Type, was.Error))
	case now.Error == nil && was.EName != "":
		d.add("runs now; it failed with " + was.Error)
	}
	if !was.Ran {
		if now.Stdout != "" || now.Value != nil || len(now.Figures) > 0 {
			d.add("the notebook holds no outputs of this cell")
		}
		return d.result()
	}
	compareText(&d, "", was.Stdout, now.Stdout, was.Displays > 0)
	if now.Error == nil {
		compareValue(&d, was, now.Value)
	}
	if was.Figures != len(now.Figures) {
		d.add(fmt.Sprintf("%d figure%s, was %d", len(now.Figures), plural(len(now.Figures)), was.Figures))
	}
	return d.result()
}

type diffLines []string

func (d *diffLines) add(s string) {
	if len(*d) < maxDiff {
		*d = append(*d, s)
	}
}

func (d diffLines) result() Comparison {
	if len(d) == 0 {
		return Comparison{Kind: "same"}
	}
	return Comparison{Kind: "changed", Diff: d}
}

var timing = regexp.MustCompile(`^(CPU times: |Wall time: )|per loop \(mean ± std\. dev\. of `)

func textLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l == "" || timing.MatchString(l) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// compareText wants the stored lines in the new text, in order; new lines
// besides them count only when nothing was displayed (quarry prints what
// display() shows).
func compareText(d *diffLines, what, was, now string, extraOK bool) {
	w, n := textLines(was), textLines(now)
	j := 0
	var extra []string
	for _, l := range w {
		k := j
		for k < len(n) && n[k] != l {
			k++
		}
		if k == len(n) {
			d.add(what + "- " + clip(l, 120))
			if j < len(n) {
				d.add(what + "+ " + clip(n[j], 120))
				j++
			}
			continue
		}
		extra = append(extra, n[j:k]...)
		j = k + 1
	}
	extra = append(extra, n[j:]...)
	if !extraOK {
		for _, l := range extra {
			d.add(what + "+ " + clip(l, 120))
		}
	}
}

func compareValue(d *diffLines, was StoredOutputs, now *kernel.Value) {
	switch {
	case was.Table != nil && now != nil && now.Table != nil:
		compareTables(d, was.Table, now.Table)
	case was.Table != nil:
		d.add("the table it showed is gone")
	case was.Value != "" && now == nil:
		d.add("- " + clip(firstLine(was.Value), 120) + " (its value is gone)")
	case was.Value != "" && !sameText(squash(was.Value), squash(now.Repr)):
		wl, nl := strings.Split(layout(was.Value), "\n"), strings.Split(layout(now.Repr), "\n")
		for i := 0; i < len(wl) || i < len(nl); i++ {
			switch {
			case i >= len(wl):
				d.add("+ " + clip(nl[i], 120))
			case i >= len(nl):
				d.add("- " + clip(wl[i], 120))
			case squash(wl[i]) != squash(nl[i]):
				d.add("- " + clip(wl[i], 120))
				d.add("+ " + clip(nl[i], 120))
			}
		}
	}
}

var (
	spaces  = regexp.MustCompile(`[ \t]+`)
	reprCut = regexp.MustCompile(`\n?\[\.\.\. [\d,]+ characters cut \.\.\.\]$`)
)

// sameText: the stored text and the rerun's, whose repr the kernel cuts
// (values.py's cap_text): the same when the part kept is the same.
func sameText(was, now string) bool {
	if was == now {
		return true
	}
	if kept := reprCut.ReplaceAllString(now, ""); kept != now {
		return strings.HasPrefix(was, strings.TrimSpace(kept))
	}
	return false
}

// numpyScalar is numpy 2's repr of a scalar (np.float64(0.5)), which
// numpy 1 wrote as the number alone: the same value.
var numpyScalar = regexp.MustCompile(`\bnp\.(?:float|int|uint|complex|longdouble|clongdouble)\d*\(([^()]*)\)|\bnp\.(True|False)_|\bnp\.(?:str_|bytes_)\(('[^']*'|"[^"]*")\)`)

// squash makes a text's layout irrelevant (layout) and a numpy scalar the
// number it holds.
func squash(s string) string {
	return numpyScalar.ReplaceAllString(layout(s), "$1$2$3")
}

// layout makes a text's layout irrelevant: a table printed for other
// column widths is the same table.
func layout(s string) string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		out = append(out, strings.TrimSpace(spaces.ReplaceAllString(l, " ")))
	}
	return strings.Join(out, "\n")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

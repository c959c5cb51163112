package ground

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
)

// A test answer is written as a template: ⟨right|wrong|kind⟩ marks a claim
// with a planted wrong version of it, ⟨right⟩ a claim without one,
// ⟨text||own⟩ a number the model worked out itself, which no source holds.
// Everything else in the text, numbers included, must not be listed as
// a claim.
var reMark = regexp.MustCompile(`⟨([^⟩|]*)(?:\|([^⟩|]*)\|([^⟩]*))?⟩`)

type mark struct {
	right, wrong, kind string
}

type variant struct {
	answer  string
	claims  []string // the texts expected as claims, in order
	planted int      // index into claims of the planted one, -1 for the right answer
	kind    string
	own     []bool // per claim: the model's own number, rightly unverified
}

// variants is the right answer and one answer per planted number.
func variants(tmpl string) []variant {
	ms := reMark.FindAllStringSubmatch(tmpl, -1)
	build := func(plant int) variant {
		v := variant{planted: -1}
		k := -1
		v.answer = reMark.ReplaceAllStringFunc(tmpl, func(m string) string {
			k++
			sm := ms[k]
			text := sm[1]
			if k == plant {
				text, v.planted, v.kind = sm[2], k, sm[3]
			}
			v.claims = append(v.claims, text)
			v.own = append(v.own, sm[3] == "own")
			return text
		})
		return v
	}
	out := []variant{build(-1)}
	for k, sm := range ms {
		if sm[2] != "" {
			out = append(out, build(k))
		}
	}
	return out
}

func table(index string, labels []string, cols []string, dtypes []string, rows ...[]string) *kernel.Table {
	return &kernel.Table{Columns: cols, Dtypes: dtypes, IndexName: index, Index: labels, Head: rows, Rows: len(rows), Cols: len(cols)}
}

func tableSrc(cell int, t *kernel.Table) Source { return Source{Cell: cell, Kind: Table, Table: t} }
func printed(cell int, text string) Source      { return Source{Cell: cell, Kind: Stdout, Text: text} }

func claimTexts(cs []Claim) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Text
	}
	return out
}

func show(cs []Claim) string {
	var b strings.Builder
	for _, c := range cs {
		src := "-"
		if c.Source != nil {
			src = *c.Source
		}
		fmt.Fprintf(&b, "  %q value=%v grounded=%v source=%s\n", c.Text, c.Value, c.Grounded, src)
	}
	return b.String()
}

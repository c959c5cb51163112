package export

import (
	"math"
	"strconv"
	"strings"

	"github.com/quarry-cli/quarry/render"
)

// How the report shows amounts, as accountants do: digits grouped, two
// decimals, negatives in parentheses (and red), nothing as an en dash. The
// text forms are for the HTML page and the PDF (the builder prints the
// texts the spec carries), the format codes for the workbook's cells, whose
// values stay numbers: one rule, written here in both forms.
const (
	moneyFormat   = `#,##0.00_);[Red](#,##0.00);"–"_)`
	percentFormat = `0.0%_);[Red](0.0%);"–"_)`
	noAmount      = "–"
)

// moneyText is an amount as the report prints it: 1,234.56, (1,234.56).
func moneyText(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return noAmount
	}
	s := render.GroupThousands(strconv.FormatFloat(math.Abs(v), 'f', 2, 64))
	if v < 0 && strings.Trim(s, "0.,") != "" {
		return "(" + s + ")"
	}
	return s
}

// pctText is a percentage given in percent (7.5 is 7.5%): 7.5%, (7.5%);
// an en dash where there is none (a line without budget).
func pctText(p *float64) string {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return noAmount
	}
	s := render.GroupThousands(strconv.FormatFloat(math.Abs(*p), 'f', 1, 64)) + "%"
	if *p < 0 && strings.Trim(s, "0.,%") != "" {
		return "(" + s + ")"
	}
	return s
}

// negative tells an amount the report shows in red.
func negative(v float64) bool { return v < 0 && moneyText(v) != moneyText(0) }

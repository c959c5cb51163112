package ground

import (
	"slices"
	"strings"
)

// sortValues orders the values by value, then by where they are: refs
// grow in source order, so of equal values the current question's come
// first.
func sortValues(vs []value) {
	slices.SortFunc(vs, func(a, b value) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return int(a.ref - b.ref)
	})
}

// ground finds a source value the claim equals after the rounding it shows:
// within half its last digit (an approximate claim, "about 7,000", on its
// last nonzero digit), a percent read as a fraction or as percent units,
// the sign when the claim states one and either sign when it does not.
func (ix *index) ground(t token, r reading, ids []int32, header string) (value, bool) {
	var best value
	bestRank := 0
	q := query{ids: ids, header: header, percent: t.percent}
	for _, f := range t.factors(colHint{scale: 1}) {
		for _, sp := range t.spans(r, f) {
			ix.scan(sp.lo, sp.hi, q, &best, &bestRank)
		}
		if bestRank == 2 {
			break
		}
	}
	return best, bestRank > 0
}

// colHint is what a table's header says of its cells: a scale ("Q1 ($k)")
// and whether they are percent ("share (%)").
type colHint struct {
	scale   float64
	percent bool
}

// factors are what the digits of t are multiplied by to give a source
// value: its scale (or the column's when it shows none), a percent as a
// fraction first, then as percent units.
func (t token) factors(h colHint) []float64 {
	scales := []float64{t.scale}
	if t.scale == 1 && h.scale != 1 && h.scale != 0 {
		scales = []float64{h.scale, 1}
	}
	var out []float64
	for _, s := range scales {
		if t.percent || h.percent {
			out = append(out, s/100)
		}
		out = append(out, s)
	}
	return out
}

// valueSpan is a range of source values.
type valueSpan struct{ lo, hi float64 }

// spans are the source values reading r of t stands for at factor f:
// within half its last digit shown (an approximate claim on its last
// nonzero digit), of the sign it states or of either.
func (t token) spans(r reading, f float64) []valueSpan {
	unit := r.unit()
	if t.approx && r.decimals == 0 {
		d := strings.Join(t.num.groups, "")
		for z := len(d) - 1; z > 0 && d[z] == '0'; z-- {
			unit *= 10
		}
	}
	tol := unit/2*(1+1e-9) + 1e-12*r.v
	lo, hi := (r.v-tol)*f, (r.v+tol)*f
	if lo < 0 {
		lo = 0
	}
	var out []valueSpan
	if t.sign >= 0 {
		out = append(out, valueSpan{lo, hi})
	}
	if t.sign <= 0 {
		out = append(out, valueSpan{-hi, -lo})
	}
	return out
}

// fits says the claim t stands for the source value v, read in a table
// column with hint h.
func (t token) fits(v float64, h colHint) bool {
	for _, r := range t.readings() {
		if t.fitsReading(r, v, h) {
			return true
		}
	}
	return false
}

func (t token) fitsReading(r reading, v float64, h colHint) bool {
	for _, f := range t.factors(h) {
		for _, sp := range t.spans(r, f) {
			if v >= sp.lo && v <= sp.hi {
				return true
			}
		}
	}
	return false
}

// query is what a claim says about where its value is.
type query struct {
	ids     []int32 // the row labels it names
	header  string  // its column in a Markdown table, normalized
	percent bool
}

// scan looks at the values in [lo, hi]: one in a row the claim names ranks
// 2, one in an unnamed row 1, one in a row of another name not at all; nor
// one in another column of a table with the claim's column, nor a count for
// a percent.
func (ix *index) scan(lo, hi float64, q query, best *value, rank *int) {
	ids := q.ids
	i, _ := slices.BinarySearchFunc(ix.vals, lo, func(v value, x float64) int {
		if v.v < x {
			return -1
		}
		if v.v > x {
			return 1
		}
		return 0
	})
	for n := 0; i < len(ix.vals) && ix.vals[i].v <= hi && n < 256; i, n = i+1, n+1 {
		v := ix.vals[i]
		if v.count && q.percent {
			continue
		}
		if r := ix.refs[v.ref]; q.header != "" && ix.cols[r.src] != nil && r.col >= 0 {
			if j, ok := ix.cols[r.src][q.header]; ok && j != r.col {
				continue
			}
		}
		rk := 1
		if len(ids) > 0 {
			labels := ix.refs[v.ref].labels
			switch {
			case len(labels) == 0:
				rk = 1
			case shares(labels, ids):
				rk = 2
			default:
				rk = 0
			}
		}
		if rk > *rank {
			*best, *rank = v, rk
			if rk == 2 {
				return
			}
		}
	}
}

func shares(a, b []int32) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

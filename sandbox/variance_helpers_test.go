package sandbox_test

// Helpers for the variance() and bridge() tests: each case runs in the real
// kernel of the shared session and reports the table and its attrs as one
// QJSON line (NaN as null, an infinity as a string, so it cannot pass).

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// varianceReport defines _vr(v): the table variance() returned, as JSON.
const varianceReport = `
import math as _qm
def _vr(v):
    labs = v.attrs.get('labels') or [v.columns[0]]
    def num(x):
        if isinstance(x, float) and (_qm.isnan(x) or _qm.isinf(x)):
            return None if _qm.isnan(x) else str(x)
        return x
    rows = []
    for r in v.to_dict('records'):
        rows.append({'labels': [str(r[c]) for c in labs], 'label': str(r[labs[-1]]), 'kind': r['kind'],
                     'actual': num(r['actual']), 'budget': num(r['budget']), 'variance': num(r['variance']),
                     'variance_pct': num(r['variance_pct']), 'effect': r['effect'], 'material': bool(r['material'])})
    a = v.attrs
    return {'rows': rows, 'columns': [str(c) for c in v.columns], 'notes': a.get('notes'), 'periods': a.get('periods'),
            'period': a.get('period'), 'bottom_line': a.get('bottom_line'), 'labels': labs,
            'file_total': a.get('file_total'), 'subtotals': a.get('subtotals'), 'title': a.get('title'),
            'currency': a.get('currency'), 'dtypes': {str(c): str(t) for c, t in v.dtypes.items()}}
`

type varianceRow struct {
	Labels   []string `json:"labels"`
	Label    string   `json:"label"`
	Kind     *string  `json:"kind"`
	Actual   float64  `json:"actual"`
	Budget   float64  `json:"budget"`
	Variance float64  `json:"variance"`
	Pct      *float64 `json:"variance_pct"`
	Effect   string   `json:"effect"`
	Material bool     `json:"material"`
}

type varianceOut struct {
	Rows      []varianceRow     `json:"rows"`
	Columns   []string          `json:"columns"`
	Notes     []string          `json:"notes"`
	Periods   []string          `json:"periods"`
	Period    *string           `json:"period"`
	Bottom    string            `json:"bottom_line"`
	Labels    []string          `json:"labels"`
	Title     []string          `json:"title"`
	Currency  *string           `json:"currency"`
	Dtypes    map[string]string `json:"dtypes"`
	FileTotal *struct {
		Label  string   `json:"label"`
		Actual *float64 `json:"actual"`
		Budget *float64 `json:"budget"`
		OK     bool     `json:"ok"`
	} `json:"file_total"`
	Subtotals []struct {
		Label string `json:"label"`
		What  string `json:"what"`
		OK    bool   `json:"ok"`
	} `json:"subtotals"`
}

// runVariance runs code that sets v = variance(...) and returns the table.
func runVariance(t *testing.T, code string) varianceOut {
	t.Helper()
	var out varianceOut
	res := runJSON(t, sharedSession(t), varianceReport+code+"\nprint('QJSON ' + _qj.dumps(_vr(v), allow_nan=False))\n", &out)
	mustOK(t, res)
	if len(out.Rows) == 0 {
		t.Fatalf("variance() returned no rows")
	}
	return out
}

// varianceError runs code that should fail and returns the error's type and message.
func varianceError(t *testing.T, code string) (string, string) {
	t.Helper()
	res := run(t, sharedSession(t), code)
	if res.Error == nil {
		t.Fatalf("no error from:\n%s\nstdout: %.1000s", code, res.Stdout)
	}
	return res.Error.Type, res.Error.Message
}

func (o varianceOut) row(t *testing.T, label string) varianceRow {
	t.Helper()
	for _, r := range o.Rows[:len(o.Rows)-1] {
		if r.Label == label {
			return r
		}
	}
	var have []string
	for _, r := range o.Rows {
		have = append(have, r.Label)
	}
	t.Fatalf("no line %q in the table (lines: %q)", label, have)
	return varianceRow{}
}

func (o varianceOut) total(t *testing.T) varianceRow {
	t.Helper()
	r := o.Rows[len(o.Rows)-1]
	if r.Label != "Total" {
		t.Fatalf("the last row is %q, not Total", r.Label)
	}
	return r
}

// note is the first note holding every part, or "".
func (o varianceOut) note(parts ...string) string {
	for _, n := range o.Notes {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(n, p)
		}
		if all {
			return n
		}
	}
	return ""
}

func cents(a, b float64) bool { return math.Abs(a-b) < 0.005 }

// wantMoney checks an amount to the cent.
func wantMoney(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !cents(got, want) {
		t.Errorf("%s = %.2f, want %.2f", what, got, want)
	}
}

var attached struct {
	sync.Mutex
	done map[string]bool
}

// attach puts a file of testdata/variance (or one the test wrote) into the
// shared session's /data once, under its base name.
func attach(t *testing.T, path string) string {
	t.Helper()
	s := sharedSession(t)
	attached.Lock()
	defer attached.Unlock()
	if attached.done == nil {
		attached.done = map[string]bool{}
	}
	name := filepath.Base(path)
	if attached.done[name] {
		return "/data/" + name
	}
	if _, err := os.Stat(path); err != nil {
		path = filepath.Join("testdata", "variance", path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := s.AddFileAs(ctx, path, name, nil); err != nil {
		t.Fatalf("attach %s: %v", path, err)
	}
	attached.done[name] = true
	return "/data/" + name
}

// writeFile writes a file the test attaches.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

package sandbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// sharedCorpus is the folder of third-party test files shared beside the
// project (never copied into it): ../shared/corpus from the project root.
func sharedCorpus(t *testing.T, sub string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "corpus", sub)
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus %s is missing in CI: %v", dir, err)
		}
		t.Skipf("corpus %s not found (it lives beside the project, in ../shared/corpus): %v", dir, err)
	}
	return dir
}

// truthEntry is one file's facts in ../shared/corpus/csv/truth.json.
type truthEntry struct {
	Kind      string  `json:"kind"`
	Sheet     string  `json:"sheet"`
	Rows      int     `json:"rows"`
	RowsOK    []int   `json:"rows_ok"`
	Columns   int     `json:"columns"`
	Header    int     `json:"header"`
	HeaderEff *int    `json:"header_eff"`
	Delimiter *string `json:"delimiter"`
	Decimal   *string `json:"decimal"`
	Thousands *string `json:"thousands"`
	Encoding  *string `json:"encoding"`
	Value     *struct {
		Row         int    `json:"row"`
		Col         int    `json:"col"`
		Equals      any    `json:"equals"`
		Contains    string `json:"contains"`
		StripEquals string `json:"strip_equals"`
	} `json:"value"`
}

// corpusProps are the columns of the per-property table.
var corpusProps = []string{"encoding", "delimiter", "decimal", "header", "columns", "rows", "value"}

// The real-world corpus: each file is attached to a real sandbox, profiled,
// and loaded with the read call the profile reports (the one the model is
// given). A file reads right when that call runs and yields the true shape
// and, where truth.json names one, the true cell value.
func TestCorpus(t *testing.T) {
	dir := sharedCorpus(t, "csv")
	raw, err := os.ReadFile(filepath.Join(dir, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var truth map[string]truthEntry
	if err := json.Unmarshal(raw, &truth); err != nil {
		t.Fatalf("truth.json: %v", err)
	}
	names := make([]string, 0, len(truth))
	for n := range truth {
		names = append(names, n)
	}
	sort.Strings(names)

	s := sandboxtest.Session(t, sandboxtest.Engine(t), sandbox.Options{})
	right := map[string][2]int{} // property: right, judged
	good := 0
	var failed []string
	for _, name := range names {
		tr := truth[name]
		res := readCorpusFile(t, s, filepath.Join(dir, "files", name), tr)
		var off []string
		for _, prop := range corpusProps {
			if ok, judged := res.props[prop]; judged {
				c := right[prop]
				c[1]++
				if ok {
					c[0]++
				} else {
					off = append(off, prop)
				}
				right[prop] = c
			}
		}
		if len(off) > 0 && res.ok {
			failed = append(failed, fmt.Sprintf("%s: reads right, but %s differ from truth.json", name, strings.Join(off, ", ")))
		}
		if res.ok {
			good++
		} else {
			failed = append(failed, name+": wrong: "+res.why)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "corpus: %d of %d files read right\n\n| property | right |\n|---|---|\n", good, len(names))
	for _, prop := range corpusProps {
		c := right[prop]
		fmt.Fprintf(&b, "| %s | %d / %d |\n", prop, c[0], c[1])
	}
	for _, f := range failed {
		fmt.Fprintf(&b, "\n%s", f)
	}
	t.Log("\n" + b.String())
	if good < 57 {
		t.Errorf("%d of %d corpus files read right; want at least 57", good, len(names))
	}
}

type corpusResult struct {
	ok    bool
	why   string
	props map[string]bool // property: right; absent when truth says nothing
}

func readCorpusFile(t *testing.T, s *sandbox.Session, path string, tr truthEntry) corpusResult {
	t.Helper()
	r := corpusResult{props: map[string]bool{}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := s.AddFile(ctx, path)
	if err != nil {
		t.Fatalf("attach %s: %v", path, err)
	}
	call, header := p.Read, p.HeaderRow
	if tr.Sheet != "" && len(p.Sheets) > 1 {
		call = nil
		for _, sh := range p.Sheets {
			if sh.Name == tr.Sheet {
				call, header = sh.Read, sh.HeaderRow
			}
		}
	}
	r.props["header"] = header == tr.Header || tr.HeaderEff != nil && header == *tr.HeaderEff
	if tr.Kind == "csv" {
		r.props["delimiter"] = tr.Delimiter != nil && p.Delimiter == *tr.Delimiter
		r.props["decimal"] = tr.Decimal != nil && (p.Decimal == *tr.Decimal ||
			tr.Thousands != nil && *tr.Thousands == *tr.Decimal) // no decimals in the file: either mark reads it
	}
	code := call.Python(p.Path)
	if tr.Kind == "csv" {
		if tr.Encoding == nil {
			r.props["encoding"] = true // truth names none (mojibake in the source): any reading is as good
		} else {
			res, err := s.Exec(ctx, corpusProbe+fmt.Sprintf("_same_text(%s, %s, %s)", kernel.PyString(p.Path), kernel.PyString(*tr.Encoding), kernel.PyString(p.Encoding)), nil)
			if err != nil {
				t.Fatalf("exec %s: %v", path, err)
			}
			r.props["encoding"] = res.Value != nil && res.Value.Repr == "True"
		}
	}
	// A call that cannot run gets nothing right.
	r.props["rows"], r.props["columns"] = false, false
	if tr.Value != nil {
		r.props["value"] = false
	}
	if p.Error != "" || code == "" {
		r.why = fmt.Sprintf("no read call (profile error %q)", p.Error)
		return r
	}
	valueAt := "None"
	if v := tr.Value; v != nil {
		valueAt = fmt.Sprintf("_cell(df, %d, %d)", v.Row, v.Col)
	}
	res, err := s.Exec(ctx, corpusProbe+"df = "+code+"\nprint(json.dumps({'rows': len(df), 'cols': df.shape[1], 'value': "+valueAt+"}))", nil)
	if err != nil {
		t.Fatalf("exec %s: %v", path, err)
	}
	if res.Error != nil {
		r.why = fmt.Sprintf("%s raised %s: %s", code, res.Error.Type, strings.TrimSpace(res.Error.Message))
		return r
	}
	var got struct {
		Rows  int `json:"rows"`
		Cols  int `json:"cols"`
		Value any `json:"value"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &got); err != nil {
		t.Fatalf("probe output %q: %v", res.Stdout, err)
	}
	r.props["rows"] = got.Rows == tr.Rows || contains(tr.RowsOK, got.Rows)
	r.props["columns"] = got.Cols == tr.Columns
	valueOK := true
	if tr.Value != nil {
		valueOK = valueMatches(got.Value, tr.Value.Equals, tr.Value.Contains, tr.Value.StripEquals)
		r.props["value"] = valueOK
	}
	r.ok = r.props["rows"] && r.props["columns"] && valueOK
	if !r.ok {
		r.why = fmt.Sprintf("%s gives %d×%d (want %d×%d), value %v", code, got.Rows, got.Cols, tr.Rows, tr.Columns, got.Value)
	}
	return r
}

// corpusProbe defines the helpers the probe cell uses.
const corpusProbe = `import json
def _cell(df, r, c):
    try:
        v = df.iloc[r, c]
    except IndexError:
        return None
    v = v.item() if hasattr(v, 'item') else v
    if isinstance(v, float) and v != v:
        return None
    return v if isinstance(v, (int, float, str)) else str(v)
def _same_text(p, a, b):
    if a == 'ascii':
        a = 'utf-8'
    with open(p, encoding=a, errors='replace') as f, open(p, encoding=b, errors='replace') as g:
        return f.read() == g.read()
`

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func valueMatches(got, equals any, contains, stripEquals string) bool {
	switch {
	case stripEquals != "":
		s, ok := got.(string)
		return ok && strings.TrimSpace(s) == stripEquals
	case contains != "":
		s, ok := got.(string)
		return ok && strings.Contains(s, contains)
	}
	if want, ok := equals.(float64); ok {
		g, ok := got.(float64)
		return ok && math.Abs(g-want) <= 1e-6*math.Max(1, math.Abs(want))
	}
	return fmt.Sprint(got) == fmt.Sprint(equals)
}

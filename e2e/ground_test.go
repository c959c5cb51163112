package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// Grounded answers end to end: the real sandbox runs the cells, the model
// is faked at the HTTP level, the numbers of its answer are checked
// against what the cells printed and returned.

const salesCSV = "region,revenue\nNorth,80000\nSouth,100000\nWest,90000\n"

const salesCode = `import pandas as pd
df = pd.read_csv('/data/sales.csv')
print(f"total {df.revenue.sum():,}")
df.set_index('region').revenue`

// The draft quotes three values the cell showed and works out a share
// itself.
const salesDraft = "North had 80,000 and South 100,000, a total of 270,000; West is 33.3% of the total."

func writeSales(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sales.csv")
	if err := os.WriteFile(p, []byte(salesCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type numbersDoc struct {
	Answer  string
	Numbers []struct {
		Text     string  `json:"text"`
		Value    float64 `json:"value"`
		Grounded bool    `json:"grounded"`
		Cell     *int    `json:"cell"`
		Source   *string `json:"source"`
	} `json:"numbers"`
	Unverified int      `json:"unverified"`
	Warnings   []string `json:"warnings"`
	OutputDir  string   `json:"output_dir"`
}

func TestNumbersJSONContract(t *testing.T) {
	sandboxtest.Engine(t)
	srv := openaitest.New(t, openaitest.ToolCalls(salesCode), openaitest.Text(salesDraft))
	r := newRun(t, srv.URL, "-p", "revenue by region", "--json", writeSales(t))
	if code := r.exec(2 * time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, r.stdout.String(), r.stderr.String())
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(r.stdout.Bytes(), &raw); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout.String())
	}
	var nums []map[string]json.RawMessage
	json.Unmarshal(raw["numbers"], &nums)
	for _, n := range nums {
		for _, k := range []string{"text", "value", "grounded", "cell", "source"} {
			if _, ok := n[k]; !ok {
				t.Errorf("a number lacks %q: %v", k, n)
			}
		}
	}
	var doc numbersDoc
	json.Unmarshal(r.stdout.Bytes(), &doc)
	want := []struct {
		text     string
		value    float64
		grounded bool
	}{{"80,000", 80000, true}, {"100,000", 100000, true}, {"270,000", 270000, true}, {"33.3%", 0.333, false}}
	if len(doc.Numbers) != len(want) {
		t.Fatalf("numbers %+v, want %d of them", doc.Numbers, len(want))
	}
	for i, w := range want {
		n := doc.Numbers[i]
		if n.Text != w.text || n.Value != w.value || n.Grounded != w.grounded {
			t.Errorf("number %d: %+v, want %+v", i, n, w)
		}
		if w.grounded && (n.Cell == nil || *n.Cell != 1 || n.Source == nil) {
			t.Errorf("number %d (%s): cell %v source %v, want cell 1 and the output it matched", i, n.Text, n.Cell, n.Source)
		}
		if !w.grounded && (n.Cell != nil || n.Source != nil) {
			t.Errorf("number %d (%s): cell and source should be null", i, n.Text)
		}
	}
	if s := doc.Numbers[2].Source; s == nil || !strings.Contains(*s, "total 270,000") {
		t.Errorf("270,000 should be grounded in the printed line, got %v", s)
	}
	if doc.Unverified != 1 {
		t.Errorf("unverified %d, want 1", doc.Unverified)
	}
	// The session record keeps the answer's numbers for resume and export.
	rec, err := os.ReadFile(filepath.Join(doc.OutputDir, "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var kept bool
	for _, line := range strings.Split(string(rec), "\n") {
		if strings.Contains(line, `"kind":"answer"`) {
			kept = strings.Contains(line, `"numbers":[{"text":"80,000","value":80000,"grounded":true,"cell":1`) &&
				strings.Contains(line, `{"text":"33.3%","value":0.333,"grounded":false,"cell":null,"source":null`)
		}
	}
	if !kept {
		t.Errorf("the record's answer does not keep the numbers:\n%s", rec)
	}
	if sys := srv.ChatRequests()[0].System(); !strings.Contains(sys, "checked against the outputs of your cells") {
		t.Errorf("the system prompt does not say numbers are checked:\n%s", sys)
	}
}

// Plain -p: the answer on stdout, one line naming the unverified numbers
// on stderr after it; --verify strict prints the same and exits 1.
func TestUnverifiedLineAndStrict(t *testing.T) {
	sandboxtest.Engine(t)
	data := writeSales(t)
	for _, strict := range []bool{false, true} {
		srv := openaitest.New(t, openaitest.ToolCalls(salesCode), openaitest.Text(salesDraft))
		args := []string{"-p", "revenue by region", data}
		want := 0
		if strict {
			args, want = append(args, "--verify", "strict"), 1
		}
		r := newRun(t, srv.URL, args...)
		if code := r.exec(2 * time.Minute); code != want {
			t.Fatalf("strict=%v: exit %d, want %d\n%s", strict, code, want, r.stderr.String())
		}
		if !strings.Contains(r.stdout.String(), "West is 33.3% of the total") {
			t.Errorf("strict=%v: the answer is not on stdout:\n%s", strict, r.stdout.String())
		}
		line := "unverified: 33.3% (1 number of the answer in no cell's output)"
		if n := strings.Count(r.stderr.String(), line); n != 1 {
			t.Errorf("strict=%v: stderr has the line %d times, want once:\n%s", strict, n, r.stderr.String())
		}
		if got := strings.Contains(r.stderr.String(), "verify strict: 1 of the answer's numbers"); got != strict {
			t.Errorf("strict=%v: the strict failure said=%v:\n%s", strict, got, r.stderr.String())
		}
	}
	// All grounded: no line.
	srv := openaitest.New(t, openaitest.ToolCalls(salesCode), openaitest.Text("The total is 270,000."))
	r := newRun(t, srv.URL, "-p", "revenue by region", "--verify", "strict", data)
	if code := r.exec(2 * time.Minute); code != 0 || strings.Contains(r.stderr.String(), "unverified") {
		t.Errorf("a grounded answer: exit %d, stderr:\n%s", code, r.stderr.String())
	}
}

// --verify ask: one follow-up names the unverified numbers; the model
// computes one and still invents another, which stays marked; no second
// follow-up is sent.
func TestVerifyAskFollowsUpOnce(t *testing.T) {
	sandboxtest.Engine(t)
	srv := openaitest.New(t,
		openaitest.ToolCalls(salesCode),
		openaitest.Text(salesDraft),
		openaitest.ToolCalls(`print(f"west share {90000/270000:.1%}")`),
		openaitest.Text("North had 80,000 and South 100,000, a total of 270,000; West is 33.3% of the total and grew 5%."))
	r := newRun(t, srv.URL, "-p", "revenue by region", "--json", "--verify", "ask", writeSales(t))
	if code := r.exec(2 * time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr.String())
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4 (question, draft, follow-up's cell, answer)", len(reqs))
	}
	notes := 0
	for _, m := range reqs[3].Messages() {
		if strings.Contains(m.Content, "[quarry] These numbers in your answer are not in the output of any cell: 33.3%.") {
			notes++
		}
	}
	if notes != 1 {
		t.Errorf("the follow-up naming 33.3%% was sent %d times, want once; last request:\n%s", notes, reqs[3].Body)
	}
	var doc numbersDoc
	if err := json.Unmarshal(r.stdout.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(doc.Answer, "grew 5%.") {
		t.Errorf("the answer is not the revised one: %q", doc.Answer)
	}
	var unverified []string
	for _, n := range doc.Numbers {
		if !n.Grounded {
			unverified = append(unverified, n.Text)
		} else if n.Text == "33.3%" && (n.Cell == nil || *n.Cell != 2) {
			t.Errorf("33.3%% should be grounded in cell 2, got %v", n.Cell)
		}
	}
	if doc.Unverified != 1 || len(unverified) != 1 || unverified[0] != "5%" {
		t.Errorf("unverified %d %q, want [5%%]", doc.Unverified, unverified)
	}
	if len(doc.Warnings) != 1 || !strings.Contains(doc.Warnings[0], "33.3%") {
		t.Errorf("warnings %q should say the model was asked again about 33.3%%", doc.Warnings)
	}
}

// The first answer quarry shows marks none of its own numbers: every
// number of the demo's report (the profit and each material line, signed
// amounts and percentages as the second cell printed them) is grounded in
// the cell it came from.
func TestDemoNumbersAllGrounded(t *testing.T) {
	sandboxtest.Engine(t)
	out := filepath.Join(t.TempDir(), "demo")
	r := newRun(t, "", "demo", "-p", "--json", "--output-dir", out).withoutModel().inHome(t.TempDir())
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr.String())
	}
	var doc numbersDoc
	if err := json.Unmarshal(r.stdout.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout.String())
	}
	if len(doc.Numbers) < 17 {
		t.Fatalf("%d numbers checked, want the report's 17:\n%s", len(doc.Numbers), doc.Answer)
	}
	for _, n := range doc.Numbers {
		if !n.Grounded || n.Cell == nil || n.Source == nil {
			t.Errorf("%q is not grounded in a cell: %+v", n.Text, n)
		}
	}
	if doc.Unverified != 0 {
		t.Errorf("unverified %d, want 0", doc.Unverified)
	}
}

package session

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/demo"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/ground"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// quarry's own scripted answers, run for real: the demo and the scenarios
// of the repository's tests whose model (openaitest, agent.Script) quotes
// what the cells printed, each run in the sandbox as its test runs it. What
// each answer is checked against (the sources, as the session collects
// them) is kept in ground/testdata/scripted.json, the second test set of
// package ground (TestScriptedRates), which stays free of I/O. This test
// fails when the sandbox's outputs changed since; -update rewrites it.

const scriptedFixture = "../ground/testdata/scripted.json"

func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite "+scriptedFixture)
	}
}

// scriptedAnswer is one answer of the set, in the fixture's form.
type scriptedAnswer struct {
	Name     string          `json:"name"`
	Origin   string          `json:"origin"` // the test it comes from
	Question string          `json:"question"`
	Answer   string          `json:"answer"`
	Own      []string        `json:"own,omitempty"` // numbers the model worked out itself: no cell printed them
	Sources  []ground.Source `json:"sources"`
}

// scriptedQuestion is a question of a scenario: the model's replies up to
// its answer, and the answer, built from the last cell's result as the
// model read it.
type scriptedQuestion struct {
	question string
	replies  []openaitest.Reply
	answer   func(last string) string
	own      []string
}

type scriptedScenario struct {
	name, origin string
	files        map[string]string
	demo         bool   // the demo's files and script
	verify       string // the verify setting; empty: mark
	questions    []scriptedQuestion
}

const (
	scriptSales    = "region,revenue\nNorth,80000\nSouth,100000\nWest,90000\n"
	scriptSalesPy  = "import pandas as pd\ndf = pd.read_csv('/data/sales.csv')\nprint(f\"total {df.revenue.sum():,}\")\ndf.set_index('region').revenue"
	scriptQ1       = "department,budget,actual\nSales,100000,112500\nMarketing,50000,47250\nEngineering,200000,198000\n"
	scriptQ2       = "department,budget,actual\nSales,110000,104000\nMarketing,55000,61300\nEngineering,210000,225500\n"
	scriptPrivate  = "booked,client,region,amount\n2031-07-14,Capybara Holdings,Zanzibar-Nord,7713.41\n2031-08-02,Quixotic Süd GmbH,Yellowknife-Ost,2208.09\n2031-09-27,Umbrella Widgets,Xanadu-West,515.37\n"
	scriptVariance = `import pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
q1 = pd.read_csv("/data/q1.csv").assign(quarter="Q1")
q2 = pd.read_csv("/data/q2.csv").assign(quarter="Q2")
df = pd.concat([q1, q2])
df["variance"] = df["actual"] - df["budget"]
pivot = df.pivot_table(index="department", columns="quarter", values="variance", aggfunc="sum")
pivot.to_csv("/output/variance.csv")
ax = pivot.plot(kind="bar", title="Variance vs budget")
ax.figure.savefig("/output/variance.png")
for dep, row in pivot.iterrows():
    print(f"VARIANCE {dep}: Q1 {row['Q1']:+.0f}, Q2 {row['Q2']:+.0f}")
print(f"VARIANCE TOTAL: Q1 {pivot['Q1'].sum():+.0f}, Q2 {pivot['Q2'].sum():+.0f}")
`
	scriptRevenue = "import pandas as pd\nimport matplotlib\nmatplotlib.use(\"Agg\")\nimport matplotlib.pyplot as plt\ndf = pd.read_csv(\"/data/sales.csv\")\nby = df.groupby(\"region\", as_index=False)[\"revenue\"].sum()\nby.plot.bar(x=\"region\", y=\"revenue\")\nby"
)

var scriptVarianceLine = regexp.MustCompile(`VARIANCE ([A-Za-z]+): Q1 ([+-]\d+), Q2 ([+-]\d+)`)

func quoted(prefix string) func(string) string {
	return func(last string) string { return prefix + last }
}

func stdoutOf(last string) string { return strings.TrimSpace(strings.TrimPrefix(last, "[stdout]\n")) }

func fixed(text string) func(string) string { return func(string) string { return text } }

var scriptedScenarios = []scriptedScenario{
	{name: "demo", origin: "demo/script.go (quarry demo), e2e/demo_test.go TestDemoHeadless", demo: true, questions: []scriptedQuestion{
		{question: demo.Question},
		{question: "and by line?"},
	}},
	{name: "sales draft", origin: "e2e/ground_test.go TestNumbersJSONContract", files: map[string]string{"sales.csv": scriptSales}, questions: []scriptedQuestion{
		{question: "revenue by region", replies: []openaitest.Reply{openaitest.ToolCalls(scriptSalesPy)},
			answer: fixed("North had 80,000 and South 100,000, a total of 270,000; West is 33.3% of the total."), own: []string{"33.3%"}},
	}},
	{name: "sales total", origin: "e2e/ground_test.go TestUnverifiedLineAndStrict", files: map[string]string{"sales.csv": scriptSales}, questions: []scriptedQuestion{
		{question: "revenue by region", replies: []openaitest.Reply{openaitest.ToolCalls(scriptSalesPy)}, answer: fixed("The total is 270,000.")},
	}},
	{name: "verify ask", origin: "e2e/ground_test.go TestVerifyAskFollowsUpOnce", verify: "ask", files: map[string]string{"sales.csv": scriptSales}, questions: []scriptedQuestion{
		{question: "revenue by region", replies: []openaitest.Reply{
			openaitest.ToolCalls(scriptSalesPy),
			openaitest.Text("North had 80,000 and South 100,000, a total of 270,000; West is 33.3% of the total."),
			openaitest.ToolCalls(`print(f"west share {90000/270000:.1%}")`)},
			answer: fixed("North had 80,000 and South 100,000, a total of 270,000; West is 33.3% of the total and grew 5%."), own: []string{"5%"}},
	}},
	{name: "variance report", origin: "e2e/headless_test.go answerFromTool, e2e/resume_test.go TestResumeAfterNormalExit",
		files: map[string]string{"q1.csv": scriptQ1, "q2.csv": scriptQ2}, questions: []scriptedQuestion{
			{question: "variance report by department, Q1 vs Q2", replies: []openaitest.Reply{openaitest.ToolCalls(scriptVariance)}, answer: func(last string) string {
				var b strings.Builder
				b.WriteString("## Variance report\n\n| Department | Q1 | Q2 |\n|---|---|---|\n")
				for _, m := range scriptVarianceLine.FindAllStringSubmatch(last, -1) {
					fmt.Fprintf(&b, "| %s | %s | %s |\n", m[1], m[2], m[3])
				}
				return b.String()
			}},
			{question: "and Sales only?", replies: []openaitest.Reply{openaitest.ToolCalls(`print("SALES", pivot.loc["Sales"].tolist())`)}, answer: quoted("Sales: ")},
		}},
	{name: "rows", origin: "e2e/headless_test.go TestPromptFromStdin", files: map[string]string{"q1.csv": scriptQ1}, questions: []scriptedQuestion{
		{question: "how many departments are in q1?", replies: []openaitest.Reply{openaitest.ToolCalls("import pandas as pd\nprint('ROWS', len(pd.read_csv('/data/q1.csv')))")},
			answer: func(last string) string { return "Answer: " + regexp.MustCompile(`ROWS \d+`).FindString(last) }},
	}},
	{name: "piped data", origin: "e2e/headless_test.go TestDataPipedOnStdin", files: map[string]string{"stdin.csv": scriptQ1}, questions: []scriptedQuestion{
		{question: "summarise the piped data", replies: []openaitest.Reply{openaitest.ToolCalls("import os, pandas as pd\nprint('FILES', sorted(os.listdir('/data')))\nprint('SUM', pd.read_csv('/data/stdin.csv')['actual'].sum())")},
			answer: func(last string) string {
				return regexp.MustCompile(`FILES \[.*?\]`).FindString(last) + " " + regexp.MustCompile(`SUM \d+`).FindString(last)
			}},
	}},
	{name: "aggregates", origin: "e2e/model_test.go TestShareSchemaSendsNoValues", files: map[string]string{"private.csv": scriptPrivate}, questions: []scriptedQuestion{
		{question: "total amount?", replies: []openaitest.Reply{openaitest.ToolCalls("import pandas as pd\ndf = pd.read_csv(\"/data/private.csv\")\nprint(f\"SUM={df['amount'].sum():.2f} N={len(df)} REGIONS={df['region'].nunique()}\")")},
			answer: func(last string) string { return "Aggregates: " + strings.TrimSpace(last) }},
	}},
	{name: "no cell", origin: "e2e/model_test.go TestAnswerWithoutTheCellItNeeded", files: map[string]string{"q1.csv": scriptQ1}, questions: []scriptedQuestion{
		{question: "variance", replies: []openaitest.Reply{openaitest.Call("", openaitest.ToolCall{Name: "pythonpython", Arguments: `{"code":"print(1)"}`})},
			answer: fixed("The variance is about 7,000."), own: []string{"7,000"}},
	}},
	{name: "pipe", origin: "e2e/pipe_test.go TestClosedPipeLeavesNoContainer", questions: []scriptedQuestion{
		{question: "what is six times seven?", replies: []openaitest.Reply{openaitest.ToolCalls("print(6 * 7)")}, answer: fixed("The answer is 42.")},
	}},
	{name: "resume after kill", origin: "e2e/resume_test.go TestResumeAfterKill9", files: map[string]string{"q1.csv": scriptQ1}, questions: []scriptedQuestion{
		{question: "set x", replies: []openaitest.Reply{openaitest.ToolCalls("x = 41\nprint('x set')")}, answer: fixed("x is set.")},
		{question: "what is x+1?", replies: []openaitest.Reply{openaitest.ToolCalls("print('x is', x + 1)")}, answer: quoted("")},
	}},
	{name: "resume with a mapped file", origin: "e2e/resume_test.go TestResumeWithChangedInput", files: map[string]string{"q1.csv": scriptQ1}, questions: []scriptedQuestion{
		{question: "rows?", replies: []openaitest.Reply{openaitest.ToolCalls("import pandas as pd\ndf = pd.read_csv('/data/q1.csv')\nprint(len(df))")}, answer: fixed("three")},
		{question: "rows now?", replies: []openaitest.Reply{openaitest.ToolCalls("print(len(df), len(pd.read_csv('/data/q1.csv')))")}, answer: quoted("rows: ")},
	}},
	{name: "chat", origin: "e2e/chat_test.go TestChatTUIEndToEnd, e2e/chat_resume_test.go TestChatTUIResume",
		files: map[string]string{"sales.csv": "region,revenue,units\nNorth,1200.5,10\nSouth,980.25,32\nEast,15000,7\nWest,77.7,120\nEast,300,3\n"}, questions: []scriptedQuestion{
			{question: "What is the revenue by region?", replies: []openaitest.Reply{openaitest.ToolCalls(scriptRevenue)},
				answer: func(last string) string { return "Still here: " + stdoutOf(last) }},
			{question: "still there?", replies: []openaitest.Reply{openaitest.ToolCalls("print('rows', len(df), 'groups', len(by))")},
				answer: func(last string) string { return "Still here: " + stdoutOf(last) }},
		}},
	{name: "resumed session", origin: "session/resume_test.go recordTwoTurns", files: map[string]string{"q1.csv": "region,revenue\nNorth,80000\nSouth,100000\nWest,90000\n"}, questions: []scriptedQuestion{
		{question: "total revenue?", replies: []openaitest.Reply{
			openaitest.ToolCalls("import pandas as pd\ndf = pd.read_csv('/data/q1.csv')\ntotal = int(df.revenue.sum())\ndf.plot()\ndf.to_csv('copy.csv')\ntotal"),
			openaitest.ToolCalls("undefined_name")}, answer: fixed("The total is 270000.")},
		{question: "doubled?", replies: []openaitest.Reply{openaitest.ToolCalls("doubled = total * 2\nprint(doubled)")}, answer: fixed("Doubled: 540000.")},
	}},
	{name: "print", origin: "agent/wire_test.go TestFinishReasonsThatDisagree", questions: []scriptedQuestion{
		{question: "print three", replies: []openaitest.Reply{openaitest.ToolCalls("print(3)")}, answer: fixed("It is 3.")}}},
	{name: "parallel calls", origin: "agent/loop_test.go TestParallelToolCallsAnsweredInOrder", questions: []scriptedQuestion{
		{question: "sum", replies: []openaitest.Reply{openaitest.ToolCalls("a = 1", "b = 2", "print(a + b)")}, answer: fixed("3")}}},
	{name: "markdown", origin: "agent/markdown_test.go TestAutoFallsBackOnFencedCode, TestAutoFallsBackWhenServerRejectsTools", questions: []scriptedQuestion{
		{question: "one plus one", replies: []openaitest.Reply{openaitest.ToolCalls("print(1 + 1)")}, answer: fixed("The answer is **2**.")},
		{question: "forty-two", replies: []openaitest.Reply{openaitest.ToolCalls("x = 41 + 1\nprint(x)")}, answer: fixed("42")}}},
	{name: "follow-up", origin: "agent/followup_test.go TestFollowUpContinuesTheQuestion", questions: []scriptedQuestion{
		{question: "what is a?", replies: []openaitest.Reply{openaitest.ToolCalls("a = 1"), openaitest.ToolCalls("print(a)")}, answer: fixed("a is 1.")}}},
	{name: "wrong tool", origin: "agent/wire_test.go TestWrongToolIsNeverASilentSuccess", questions: []scriptedQuestion{
		{question: "the total?", replies: []openaitest.Reply{openaitest.Call("", openaitest.ToolCall{Name: "search", Arguments: `{"query":"total"}`})},
			answer: fixed("The total is probably 12."), own: []string{"12"}}}},
}

// TestScriptedAnswersFixture runs the scenarios and compares what their
// answers are checked against with the fixture.
func TestScriptedAnswersFixture(t *testing.T) {
	e := sandboxtest.Engine(t)
	var got []scriptedAnswer
	for _, sc := range scriptedScenarios {
		got = append(got, runScripted(t, e, sc)...)
	}
	b, err := json.MarshalIndent(got, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(scriptedFixture, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(scriptedFixture)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("the scripted answers or their cells' outputs changed since %s was written: check the difference, then go test ./session -run TestScriptedAnswersFixture -update", scriptedFixture)
	}
}

// demoResumed is the demo's script, then a follow-up on the demo's
// variance table v, as the test that resumes the demo asks it: one cell,
// and an answer quoting its table as a Markdown table whose "variance"
// column sits beside "variance_pct" (a name it is a prefix of).
type demoResumed struct{ demo demo.Script }

const demoByLine = `v.set_index("line")[["variance", "variance_pct"]]`

func (d *demoResumed) Reply(t agent.ScriptTurn) agent.ScriptReply {
	switch {
	case t.Prompt == demo.Question:
		return d.demo.Reply(t)
	case len(t.Results) == 0:
		return agent.ScriptReply{Code: demoByLine}
	}
	return agent.ScriptReply{Text: byLineAnswer(t.Results[len(t.Results)-1])}
}

// byLineAnswer writes the rows of demoByLine's table as the model read
// them ("Product sales | 21500.0 | 6.825396825") the way a model quotes
// them: whole money with a sign and separators, percent to one decimal.
func byLineAnswer(result string) string {
	var b strings.Builder
	b.WriteString("By line, the variance against budget and as a share of it:\n\n| line | variance | variance_pct |\n|---|---:|---:|\n")
	largest, largestVar := "", 0.0
	for _, l := range strings.Split(result, "\n") {
		f := strings.Split(l, " | ")
		if len(f) != 3 {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(f[1]), 64)
		if err != nil {
			continue
		}
		pct := "–"
		if p, err := strconv.ParseFloat(strings.TrimSpace(f[2]), 64); err == nil && !math.IsNaN(p) {
			pct = fmt.Sprintf("%+.1f", p)
		}
		line := strings.TrimSpace(f[0])
		fmt.Fprintf(&b, "| %s | %s | %s |\n", line, signedThousands(v), pct)
		if line != "Total" && math.Abs(v) > math.Abs(largestVar) {
			largest, largestVar = line, v
		}
	}
	fmt.Fprintf(&b, "\n%s moves most, %s.\n", largest, signedThousands(largestVar))
	return b.String()
}

// signedThousands is v rounded to a whole number, with its sign and
// thousands separators: "+21,500".
func signedThousands(v float64) string {
	s := strconv.FormatInt(int64(math.Round(math.Abs(v))), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if v < 0 {
		return "-" + s
	}
	return "+" + s
}

func runScripted(t *testing.T, e *engine.Engine, sc scriptedScenario) []scriptedAnswer {
	t.Helper()
	srv := openaitest.New(t)
	dir := t.TempDir()
	cfg := testConfig(srv.URL, t.TempDir())
	cfg.Verify = sc.verify
	opts := Options{Config: cfg, Engine: e}
	if sc.demo {
		opts.Agent = func(c *agent.Config) { c.Script = &demoResumed{} }
	}
	s := New(opts)
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatalf("%s: start: %v", sc.name, err)
	}
	var paths []string
	for name, content := range sc.files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	slices.Sort(paths)
	if sc.demo {
		if err := demo.WriteFiles(s.OutputDir()); err != nil {
			t.Fatal(err)
		}
		paths = demo.Paths(s.OutputDir())
	}
	for _, p := range paths {
		if _, err := s.Attach(ctx, p); err != nil {
			t.Fatalf("%s: attach %s: %v", sc.name, p, err)
		}
	}
	var out []scriptedAnswer
	for i, q := range sc.questions {
		srv.Push(q.replies...)
		if answer := q.answer; answer != nil {
			srv.Handle(func(r openaitest.Request) openaitest.Reply { return openaitest.Text(answer(r.LastToolResult())) })
		}
		text, err := s.Ask(ctx, q.question, nil)
		if err != nil {
			t.Fatalf("%s: %q: %v", sc.name, q.question, err)
		}
		out = append(out, scriptedAnswer{Name: fmt.Sprintf("%s %d", sc.name, i+1), Origin: sc.origin, Question: q.question,
			Answer: text, Own: q.own, Sources: s.groundSources()})
	}
	return out
}

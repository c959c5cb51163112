package e2e

// End-to-end tests of the real quarry binary: built once with `go build`,
// run against the real Docker engine and sandbox image, with the model faked
// at the HTTP level by agent/openaitest.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/hosttest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// Budget versus actual, by department, for two quarters.
const q1CSV = `department,budget,actual
Sales,100000,112500
Marketing,50000,47250
Engineering,200000,198000
`

const q2CSV = `department,budget,actual
Sales,110000,104000
Marketing,55000,61300
Engineering,210000,225500
`

// variancePivot is the variance per department and quarter of q1.csv and
// q2.csv, as a pivot table.
const variancePivot = `import pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
q1 = pd.read_csv("/data/q1.csv").assign(quarter="Q1")
q2 = pd.read_csv("/data/q2.csv").assign(quarter="Q2")
df = pd.concat([q1, q2])
df["variance"] = df["actual"] - df["budget"]
pivot = df.pivot_table(index="department", columns="quarter", values="variance", aggfunc="sum")
`

// varianceCode is what the fake model runs: the pivot, a bar chart and a
// CSV in /output.
const varianceCode = variancePivot + `pivot.to_csv("/output/variance.csv")
ax = pivot.plot(kind="bar", title="Variance vs budget")
ax.figure.savefig("/output/variance.png")
for dep, row in pivot.iterrows():
    print(f"VARIANCE {dep}: Q1 {row['Q1']:+.0f}, Q2 {row['Q2']:+.0f}")
print(f"VARIANCE TOTAL: Q1 {pivot['Q1'].sum():+.0f}, Q2 {pivot['Q2'].sum():+.0f}")
`

var varianceLine = regexp.MustCompile(`VARIANCE ([A-Za-z]+): Q1 ([+-]\d+), Q2 ([+-]\d+)`)

// answerFromTool builds the final answer from the numbers the sandbox
// printed, as a real model would: the test then proves they went through.
func answerFromTool(req openaitest.Request) openaitest.Reply {
	var b strings.Builder
	b.WriteString("## Variance report\n\n| Department | Q1 | Q2 |\n|---|---|---|\n")
	for _, m := range varianceLine.FindAllStringSubmatch(req.LastToolResult(), -1) {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", m[1], m[2], m[3])
	}
	return openaitest.Text(b.String())
}

func writeQuarters(t testing.TB, dir string) (q1, q2 string) {
	t.Helper()
	q1, q2 = filepath.Join(dir, "q1.csv"), filepath.Join(dir, "q2.csv")
	for p, data := range map[string]string{q1: q1CSV, q2: q2CSV} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return q1, q2
}

var wantRows = []string{
	"| Engineering | -2000 | +15500 |",
	"| Marketing | -2750 | +6300 |",
	"| Sales | +12500 | -6000 |",
	"| TOTAL | +7750 | +15800 |",
}

func TestVarianceReportMarkdown(t *testing.T) {
	sandboxtest.Engine(t)
	srv := openaitest.New(t, openaitest.ToolCalls(varianceCode))
	srv.Handle(answerFromTool)
	data := t.TempDir()
	q1, q2 := writeQuarters(t, data)
	out := filepath.Join(t.TempDir(), "report")

	r := newRun(t, srv.URL, "--prompt", "variance report by department, Q1 vs Q2", q1, q2, "--output-dir", out)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("exit %d, want 0; stdout:\n%s", code, r.stdout.String())
	}
	stdout := r.stdout.String()
	for _, row := range wantRows {
		if !strings.Contains(stdout, row) {
			t.Errorf("answer lacks %q:\n%s", row, stdout)
		}
	}
	png, csv := filepath.Join(out, "variance.png"), filepath.Join(out, "variance.csv")
	for _, p := range []string{png, csv} {
		if !strings.Contains(stdout, p) {
			t.Errorf("answer does not list %s:\n%s", p, stdout)
		}
	}
	if b, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("chart %s: not a PNG (err %v)", png, err)
	}
	if b, err := os.ReadFile(csv); err != nil || !strings.Contains(string(b), "Sales,12500,-6000") {
		t.Errorf("variance CSV %s = %q, %v", csv, b, err)
	}
	tr, err := os.ReadFile(filepath.Join(out, "session.jsonl"))
	if err != nil {
		t.Errorf("session record: %v", err)
	} else if strings.Contains(string(tr), testKey) || !strings.Contains(string(tr), "variance report by department") {
		t.Errorf("session record leaks the key or lacks the prompt:\n%s", tr)
	}
	if strings.Contains(r.stderr.String(), testKey) || strings.Contains(stdout, testKey) {
		t.Error("the API key was printed")
	}
	if !strings.Contains(r.stderr.String(), "cell 1 done") {
		t.Errorf("stderr has no progress line for the cell:\n%s", r.stderr.String())
	}
	for _, req := range srv.ChatRequests() {
		if req.Header.Get("Authorization") != "Bearer "+testKey {
			t.Errorf("request %d: wrong Authorization header", req.N)
		}
	}
	requireNoContainers(t, r.cmd.Process.Pid)
}

func TestVarianceReportJSON(t *testing.T) {
	sandboxtest.Engine(t)
	srv := openaitest.New(t, openaitest.ToolCalls(varianceCode))
	srv.Handle(answerFromTool)
	q1, q2 := writeQuarters(t, t.TempDir())

	r := newRun(t, srv.URL, "-p", "variance report", "--json", "--quiet", q1, q2)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}
	if r.stderr.String() != "" {
		t.Errorf("--quiet printed on stderr:\n%s", r.stderr.String())
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(r.stdout.Bytes(), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, r.stdout.String())
	}
	for _, k := range []string{"answer", "cells", "files", "usage", "model", "session"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	var res struct {
		Answer string
		Cells  []map[string]json.RawMessage
		Files  []string
		Usage  struct {
			PromptTokens     int     `json:"prompt_tokens"`
			CompletionTokens int     `json:"completion_tokens"`
			CostUSD          float64 `json:"cost_usd"`
		}
		Model, Session string
	}
	if err := json.Unmarshal(r.stdout.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	for _, row := range wantRows {
		if !strings.Contains(res.Answer, row) {
			t.Errorf("answer lacks %q", row)
		}
	}
	if len(res.Cells) != 1 {
		t.Fatalf("cells = %d, want 1", len(res.Cells))
	}
	for _, k := range []string{"code", "stdout", "stderr", "value", "error", "figures", "files", "duration_ms"} {
		if _, ok := res.Cells[0][k]; !ok {
			t.Errorf("cell lacks %q", k)
		}
	}
	var code, stdout string
	json.Unmarshal(res.Cells[0]["code"], &code)
	json.Unmarshal(res.Cells[0]["stdout"], &stdout)
	if code != varianceCode || !strings.Contains(stdout, "VARIANCE TOTAL: Q1 +7750, Q2 +15800") {
		t.Errorf("cell code/stdout wrong: %q / %q", code, stdout)
	}
	if string(res.Cells[0]["error"]) != "null" {
		t.Errorf("cell error = %s, want null", res.Cells[0]["error"])
	}
	var names []string
	for _, f := range res.Files {
		if !filepath.IsAbs(f) {
			t.Errorf("file %s is not a host path", f)
		}
		if _, err := os.Stat(f); err != nil {
			t.Errorf("listed file: %v", err)
		}
		names = append(names, filepath.Base(f))
	}
	if got := strings.Join(names, ","); !strings.Contains(got, "variance.png") || !strings.Contains(got, "variance.csv") {
		t.Errorf("files = %v", res.Files)
	}
	// The default output folder: ./quarry-output/<session> in the working directory.
	want := filepath.Join(r.dir, "quarry-output", res.Session) + string(filepath.Separator)
	for _, f := range res.Files {
		if !strings.HasPrefix(f, want) {
			t.Errorf("file %s is not in the default folder %s", f, want)
		}
	}
	if res.Usage.PromptTokens <= 0 || res.Usage.CompletionTokens <= 0 {
		t.Errorf("usage = %+v", res.Usage)
	}
	if res.Model != "gpt-fake" || res.Session == "" {
		t.Errorf("model %q session %q", res.Model, res.Session)
	}
	requireNoContainers(t, r.cmd.Process.Pid)
}

func TestPromptFromStdin(t *testing.T) {
	sandboxtest.Engine(t)
	srv := openaitest.New(t, openaitest.ToolCalls("import pandas as pd\nprint('ROWS', len(pd.read_csv('/data/q1.csv')))"))
	srv.Handle(func(req openaitest.Request) openaitest.Reply {
		return openaitest.Text("Answer: " + regexp.MustCompile(`ROWS \d+`).FindString(req.LastToolResult()))
	})
	q1, _ := writeQuarters(t, t.TempDir())
	r := newRun(t, srv.URL, "-p", "-", q1, "--model", "gpt-fake-mini") // the flag beats QUARRY_MODEL
	r.stdin = strings.NewReader("  how many departments are in q1?\n")
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(r.stdout.String(), "Answer: ROWS 3") {
		t.Errorf("stdout = %q", r.stdout.String())
	}
	reqs := srv.ChatRequests()
	if len(reqs) == 0 || !strings.Contains(reqs[0].LastUser(), "how many departments are in q1?") {
		t.Fatalf("the prompt read from stdin did not reach the model")
	}
	if m := reqs[0].Chat.Model; m != "gpt-fake-mini" {
		t.Errorf("model %q, want the --model flag's gpt-fake-mini", m)
	}
}

func TestDataPipedOnStdin(t *testing.T) {
	sandboxtest.Engine(t)
	srv := openaitest.New(t, openaitest.ToolCalls(
		"import os, pandas as pd\nprint('FILES', sorted(os.listdir('/data')))\nprint('SUM', pd.read_csv('/data/stdin.csv')['actual'].sum())"))
	srv.Handle(func(req openaitest.Request) openaitest.Reply {
		res := req.LastToolResult()
		// The model's text is untrusted: a clipboard write and a title change must not get through.
		return openaitest.Text(regexp.MustCompile(`FILES \[.*?\]`).FindString(res) + " " + regexp.MustCompile(`SUM \d+`).FindString(res) +
			"\x1b]52;c;cHduZWQ=\x07\x1b]0;owned\x07")
	})
	r := newRun(t, srv.URL, "-p", "summarise the piped data")
	r.stdin = strings.NewReader(q1CSV)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("exit %d", code)
	}
	got := r.stdout.String()
	if !strings.Contains(got, "FILES ['stdin.csv']") || !strings.Contains(got, "SUM 357750") {
		t.Errorf("stdout = %q", got)
	}
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("terminal control sequences reached stdout: %q", got)
	}
}

func TestSignalMidCellExit130(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			sandboxtest.Engine(t)
			srv := openaitest.New(t, openaitest.ToolCalls(
				"open('/output/partial.txt', 'w').write('kept')\nimport time\nprint('sleeping', flush=True)\ntime.sleep(600)"))
			srv.Handle(func(openaitest.Request) openaitest.Reply { return openaitest.Text("should not be reached") })
			q1, _ := writeQuarters(t, t.TempDir())
			out := filepath.Join(t.TempDir(), "out")
			r := newRun(t, srv.URL, "-p", "sleep", q1, "--output-dir", out)
			r.start()
			waitFor(t, &r.stderr, "cell 1 running", 3*time.Minute)
			waitForSandboxFile(t, r.cmd.Process.Pid, "/output/partial.txt", time.Minute)
			time.Sleep(500 * time.Millisecond) // inside time.sleep
			r.cmd.Process.Signal(sig)
			code := r.wait(time.Minute)
			t.Logf("stderr:\n%s", r.stderr.String())
			if code != 130 {
				t.Fatalf("exit %d, want 130", code)
			}
			if !strings.Contains(r.stderr.String(), "interrupted") {
				t.Errorf("stderr does not say interrupted")
			}
			if b, err := os.ReadFile(filepath.Join(out, "partial.txt")); err != nil || string(b) != "kept" {
				t.Errorf("partial result: %q, %v", b, err)
			}
			if r.stdout.Len() != 0 {
				t.Errorf("stdout not empty: %q", r.stdout.String())
			}
			requireNoContainers(t, r.cmd.Process.Pid)
		})
	}
}

// SIGINT while the sandbox is still starting (its container's create on
// its way to the engine, which carries it out): exit 130, nothing left.
func TestSignalDuringStartExit130(t *testing.T) {
	sandboxtest.Engine(t)
	srv := openaitest.New(t)
	q1, _ := writeQuarters(t, t.TempDir())
	const hold = time.Second
	host, held := sandboxtest.HoldingProxy(t, hold)
	r := newRun(t, srv.URL, "-p", "x", q1).withEngine(host)
	r.start()
	heldAt := waitForHeld(t, held, sandboxContainer, time.Minute)
	r.cmd.Process.Signal(syscall.SIGINT)
	code := r.wait(time.Minute)
	t.Logf("stderr:\n%s", r.stderr.String())
	if code != 130 {
		t.Fatalf("exit %d, want 130", code)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the model server got %d requests", n)
	}
	time.Sleep(time.Until(heldAt.Add(hold + 500*time.Millisecond))) // the engine has done the create
	requireNoContainers(t, r.cmd.Process.Pid)
}

// --timeout limits each cell; the model hears of the timeout and answers.
func TestTimeoutFlag(t *testing.T) {
	sandboxtest.Engine(t)
	srv := openaitest.New(t, openaitest.ToolCalls("import time\ntime.sleep(60)"))
	srv.Handle(func(req openaitest.Request) openaitest.Reply {
		return openaitest.Text("the cell took too long")
	})
	q1, _ := writeQuarters(t, t.TempDir())
	r := newRun(t, srv.URL, "-p", "slow", q1, "--timeout", "2s", "--json")
	if code := r.exec(2 * time.Minute); code != 0 {
		t.Fatalf("exit %d", code)
	}
	var res struct {
		Answer string
		Cells  []struct {
			Error *struct{ Kind string }
		}
	}
	if err := json.Unmarshal(r.stdout.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 1 || res.Cells[0].Error == nil || res.Cells[0].Error.Kind != "timeout" {
		t.Fatalf("cells = %+v, want one that timed out", res.Cells)
	}
	if res.Answer != "the cell took too long" {
		t.Errorf("answer = %q", res.Answer)
	}
}

// On a terminal (a pty from script(1)) progress is animated and the answer
// is rendered by glamour, still carrying the numbers.
func TestTerminalOutput(t *testing.T) {
	hosttest.Tool(t, "script")
	sandboxtest.Engine(t)
	srv := openaitest.New(t, openaitest.ToolCalls(varianceCode))
	srv.Handle(answerFromTool)
	q1, q2 := writeQuarters(t, t.TempDir())
	bin := quarryBin(t)
	r := newRun(t, srv.URL)
	var env []string
	for _, kv := range r.env {
		if kv != "NO_COLOR=1" {
			env = append(env, kv)
		}
	}
	r.env = append(env, "TERM=xterm-256color", "COLUMNS=100")
	line := fmt.Sprintf("%s -p 'variance report' %s %s", bin, q1, q2)
	r.args = []string{"-qfec", line, "/dev/null"}
	r.cmd = exec.Command("script", r.args...)
	r.cmd.Env, r.cmd.Dir = r.env, r.dir
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(3 * time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stdout.String())
	}
	out := r.stdout.String()
	if !strings.Contains(out, "\r\x1b[2K") || !strings.ContainsAny(out, strings.Join([]string{"⠋", "⠙", "⠹", "⠸"}, "")) {
		t.Errorf("no animated progress on the terminal:\n%q", out)
	}
	if !regexp.MustCompile(`\x1b\[[0-9;]*m`).MatchString(out) {
		t.Errorf("answer not rendered with colour on the terminal")
	}
	for _, n := range []string{"Engineering", "+15500", "+12500", "-6000", "+7750"} {
		if !strings.Contains(out, n) {
			t.Errorf("rendered answer lacks %s", n)
		}
	}
}

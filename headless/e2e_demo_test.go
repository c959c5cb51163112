package headless_test

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// quarry demo -p with no key, no model server and no Ollama: exit 0, the
// report on standard output with its table, computed in the sandbox from
// the files the demo wrote into its session folder; nothing contacted.
func TestDemoHeadless(t *testing.T) {
	sandboxtest.Engine(t)
	watch, connections := listenerCounting(t)
	out := filepath.Join(t.TempDir(), "demo")
	r := newRun(t, "", "demo", "-p", "--output-dir", out).withoutModel()
	r.env = append(r.env, noNetworkEnv(watch)...)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("exit %d, want 0; stdout:\n%s", code, r.stdout.String())
	}
	stdout := r.stdout.String()
	for _, want := range append(demoRows(t, filepath.Join(out, "data")),
		"| department | q1 | q2 | change | change % |", "scripted", "OPENAI_API_KEY", "quarry config init",
		filepath.Join(out, "variance.csv"), filepath.Join(out, "figures", "cell2-1.png")) {
		if !strings.Contains(stdout, want) {
			t.Errorf("the answer lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(r.stderr.String(), "demo: scripted model, real sandbox") {
		t.Errorf("stderr does not say it is a demo:\n%s", r.stderr.String())
	}
	if n := connections(); n != 0 {
		t.Errorf("the demo made %d connections to a model server, proxy or Ollama", n)
	}
	rec, err := os.ReadFile(filepath.Join(out, "session.jsonl"))
	if err != nil || !strings.Contains(string(rec), `"scripted-demo"`) {
		t.Errorf("the session record does not name the scripted model (%v):\n%.400s", err, rec)
	}
	requireNoContainers(t, r.cmd.Process.Pid)

	// --json: the same answer, its two cells and the figure.
	out2 := filepath.Join(t.TempDir(), "demo")
	r = newRun(t, "", "demo", "-p", "--json", "--output-dir", out2).withoutModel()
	r.env = append(r.env, noNetworkEnv(watch)...)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("--json: exit %d", code)
	}
	var doc struct {
		Answer string
		Model  string
		Cells  []json.RawMessage
		Files  []string
	}
	if err := json.Unmarshal(r.stdout.Bytes(), &doc); err != nil {
		t.Fatalf("--json: %v\n%s", err, r.stdout.String())
	}
	if doc.Model != "scripted-demo" || len(doc.Cells) != 2 || !strings.Contains(doc.Answer, demoRows(t, filepath.Join(out2, "data"))[0]) {
		t.Errorf("--json: model %q, %d cells, answer:\n%s", doc.Model, len(doc.Cells), doc.Answer)
	}
}

// demoRows are lines the report must hold, computed here from the files
// the demo wrote: the total line and a Markdown row per department.
func demoRows(t *testing.T, dir string) []string {
	t.Helper()
	sums := [2]map[string]int{{}, {}}
	var totals [2]int
	for i, name := range []string{"budget_q1.csv", "budget_q2.csv"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("the demo's file: %v", err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil || len(rows) < 2 {
			t.Fatalf("%s: %v", name, err)
		}
		for _, r := range rows[1:] {
			n, err := strconv.Atoi(r[2])
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			sums[i][r[0]] += n
			totals[i] += n
		}
	}
	want := []string{fmt.Sprintf("Total: Q1 %s to Q2 %s", grouped(totals[0]), grouped(totals[1]))}
	var depts []string
	for d := range sums[0] {
		depts = append(depts, d)
	}
	sort.Strings(depts)
	for _, d := range depts {
		want = append(want, fmt.Sprintf("| %s | %s | %s | %s |", d, grouped(sums[0][d]), grouped(sums[1][d]), grouped(sums[1][d]-sums[0][d])))
	}
	return want
}

func grouped(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// listenerCounting is a loopback listener that counts the connections it
// is offered; it answers none.
func listenerCounting(t *testing.T) (string, func() int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return "http://" + ln.Addr().String(), func() int { return int(n.Load()) }
}

// noNetworkEnv sends every way out quarry has without a model setting to
// addr: the Ollama probe and, unless the engine itself is reached over
// TCP, the HTTP proxies.
func noNetworkEnv(addr string) []string {
	env := []string{"QUARRY_OLLAMA_HOST=" + addr}
	if h := os.Getenv("DOCKER_HOST"); h == "" || strings.HasPrefix(h, "unix://") {
		env = append(env, "HTTP_PROXY="+addr, "HTTPS_PROXY="+addr, "http_proxy="+addr, "https_proxy="+addr)
	}
	return env
}

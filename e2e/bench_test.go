package e2e

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// BenchmarkFirstRequest runs the real binary, `quarry -p QUESTION q1.csv
// q2.csv`, and times from launch until the model server receives the first
// chat request (first-request-ms): the engine, the sandbox start, both
// uploads and profiles stand between them. The model then runs the
// variance cell (a pandas table and a bar chart) and answers; exit-ms is
// the whole run. "background" is today's import order, "eager" the old one
// (sandbox.ImportsEnv), side by side:
//
//	go test -run '^$' -bench 'SessionStart|FirstRequest' -benchtime 10x ./sandbox ./e2e
func BenchmarkFirstRequest(b *testing.B) {
	for _, order := range []string{"background", "eager"} {
		b.Run(order, func(b *testing.B) { benchFirstRequest(b, order == "eager") })
	}
}

func benchFirstRequest(b *testing.B, eager bool) {
	sandboxtest.Engine(b)
	quarryBin(b) // built before the clock runs
	q1, q2 := writeQuarters(b, b.TempDir())
	srv := openaitest.New(b)
	var mu sync.Mutex
	var first time.Time
	var firstReq openaitest.Request
	srv.Handle(func(req openaitest.Request) openaitest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if first.IsZero() {
			first, firstReq = time.Now(), req
		}
		if ms := req.Messages(); ms[len(ms)-1].Role == "user" {
			return openaitest.ToolCalls(varianceCode)
		}
		return answerFromTool(req)
	})
	var firsts, totals []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mu.Lock()
		first = time.Time{}
		mu.Unlock()
		r := newRun(b, srv.URL, "-p", "Budget variance per department and quarter?", q1, q2)
		if eager {
			r.env = append(r.env, sandbox.ImportsEnv+"=eager")
		}
		t0 := time.Now()
		r.start()
		code := r.wait(2 * time.Minute)
		total := time.Since(t0)
		if code != 0 {
			b.Fatalf("exit %d\nstderr:\n%s", code, r.stderr.String())
		}
		mu.Lock()
		at, req := first, firstReq
		mu.Unlock()
		// The first request is the real one: both files profiled in it,
		// and the cell it asked for ran (its numbers are in the answer).
		if at.IsZero() || !req.Contains("q1.csv") || !req.Contains("q2.csv") {
			b.Fatalf("first request without the files' profiles: %s", req.Body)
		}
		if !strings.Contains(r.stdout.String(), "| Engineering |") {
			b.Fatalf("no variance table in the answer:\n%s\nstderr:\n%s", r.stdout.String(), r.stderr.String())
		}
		firsts, totals = append(firsts, at.Sub(t0)), append(totals, total)
	}
	b.StopTimer()
	reportP50(b, firsts, "first-request-ms")
	reportP50(b, totals, "exit-ms")
}

func reportP50(b *testing.B, d []time.Duration, unit string) {
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, unit)
}

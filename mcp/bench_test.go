package mcp

// Benchmarks for docs/performance.md, side by side in one run:
//
//	go test ./mcp -run '^$' -bench . -benchtime 200x
//
// A trivial run_python over stdio against the real binary (the JSON-RPC
// framing, the SDK on both sides, the session's record and checkpoint),
// beside the same cell through session.RunCell in process and the
// kernel's own round trip (what a chat's cell costs below the model);
// and the first call of a new server, the sandbox's start included.

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
	"github.com/quarry-cli/quarry/session"
)

func percentiles(b *testing.B, samples []time.Duration) {
	if len(samples) == 0 {
		return
	}
	slices.Sort(samples)
	b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(samples[len(samples)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkRunPythonStdio: `1` through quarry mcp on stdio, the sandbox
// up: back to back, and 50 ms apart, as a client whose model reads each
// result before its next call (the next call's checkpoint is taken in
// that pause).
func BenchmarkRunPythonStdio(b *testing.B) {
	sandboxtest.Engine(b)
	for _, gap := range []time.Duration{0, 50 * time.Millisecond} {
		b.Run("gap="+gap.String(), func(b *testing.B) {
			cs, _, _ := stdioQuarry(b, b.TempDir())
			callTool(b, cs, "run_python", map[string]any{"code": "1"}) // the sandbox's start
			samples := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				time.Sleep(gap)
				b.StartTimer()
				t0 := time.Now()
				if res := callTool(b, cs, "run_python", map[string]any{"code": "1"}); res.IsError {
					b.Fatal(text(res))
				}
				samples = append(samples, time.Since(t0))
			}
			percentiles(b, samples)
		})
	}
}

// BenchmarkRunCellInProcess is the baseline: the same cell as a turn of
// a tool session, no MCP in between.
func BenchmarkRunCellInProcess(b *testing.B) {
	e := sandboxtest.Engine(b)
	s := session.New(session.Options{Config: config.Config{Timeout: time.Minute, OutputDir: b.TempDir()}, Engine: e, Index: b.TempDir(), Tool: "bench"})
	defer s.Close()
	ctx := context.Background()
	if err := s.Start(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := s.RunCell(ctx, "bench", "1", nil); err != nil { // the kernel's imports
		b.Fatal(err)
	}
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		time.Sleep(50 * time.Millisecond) // as the stdio benchmark's gap
		b.StartTimer()
		t0 := time.Now()
		if c, err := s.RunCell(ctx, "bench", "1", nil); err != nil || c.Status != session.CellOK {
			b.Fatalf("%v %+v", err, c)
		}
		samples = append(samples, time.Since(t0))
	}
	percentiles(b, samples)
}

// BenchmarkFirstCallStdio: a new quarry mcp's first run_python, from the
// call to its answer: the sandbox starts inside it.
func BenchmarkFirstCallStdio(b *testing.B) {
	sandboxtest.Engine(b)
	quarryBinary(b)
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		cs, _, _ := stdioQuarry(b, b.TempDir())
		b.StartTimer()
		t0 := time.Now()
		if res := callTool(b, cs, "run_python", map[string]any{"code": "1"}); res.IsError {
			b.Fatal(text(res))
		}
		samples = append(samples, time.Since(t0))
		b.StopTimer()
		cs.Close()
		b.StartTimer()
	}
	percentiles(b, samples)
}

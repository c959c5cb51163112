package mcp

// Benchmarks for docs/performance.md, side by side in one run:
//
//	go test ./mcp -run '^$' -bench . -benchtime 200x
//
// A trivial run_python over stdio: the server's ServeStdio, as quarry mcp
// runs it, on a pair of OS pipes to the SDK's client (the JSON-RPC framing
// both ways, the session's record and checkpoint), beside the same cell
// through session.RunCell in process (what a chat's cell costs below the
// model); and a new server's first call, the sandbox's start included.

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

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

// stdioClient serves a new server on OS pipes, as quarry mcp serves its
// standard input and output, with the SDK's client on the other ends.
func stdioClient(b *testing.B) (*sdk.ClientSession, func()) {
	srv, _ := testServer(b, Options{}, true)
	inR, inW, err := os.Pipe() // client to server
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe() // server to client
	if err != nil {
		b.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		srv.ServeStdio(context.Background(), inR, outW)
		close(served)
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		b.Fatal(err)
	}
	stop := func() {
		cs.Close()
		<-served // the sandbox is gone
	}
	b.Cleanup(stop)
	return cs, stop
}

// BenchmarkRunPythonStdio: `1` on stdio, the sandbox up: back to back,
// and 50 or 200 ms apart, as a client whose model reads each result before
// its next call (a model takes seconds); the next call's checkpoint is
// taken in that pause.
func BenchmarkRunPythonStdio(b *testing.B) {
	for _, gap := range []time.Duration{0, 50 * time.Millisecond, 200 * time.Millisecond} {
		b.Run("gap="+gap.String(), func(b *testing.B) {
			cs, _ := stdioClient(b)
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
// a tool session, no MCP in between, 200 ms apart.
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
		time.Sleep(200 * time.Millisecond) // as the stdio benchmark's longer gap
		b.StartTimer()
		t0 := time.Now()
		if c, err := s.RunCell(ctx, "bench", "1", nil); err != nil || c.Status != session.CellOK {
			b.Fatalf("%v %+v", err, c)
		}
		samples = append(samples, time.Since(t0))
	}
	percentiles(b, samples)
}

// BenchmarkFirstCallStdio: a new server's first run_python, from the call
// to its answer: the sandbox starts inside it (the engine is connected, as
// quarry mcp connects it when it starts).
func BenchmarkFirstCallStdio(b *testing.B) {
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		cs, stop := stdioClient(b)
		b.StartTimer()
		t0 := time.Now()
		if res := callTool(b, cs, "run_python", map[string]any{"code": "1"}); res.IsError {
			b.Fatal(text(res))
		}
		samples = append(samples, time.Since(t0))
		b.StopTimer()
		stop()
		b.StartTimer()
	}
	percentiles(b, samples)
}

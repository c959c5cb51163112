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
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/sandbox"
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
// quarry mcp connects it when it starts). Each round runs every import
// order (sandbox.ImportsEnv) and both cells, interleaved, so that the
// machine's load falls on all alike: "names" is quarry's (a cell waits for
// the libraries it names), "wait" the order before it (every cell waits
// for all of them), "eager" the one before that (all imported before
// ready); "1" is a trivial cell, "pandas" one that uses pd.
//
//	go test ./mcp -run '^$' -bench FirstCallStdio -benchtime 20x
func BenchmarkFirstCallStdio(b *testing.B) {
	orders := []string{"names", "wait", "eager"}
	cells := []struct{ name, code string }{{"1", "1"}, {"pandas", "pd.DataFrame({'a': [1, 2]}).a.sum()"}}
	samples := map[string][]time.Duration{}
	b.ResetTimer()
	for range b.N {
		for _, order := range orders {
			for _, c := range cells {
				b.StopTimer()
				b.Setenv(sandbox.ImportsEnv, order)
				cs, stop := stdioClient(b)
				b.StartTimer()
				t0 := time.Now()
				if res := callTool(b, cs, "run_python", map[string]any{"code": c.code}); res.IsError {
					b.Fatal(text(res))
				}
				key := order + "-" + c.name
				samples[key] = append(samples[key], time.Since(t0))
				b.StopTimer()
				stop()
				b.StartTimer()
			}
		}
	}
	b.StopTimer()
	for _, order := range orders {
		for _, c := range cells {
			key := order + "-" + c.name
			d := samples[key]
			slices.Sort(d)
			b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, key+"-p50-ms")
			b.ReportMetric(float64(d[len(d)*9/10].Microseconds())/1000, key+"-p90-ms")
		}
	}
}

// BenchmarkFirstCallHTTP: a new MCP session's first run_python over
// streamable HTTP, from the call to its answer, on a server without a
// pool (the sandbox starts inside the call) and on one with --warm 1 (the
// call takes the sandbox the pool started; the pool has refilled since
// the last session, as it does between clients that come seconds apart).
// Rounds interleave the two, so the machine's load falls on both alike;
// "1" is a trivial cell, "pandas" one that uses pd.
//
//	go test ./mcp -run '^$' -bench FirstCallHTTP -benchtime 20x
func BenchmarkFirstCallHTTP(b *testing.B) {
	cells := []struct{ name, code string }{{"1", "1"}, {"pandas", "pd.DataFrame({'a': [1, 2]}).a.sum()"}}
	type server struct {
		name string
		srv  *Server
		url  string
	}
	var servers []server
	for _, warm := range []int{0, 1} {
		srv, _ := testServer(b, Options{Warm: warm, MaxSessions: 4}, true)
		srv.Prepare(context.Background())
		ts := httptest.NewServer(srv.Handler(HTTPOptions{Token: "tok"}))
		b.Cleanup(ts.Close)
		servers = append(servers, server{map[int]string{0: "cold", 1: "pool"}[warm], srv, ts.URL + Path})
	}
	samples := map[string][]time.Duration{}
	b.ResetTimer()
	for range b.N {
		for _, s := range servers {
			for _, c := range cells {
				b.StopTimer()
				if s.srv.pool != nil {
					for s.srv.pool.Ready() < 1 {
						time.Sleep(20 * time.Millisecond)
					}
				}
				tr := &sdk.StreamableClientTransport{Endpoint: s.url, HTTPClient: &http.Client{Transport: bearer{"tok"}}}
				cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), tr, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				t0 := time.Now()
				if res := callTool(b, cs, "run_python", map[string]any{"code": c.code}); res.IsError {
					b.Fatal(text(res))
				}
				key := s.name + "-" + c.name
				samples[key] = append(samples[key], time.Since(t0))
				b.StopTimer()
				cs.Close()
				for openSessions(s.srv) > 0 { // its sandbox gone before the next round
					time.Sleep(20 * time.Millisecond)
				}
				b.StartTimer()
			}
		}
	}
	b.StopTimer()
	for _, s := range servers {
		for _, c := range cells {
			key := s.name + "-" + c.name
			d := samples[key]
			slices.Sort(d)
			b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, key+"-p50-ms")
			b.ReportMetric(float64(d[len(d)*9/10].Microseconds())/1000, key+"-p90-ms")
		}
	}
}

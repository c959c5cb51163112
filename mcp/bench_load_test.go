package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// BenchmarkLoad24Sessions: 24 MCP sessions at once over HTTP, as quarry
// mcp --http serves them, each attaching a file of its own, running 20
// cells on it and asking check_numbers of an answer quoting them; every
// answer is checked. Reported: the round trip of a cell, p50 and p95
// (each session's first, which starts its sandbox, apart), the memory per
// session (its sandbox's, as the engine counts it, and the server's heap),
// and nothing is left once the clients close.
//
//	go test ./mcp -run '^$' -bench BenchmarkLoad24Sessions -benchtime 1x
func BenchmarkLoad24Sessions(b *testing.B) {
	const n, cells = 24, 20
	for range b.N {
		srv, logs := testServer(b, Options{MaxSessions: n}, true)
		ts := httptest.NewServer(srv.Handler(HTTPOptions{Token: "tok"}))
		var heap0 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&heap0)
		var (
			mu            sync.Mutex
			rounds, first []time.Duration
			wg            sync.WaitGroup
		)
		ran, measured := make(chan struct{}, n), make(chan struct{})
		for i := range n {
			wg.Go(func() {
				tr := &sdk.StreamableClientTransport{Endpoint: ts.URL + Path, HTTPClient: &http.Client{Transport: bearer{"tok"}}}
				cs, err := sdk.NewClient(&sdk.Implementation{Name: fmt.Sprintf("load-%d", i), Version: "1"}, nil).Connect(b.Context(), tr, nil)
				if err != nil {
					b.Error(err)
					ran <- struct{}{}
					return
				}
				defer cs.Close()
				name := fmt.Sprintf("ledger-%d.csv", i)
				var rows strings.Builder
				rows.WriteString("k,v\n")
				for r := range 100 {
					fmt.Fprintf(&rows, "%d,%d\n", r, r*(i+1))
				}
				if err := os.WriteFile(filepath.Join(srv.Roots()[0], name), []byte(rows.String()), 0o644); err != nil {
					b.Error(err)
				}
				t0 := time.Now()
				if res := callTool(b, cs, "attach_file", map[string]any{"path": name}); res.IsError {
					b.Errorf("session %d: attach: %s", i, text(res))
				}
				mu.Lock()
				first = append(first, time.Since(t0))
				mu.Unlock()
				want := 0
				for c := range cells {
					code := fmt.Sprintf("d = pd.read_csv('/data/%s')\nprint('total', int(d.v.sum()) + %d)", name, c)
					want = 4950*(i+1) + c
					t := time.Now()
					res := callTool(b, cs, "run_python", map[string]any{"code": code})
					d := time.Since(t)
					if got := text(res); res.IsError || !strings.Contains(got, fmt.Sprintf("total %d", want)) {
						b.Errorf("session %d cell %d:\n%s", i, c, got)
					}
					mu.Lock()
					rounds = append(rounds, d)
					mu.Unlock()
				}
				ran <- struct{}{}
				<-measured
				var out NumbersOutput
				res := callTool(b, cs, "check_numbers", map[string]any{"text": fmt.Sprintf("The total is %d, not 7.", want)})
				raw, _ := json.Marshal(res.StructuredContent)
				if err := json.Unmarshal(raw, &out); err != nil || len(out.Numbers) != 2 || !out.Numbers[0].Grounded || out.Numbers[1].Grounded {
					b.Errorf("session %d: check_numbers %+v (%v)", i, out, err)
				}
			})
		}
		for range n {
			<-ran
		}
		b.StopTimer()
		var heap1 runtime.MemStats
		runtime.ReadMemStats(&heap1)
		ids := logs.sessionIDs()
		var sandboxes uint64
		for _, id := range ids {
			m, _ := sandboxtest.Memory(b, "io.quarry.session="+id)
			sandboxes += m
		}
		b.StartTimer()
		close(measured)
		wg.Wait()
		ts.Close()
		for deadline := time.Now().Add(2 * time.Minute); openSessions(srv) > 0 && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
		if len(ids) != n || openSessions(srv) != 0 {
			b.Fatalf("%d sessions started (want %d), %d still open after the clients closed", len(ids), n, openSessions(srv))
		}
		for _, id := range ids {
			sandboxtest.RequireNothingLeft(b, "io.quarry.session="+id)
		}
		slices.Sort(rounds)
		slices.Sort(first)
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		b.ReportMetric(ms(rounds[len(rounds)/2]), "cell-p50-ms")
		b.ReportMetric(ms(rounds[len(rounds)*95/100]), "cell-p95-ms")
		b.ReportMetric(ms(first[len(first)/2]), "first-p50-ms")
		b.ReportMetric(ms(first[len(first)*95/100]), "first-p95-ms")
		b.ReportMetric(float64(sandboxes)/float64(n)/(1<<20), "sandbox-MiB/session")
		b.ReportMetric(float64(int64(heap1.HeapAlloc)-int64(heap0.HeapAlloc))/float64(n)/(1<<20), "server-heap-MiB/session")
	}
}

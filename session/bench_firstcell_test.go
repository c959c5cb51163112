package session

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// BenchmarkFirstCellWait is the wait a person sees in the chat: from Enter
// on the first question to the first cell's start, the model answering at
// once (a loopback fake), launched as the chat launches a session (the
// sandbox started and the file attached while the first screen is drawn).
// enter-at-launch asks the moment the chat opens, the whole start in the
// wait: the baseline, today's cold start. enter-after-typing asks three
// seconds in, as a person typing a question does; enter-after-1s between. cold-cache drops the
// kernel's page cache first (root only), so the image's files are read
// from disk again; warm does not.
//
//	go test ./session -run '^$' -bench BenchmarkFirstCellWait -benchtime 10x
func BenchmarkFirstCellWait(b *testing.B) {
	e := sandboxtest.Engine(b)
	srv := openaitest.New(b)
	srv.Handle(func(r openaitest.Request) openaitest.Reply {
		if ms := r.Chat.Messages; len(ms) > 0 && ms[len(ms)-1].Role == "tool" {
			return openaitest.Text("done")
		}
		return openaitest.ToolCalls("print(len(pd.read_csv('/data/q1.csv')))")
	})
	file := filepath.Join(b.TempDir(), "q1.csv")
	if err := os.WriteFile(file, []byte("region,revenue\nNorth,120\nSouth,80\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, cache := range []string{"warm", "cold-cache"} {
		for _, c := range []struct {
			name  string
			typed time.Duration
		}{{"enter-at-launch", 0}, {"enter-after-1s", time.Second}, {"enter-after-typing", 3 * time.Second}} {
			b.Run(cache+"/"+c.name, func(b *testing.B) {
				var waits []time.Duration
				for range b.N {
					if cache == "cold-cache" {
						b.StopTimer()
						if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0); err != nil {
							b.Skipf("the page cache cannot be dropped here (%v): run as root", err)
						}
						b.StartTimer()
					}
					waits = append(waits, firstCellWait(b, e, srv.URL, file, c.typed))
				}
				slices.Sort(waits)
				b.ReportMetric(float64(waits[len(waits)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(waits[len(waits)*95/100].Microseconds())/1000, "p95-ms")
			})
		}
	}
}

// firstCellWait launches a session as the chat does and asks after typed.
func firstCellWait(b *testing.B, e *engine.Engine, url, file string, typed time.Duration) time.Duration {
	ctx := context.Background()
	s := New(Options{Config: testConfig(url, b.TempDir()), Engine: e})
	defer s.Close()
	ready := make(chan error, 1)
	go func() { // the chat: started at launch, the launch files attached once it is
		err := s.Start(ctx)
		if err == nil {
			_, err = s.Attach(ctx, file)
		}
		ready <- err
	}()
	time.Sleep(typed)
	enter := time.Now()
	if err := <-ready; err != nil { // Ask waits for the start, and for the attach the chat sent first
		b.Fatal(err)
	}
	var wait time.Duration
	if _, err := s.Ask(ctx, "how many rows?", func(ev agent.Event) {
		if ev.Kind == agent.EventCellStart && wait == 0 {
			wait = time.Since(enter)
		}
	}); err != nil || wait == 0 {
		b.Fatalf("ask: %v (cell started: %v)", err, wait != 0)
	}
	return wait
}

package e2e

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// BenchmarkConcurrentRuns starts 24 `quarry -p` variance runs at once
// (QUARRY_BENCH_RUNS sets another number), the real binary against a
// fake model: the model asks for the variance cell, then answers from
// what it printed. "cold": each run starts its own sandbox. "warm": a
// holder (quarry sandbox warm --size N) has N sandboxes ready before the
// clock starts, and each run takes one; the holder refills at the lowest
// CPU weight while the runs go. run-p50-ms and run-p95-ms are the runs'
// wall times, launch to exit; batch-ms is the last exit:
//
//	go test -run '^$' -bench ConcurrentRuns -benchtime 1x -timeout 30m ./e2e
func BenchmarkConcurrentRuns(b *testing.B) {
	n := 24
	if s := os.Getenv("QUARRY_BENCH_RUNS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	for _, mode := range []string{"cold", "warm"} {
		b.Run(mode, func(b *testing.B) { benchConcurrentRuns(b, mode, n) })
	}
}

func benchConcurrentRuns(b *testing.B, mode string, n int) {
	sandboxtest.Engine(b)
	quarryBin(b)
	q1, q2 := writeQuarters(b, b.TempDir())
	srv := openaitest.New(b)
	srv.Handle(func(req openaitest.Request) openaitest.Reply {
		if ms := req.Messages(); ms[len(ms)-1].Role == "user" {
			return openaitest.ToolCalls(varianceCode)
		}
		return answerFromTool(req)
	})
	rt := b.TempDir()
	var runs, batches []time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		var holder *run
		if mode == "warm" {
			holder = newRun(b, "", "sandbox", "warm", "--size", strconv.Itoa(n), "--idle", "5m").withoutModel()
			holder.env = append(holder.env, "XDG_RUNTIME_DIR="+rt)
			holder.start()
			want := fmt.Sprintf("%d of %d sandboxes ready", n, n)
			for deadline := time.Now().Add(10 * time.Minute); !strings.Contains(holder.stderr.String(), want); time.Sleep(100 * time.Millisecond) {
				if time.Now().After(deadline) {
					b.Fatalf("the holder has not %q\n%s", want, holder.stderr.String())
				}
			}
		}
		b.StartTimer()
		t0 := time.Now()
		var wg sync.WaitGroup
		var mu sync.Mutex
		var times []time.Duration
		var failed []string
		for j := 0; j < n; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				args := []string{"-p", "Budget variance per department and quarter?", q1, q2}
				if mode == "warm" {
					args = append(args, "--warm", strconv.Itoa(n))
				}
				r := newRun(b, srv.URL, args...)
				r.env = append(r.env, "XDG_RUNTIME_DIR="+rt)
				start := time.Now()
				r.start()
				code := r.wait(10 * time.Minute)
				d := time.Since(start)
				if os.Getenv("QUARRY_BENCH_LOG") != "" {
					b.Logf("%s run: %s\n%s", mode, d, r.stderr.String())
				}
				mu.Lock()
				defer mu.Unlock()
				times = append(times, d)
				switch {
				case code != 0 || !strings.Contains(r.stdout.String(), "| Engineering |"):
					failed = append(failed, fmt.Sprintf("exit %d\n%s\n%s", code, r.stdout.String(), r.stderr.String()))
				case mode == "warm" && strings.Contains(r.stderr.String(), "starting the sandbox"):
					failed = append(failed, "a run found no warm sandbox:\n"+r.stderr.String())
				}
			}()
		}
		wg.Wait()
		batches = append(batches, time.Since(t0))
		b.StopTimer()
		if holder != nil {
			holder.cmd.Process.Signal(syscall.SIGTERM)
			holder.wait(2 * time.Minute)
			requireNoContainers(b, holder.cmd.Process.Pid)
		}
		if len(failed) > 0 {
			b.Fatalf("%d of %d runs failed; the first:\n%s", len(failed), n, failed[0])
		}
		runs = append(runs, times...)
		b.StartTimer()
	}
	slices.Sort(runs)
	b.ReportMetric(float64(runs[len(runs)/2].Milliseconds()), "run-p50-ms")
	b.ReportMetric(float64(runs[len(runs)*95/100].Milliseconds()), "run-p95-ms")
	reportP50(b, batches, "batch-ms")
	b.ReportMetric(0, "ns/op")
}

package session

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// heavyCell burns cpu seconds of CPU (process time, so a busy machine only
// makes it slower, not lighter) and leaves a 16 MB frame behind.
func heavyCell(i int, cpu float64) string {
	return fmt.Sprintf(`import time, numpy as np, pandas as pd
t0, n = time.process_time(), 0
while time.process_time() - t0 < %g:
    n += 1
frame_%d = pd.DataFrame(np.random.default_rng(%d).random((200_000, 10)))
cpu_seconds = globals().get('cpu_seconds', 0) + time.process_time() - t0`, cpu, i, i)
}

const lightCell = "summary = frame_9.describe()"

// BenchmarkUndo is the latency of /undo on a session of ten questions
// whose cells took 20 s of CPU in all: nine of 2.2 s and a light tenth,
// which each iteration takes back and asks again (untimed). "checkpoint"
// wakes the copy kept at the question's start; "replay" is the fallback
// when copies are lost (here ended on purpose): a fresh kernel that runs
// the nine earlier cells again, which is what resuming a session costs.
// s-cpu-cells is the CPU the session's cells took; MiB-copies what the ten
// copies held of their own.
func BenchmarkUndo(b *testing.B) {
	e := sandboxtest.Engine(b)
	srv := openaitest.New(b)
	cfg := testConfig(srv.URL, b.TempDir())
	cfg.Timeout = 2 * time.Minute
	s := New(Options{Config: cfg, Engine: e})
	b.Cleanup(func() { s.Close() })
	ctx := context.Background()
	if err := s.Start(ctx); err != nil {
		b.Fatal(err)
	}
	askCell := func(code string) {
		srv.Push(openaitest.ToolCalls(code), openaitest.Text("done"))
		if _, err := s.Ask(ctx, "question", nil); err != nil {
			b.Fatal(err)
		}
	}
	for i := 1; i <= 9; i++ {
		askCell(heavyCell(i, 20.0/9))
	}
	askCell(lightCell)
	cpu := s.replayValue(b, "print(round(cpu_seconds, 1))")
	copies := s.replayValue(b, sandboxtest.CopiesMemoryPy+"print(copies_mib)")
	mib, _ := strconv.ParseFloat(copies, 64)
	cpuSeconds, _ := strconv.ParseFloat(cpu, 64)

	b.Run("checkpoint", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if u, err := s.Undo(ctx); err != nil || u.Replayed != 0 {
				b.Fatalf("undo: %+v, %v", u, err)
			}
			b.StopTimer()
			askCell(lightCell)
			b.StartTimer()
		}
		b.ReportMetric(cpuSeconds, "s-cpu-cells")
		b.ReportMetric(mib, "MiB-copies")
	})
	b.Run("replay", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			s.replayValue(b, sandboxtest.KillCopiesPy)
			b.StartTimer()
			if u, err := s.Undo(ctx); err != nil || u.Replayed != 9 {
				b.Fatalf("undo: %+v, %v", u, err)
			}
			b.StopTimer()
			askCell(lightCell)
			b.StartTimer()
		}
		b.ReportMetric(cpuSeconds, "s-cpu-cells")
	})
}

// replayValue runs code in the kernel outside the conversation (a quiet,
// uncounted cell) and returns what it printed.
func (s *Session) replayValue(b *testing.B, code string) string {
	b.Helper()
	res, err := s.sb.Replay(context.Background(), 0, code)
	if err != nil || res.Error != nil {
		b.Fatalf("%s: %v %+v", code, err, res.Error)
	}
	return strings.TrimSpace(res.Stdout)
}

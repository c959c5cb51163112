package session

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// BenchmarkStartClose is the cost of a session's sandbox: Start (sweep,
// image check, container, kernel ready) then Close (container removed).
func BenchmarkStartClose(b *testing.B) {
	e := sandboxtest.Engine(b)
	var start, close time.Duration
	for b.Loop() {
		s := New(Options{Config: testConfig("http://127.0.0.1:1/v1", b.TempDir()), Engine: e})
		t0 := time.Now()
		if err := s.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		start, close = start+t1.Sub(t0), close+time.Since(t1)
	}
	b.ReportMetric(start.Seconds()/float64(b.N), "s-start/op")
	b.ReportMetric(close.Seconds()/float64(b.N), "s-close/op")
}

// BenchmarkMaskEvent is what the event boundary adds per event: a streamed
// text delta (the most frequent event) and a finished cell with output,
// against copying the event unmasked (the baseline).
func BenchmarkMaskEvent(b *testing.B) {
	m := config.Config{APIKey: "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", BaseURL: "http://127.0.0.1:8080/v1"}.Masker()
	delta := agent.Event{Kind: agent.EventText, Text: "The variance is highest in "}
	cell := agent.Event{Kind: agent.EventCellDone, Code: strings.Repeat("df = pd.read_csv('/data/q1.csv')\n", 10),
		Result: &kernel.Result{Stdout: strings.Repeat("department  budget  actual\n", 200), Notes: []string{"n"}}}
	var sink agent.Event
	for _, c := range []struct {
		name string
		e    agent.Event
	}{{"delta", delta}, {"cell", cell}} {
		b.Run(c.name+"/unmasked", func(b *testing.B) {
			for b.Loop() {
				sink = c.e
			}
		})
		b.Run(c.name+"/masked", func(b *testing.B) {
			for b.Loop() {
				sink = maskEvent(m, c.e)
			}
		})
	}
	_ = sink
}

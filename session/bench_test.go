package session

import (
	"context"
	"testing"
	"time"

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

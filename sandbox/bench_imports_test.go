package sandbox_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// BenchmarkFirstCell: a session's start and its first question's first
// cell, as the chat, -p and quarry mcp run them: Start, the question's
// checkpoint, the cell. first-ms is from Start to the cell's result,
// after-ready-ms from ready to it (what the model's first reply hides in
// the chat, and nothing hides in -p with a fast model or in MCP). Each
// round runs every import order (sandbox.ImportsEnv: "names" is quarry's,
// a cell waits for the libraries it names; "wait" every cell and
// checkpoint waits for all of them, the order before; "eager" all before
// ready) and every cell, interleaved, so the load falls on all alike.
//
//	go test ./sandbox -run '^$' -bench FirstCell -benchtime 20x
func BenchmarkFirstCell(b *testing.B) {
	e := sandboxtest.Engine(b)
	ctx := context.Background()
	orders := []string{"names", "wait", "eager"}
	cells := []struct{ name, code string }{
		{"1", "1"},
		{"pandas", "pd.DataFrame({'a': [1, 2]}).a.sum()"},
		{"chart", "df = pd.DataFrame({'q': ['Q1', 'Q2'], 'v': [3, 5]})\ndf.plot.bar(x='q', y='v')\ndf"},
	}
	first, afterReady := map[string][]time.Duration{}, map[string][]time.Duration{}
	b.ResetTimer()
	for i := range b.N {
		for _, order := range orders {
			for _, c := range cells {
				b.StopTimer()
				b.Setenv(sandbox.ImportsEnv, order)
				dir := filepath.Join(b.TempDir(), fmt.Sprint("out", i))
				b.StartTimer()
				t0 := time.Now()
				s, err := sandbox.Start(ctx, e, sandbox.Options{OutputDir: dir})
				if err != nil {
					b.Fatal(err)
				}
				ready := time.Now()
				if _, err := s.Checkpoint(ctx); err != nil {
					b.Fatal(err)
				}
				res, err := s.Exec(ctx, c.code, nil)
				if err != nil || res.Error != nil {
					b.Fatalf("%v %+v", err, res.Error)
				}
				if c.name == "chart" && len(res.Figures) != 1 {
					b.Fatalf("%d figures", len(res.Figures))
				}
				key := order + "-" + c.name
				first[key] = append(first[key], time.Since(t0))
				afterReady[key] = append(afterReady[key], time.Since(ready))
				b.StopTimer()
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		}
	}
	b.StopTimer()
	for _, order := range orders {
		for _, c := range cells {
			key := order + "-" + c.name
			reportMedian(b, first[key], key+"-first-ms")
			reportMedian(b, afterReady[key], key+"-after-ready-ms")
		}
	}
}

package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// replayCells are what a variance session's kernel is rebuilt from: a
// load, a pivot with a chart, a saved table, a light step.
var replayCells = []Cell{
	{Num: 1, Code: "df = pd.read_csv('/data/q1.csv')"},
	{Num: 2, Code: "v = df.groupby('region').revenue.sum().to_frame()\nv['pct'] = (v.revenue / v.revenue.sum() * 100).round(1)\nv.revenue.plot.bar(title='Revenue')\nv"},
	{Num: 3, Code: "v.to_csv('/output/variance.csv')\nprint(v.revenue.max())"},
	{Num: 4, Code: "top = v.revenue.idxmax()"},
}

// BenchmarkResumeReplay is the time a resumed session spends per cell to
// rebuild its kernel (Replay: nothing harvested), beside running the same
// cells the first time (Exec through the agent's kernel, figures and files
// harvested): the baseline a replay must not exceed.
func BenchmarkResumeReplay(b *testing.B) {
	e := sandboxtest.Engine(b)
	data := filepath.Join(b.TempDir(), "q1.csv")
	var rows strings.Builder
	rows.WriteString("region,revenue\n")
	for i := 0; i < 5000; i++ {
		rows.WriteString([]string{"North", "South", "West", "East"}[i%4] + ",1000\n")
	}
	os.WriteFile(data, []byte(rows.String()), 0o644)
	s := New(Options{Config: testConfig("http://127.0.0.1:1/v1", b.TempDir()), Engine: e, Index: b.TempDir()})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	go s.Start(ctx)
	if _, err := s.Attach(ctx, data); err != nil {
		b.Fatal(err)
	}
	b.Run("first-run", func(b *testing.B) {
		for b.Loop() {
			for _, c := range replayCells {
				if r, err := s.exec(ctx, c.Code, nil); err != nil || r.Error != nil {
					b.Fatalf("%v %+v", err, r.Error)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*len(replayCells)), "ms/cell")
	})
	b.Run("replay", func(b *testing.B) {
		for b.Loop() {
			if err := s.Replay(ctx, replayCells); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*len(replayCells)), "ms/cell")
	})
}

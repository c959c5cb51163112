package export

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
	"github.com/quarry-cli/quarry/session"
)

// BenchmarkReport10kLinesYTD is the target of the reports (≤ 3 s inside
// the sandbox for 10,000 lines × 12 months, variance() with YTD and the
// workbook written): variance() in the session's kernel (kernel-ms, and
// what keeping its table for the report adds to the cell, keep-ms), then
// the workbook, and the PDF, built by the builder in its sandbox
// (workbook-ms, pdf-ms: the builder's own time) and the whole WriteReport
// with the sandbox's start (wall-ms), and with the host's checks of the
// two files (e2e-ms: the report from the host). Beside it the baseline: the
// workbook a model would write, v.to_excel() in the session's kernel,
// with no formats, fills or sheets of its own.
func BenchmarkReport10kLinesYTD(b *testing.B) {
	e := sandboxtest.Engine(b)
	s := sandboxtest.Session(b, e, sandbox.Options{OutputDir: filepath.Join(b.TempDir(), "out")})
	ctx := context.Background()
	if res, err := s.Exec(ctx, sandboxtest.VarianceBenchData, nil); err != nil || res.Error != nil {
		b.Fatalf("make the data: %v %+v", err, res.Error)
	}
	timed := func(code string) (float64, time.Duration, *kernel.Report) {
		b.Helper()
		t0 := time.Now()
		res, err := s.Exec(ctx, "import time as _bt\n_t = _bt.perf_counter()\n"+code+"\nprint(_bt.perf_counter() - _t)", nil)
		wall := time.Since(t0)
		if err != nil || res.Error != nil {
			b.Fatalf("%s: %v %+v", code, err, res.Error)
		}
		f := strings.Fields(res.Stdout)
		sec, _ := strconv.ParseFloat(f[len(f)-1], 64)
		return sec, wall, res.Report
	}
	b.Run("baseline-to-excel", func(b *testing.B) {
		timed("v = variance(a, b, period='ytd')")
		var total float64
		for i := 0; i < b.N; i++ {
			sec, _, _ := timed("v.to_excel('/tmp/baseline.xlsx')")
			total += sec
		}
		b.ReportMetric(total*1000/float64(b.N), "kernel-ms")
	})
	// cold: the builder's sandbox started by the build, as before;
	// ahead: started as the variance cell begins (as -p --report starts it
	// when the session is ready; the chat after an answer), so the build
	// waits only for what is left of its start; ahead-read: the report
	// asked for once the answer has been read, 5 s later.
	for _, c := range []struct {
		name  string
		ahead bool
		read  time.Duration // the answer read before the report is asked for
	}{{"variance-and-report", false, 0}, {"variance-and-report-ahead", true, 0}, {"variance-and-report-ahead-read", true, 5 * time.Second}} {
		b.Run(c.name, func(b *testing.B) {
			var kernel, keep, book, pdf, wall, e2e float64
			for i := 0; i < b.N; i++ {
				builder := session.Builder{Config: config.Config{}, Engine: e}
				stop := func() {}
				if c.ahead {
					builder, stop = builder.Ahead(b.TempDir(), Warmup())
				}
				sec, cell, res := timed("v = variance(a, b, period='ytd')")
				if res == nil || res.Variance == nil || len(res.Variance.Lines) != 10001 {
					b.Fatalf("the cell kept no variance table of 10,001 lines for the report")
				}
				kernel += sec
				keep += cell.Seconds() - sec
				dir := reportRecordOf(b, res.Variance, "")
				time.Sleep(c.read)
				d := newDoc(loadRecord(b, dir))
				spec, files := d.spec(d.report(), []Format{Workbook, PDF}, "A4", time.Now())
				t0 := time.Now()
				out, said, err := build(ctx, dir, builder, spec, files)
				wall += time.Since(t0).Seconds()
				if err == nil {
					err = errors.Join(checkBuilt(Workbook, filepath.Join(out, DefaultName(Workbook))),
						checkBuilt(PDF, filepath.Join(out, DefaultName(PDF))))
				}
				e2e += time.Since(t0).Seconds()
				stop()
				if err != nil {
					b.Fatal(err)
				}
				book += said.Seconds["xlsx"]
				pdf += said.Seconds["pdf"]
			}
			n := float64(b.N)
			b.ReportMetric(kernel*1000/n, "kernel-ms")
			b.ReportMetric(keep*1000/n, "keep-ms")
			b.ReportMetric(book*1000/n, "workbook-ms")
			b.ReportMetric(pdf*1000/n, "pdf-ms")
			b.ReportMetric(wall*1000/n, "wall-ms")
			b.ReportMetric(e2e*1000/n, "e2e-ms")
			b.ReportMetric((kernel+keep+book)*1000/n, "target-ms")
		})
	}
}

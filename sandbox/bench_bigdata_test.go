package sandbox_test

// Benchmarks for the "Large files" part of docs/performance.md, side by side
// in one run:
//
//	go test ./sandbox -run '^$' -bench 'ReadLedger|AttachLedger' -benchtime 3x

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// ledgerSession writes a ledger of rows rows (deleted with the benchmark's
// folder) and starts a session with a timeout fit for it.
func ledgerSession(b *testing.B, rows int64, seed uint64) (sandboxtest.Ledger, *sandbox.Session) {
	e := sandboxtest.Engine(b)
	lg, err := sandboxtest.WriteLedger(filepath.Join(b.TempDir(), "ledger.csv"), rows, seed)
	if err != nil {
		b.Fatal(err)
	}
	return lg, sandboxtest.Session(b, e, sandbox.Options{Timeout: 10 * time.Minute})
}

// BenchmarkReadLedger answers "sum per account" over a 1 M-row (100 MB)
// ledger that pandas can load in the default 2 GiB, three ways: pandas'
// C parser, pandas with engine="pyarrow", and sql() (DuckDB). Each
// iteration runs in a fresh kernel, so "peak-MiB" is that method's peak
// resident memory, and "over-idle-MiB" what it added to an idle kernel.
func BenchmarkReadLedger(b *testing.B) {
	lg, s := ledgerSession(b, 1_000_000, 11)
	ctx := context.Background()
	if _, err := s.CopyIn(ctx, lg.Path); err != nil {
		b.Fatal(err)
	}
	methods := []struct{ name, code string }{
		{"pandas", `r = pd.read_csv('/data/ledger.csv').groupby('account')['amount_eur'].sum()`},
		{"pandas-pyarrow", `r = pd.read_csv('/data/ledger.csv', engine='pyarrow').groupby('account')['amount_eur'].sum()`},
		{"sql", `r = sql("SELECT account, sum(amount_eur) AS s FROM '/data/ledger.csv' GROUP BY 1").set_index('account')['s']`},
	}
	const report = "\nimport resource\nprint('ACCOUNTS', len(r), 'TOTAL %.2f' % r.sum(), 'PEAK', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
	want := fmt.Sprintf("ACCOUNTS %d TOTAL %s PEAK ", len(lg.ByAccount), sandboxtest.Cents(lg.TotalCents))
	peakRE := regexp.MustCompile(`PEAK (\d+)`)
	for _, m := range methods {
		b.Run(m.name, func(b *testing.B) {
			var peak, idle int64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if err := s.Restart(ctx); err != nil {
					b.Fatal(err)
				}
				res, err := s.Exec(ctx, "import resource\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)", nil)
				if err != nil || res.Error != nil {
					b.Fatalf("%v %+v", err, res.Error)
				}
				kb, _ := strconv.ParseInt(strings.TrimSpace(res.Stdout), 10, 64)
				idle = max(idle, kb)
				b.StartTimer()
				res, err = s.Exec(ctx, m.code+report, nil)
				if err != nil || res.Error != nil {
					b.Fatalf("%v %+v", err, res.Error)
				}
				b.StopTimer()
				if got := res.Stdout; len(got) < len(want) || got[:len(want)] != want {
					b.Fatalf("output %q, want %q…", got, want)
				}
				kb, _ = strconv.ParseInt(peakRE.FindStringSubmatch(res.Stdout)[1], 10, 64)
				peak = max(peak, kb)
				b.StartTimer()
			}
			b.SetBytes(lg.Bytes)
			b.ReportMetric(float64(peak)/1024, "peak-MiB")
			b.ReportMetric(float64(peak-idle)/1024, "over-idle-MiB")
		})
	}
}

// BenchmarkAttachLedger1600MB attaches the 16 M-row ledger of
// TestLedgerLargerThanMemoryAnsweredWithSQL: the copy into /data (MB/s),
// the profile after it (s) and what the host allocated meanwhile (MB; the
// copy streams, so it does not grow with the file).
func BenchmarkAttachLedger1600MB(b *testing.B) {
	lg, s := ledgerSession(b, 16_000_000, 2026)
	ctx := context.Background()
	var copySecs, profileSecs, allocMB float64
	b.SetBytes(lg.Bytes)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var copied time.Duration
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		t0 := time.Now()
		p, err := s.AddFileProgress(ctx, lg.Path, func(u sandbox.Upload) {
			if u.Phase == sandbox.UploadProfiling {
				copied = u.Elapsed
			}
		})
		total := time.Since(t0)
		runtime.ReadMemStats(&after)
		if err != nil || p.Error != "" {
			b.Fatalf("%v, profile error %q", err, p.Error)
		}
		copySecs += copied.Seconds()
		profileSecs += (total - copied).Seconds()
		allocMB += float64(after.TotalAlloc-before.TotalAlloc) / 1e6
	}
	n := float64(b.N)
	b.ReportMetric(float64(lg.Bytes)/1e6/(copySecs/n), "copy-MB/s")
	b.ReportMetric(profileSecs/n, "profile-s")
	b.ReportMetric(allocMB/n, "host-alloc-MB")
}

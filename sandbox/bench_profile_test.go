package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox"
)

// profileTime attaches host and returns how long the profile took (the
// copy into /data left out) and the profile's error.
func profileTime(b *testing.B, s *sandbox.Session, host string) (time.Duration, string) {
	b.Helper()
	var start time.Time
	p, err := s.AddFileProgress(context.Background(), host, func(u sandbox.Upload) {
		if u.Phase == sandbox.UploadProfiling {
			start = time.Now()
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	return time.Since(start), p.Error
}

// peakRSS is the kernel's peak resident memory so far, in MiB.
func peakRSS(b *testing.B, s *sandbox.Session) float64 {
	res, err := s.Exec(context.Background(), "import resource\nresource.getrusage(resource.RUSAGE_SELF).ru_maxrss", nil)
	if err != nil || res.Value == nil {
		b.Fatalf("peak RSS: %v %+v", err, res)
	}
	kb, _ := strconv.ParseFloat(res.Value.Repr, 64)
	return kb / 1024
}

// BenchmarkProfileWidth profiles genomics-style matrices of 1,000 to
// 300,000 columns (a gene column and counts): profile time against width.
func BenchmarkProfileWidth(b *testing.B) {
	_, s := benchSession(b)
	for _, c := range []struct{ width, rows int }{{1000, 300}, {20000, 40}, {300000, 5}} {
		b.Run(fmt.Sprintf("cols=%d", c.width), func(b *testing.B) {
			host := filepath.Join(b.TempDir(), "matrix.csv")
			data := wideCSV(c.width, c.rows)
			if err := os.WriteFile(host, data, 0o644); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			var total time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d, perr := profileTime(b, s, host)
				if perr != "" {
					b.Fatal(perr)
				}
				total += d
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "profile-ms")
		})
	}
}

// BenchmarkProfileUnpacked profiles the sparse sensor log of
// TestProfileCompressedFilesByUnpackedSize packed four ways, unpacking to 64
// MiB, 512 MiB and 2 GiB: profile time against the unpacked size, and the
// kernel's peak memory after all of them.
func BenchmarkProfileUnpacked(b *testing.B) {
	_, s := benchSession(b)
	for _, size := range []int{64 << 20, 512 << 20, 2 << 30} {
		res, err := s.Exec(context.Background(), fmt.Sprintf(packedSensors, size), nil)
		if err != nil || res.Error != nil {
			b.Fatalf("make files: %v %+v", err, res.Error)
		}
		files := map[string]string{}
		for _, f := range res.Files {
			files[f.Name] = f.Path
		}
		for _, name := range []string{"sensors.csv.gz", "sensors.zip", "sensors.csv.bz2", "sensors.csv.xz"} {
			host := files["packed/"+name]
			st, err := os.Stat(host)
			if err != nil {
				b.Fatal(err)
			}
			ext := name[strings.LastIndexByte(name, '.')+1:]
			b.Run(fmt.Sprintf("%s/unpacked=%dMiB", ext, size>>20), func(b *testing.B) {
				var total time.Duration
				for i := 0; i < b.N; i++ {
					d, perr := profileTime(b, s, host)
					if perr != "" {
						b.Fatal(perr)
					}
					total += d
				}
				b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "profile-ms")
				b.ReportMetric(float64(size)/float64(st.Size()), "ratio")
				b.ReportMetric(peakRSS(b, s), "peak-MiB")
			})
		}
	}
}

package sandbox_test

// Benchmarks for docs/performance.md. Run side by side in one go:
//
//	go test ./sandbox -run '^$' -bench . -benchtime 200x
//
// The baselines (docker exec per cell, a fresh container per cell) use the
// docker CLI, as a user would; they are skipped when it is not installed.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

func benchSession(b *testing.B) (*engine.Engine, *sandbox.Session) {
	b.Helper()
	e := sandboxtest.Engine(b)
	s := sandboxtest.Session(b, e, sandbox.Options{OutputDir: filepath.Join(b.TempDir(), "out")})
	return e, s
}

// reportPercentiles adds p50 and p99 of the per-op samples.
func reportPercentiles(b *testing.B, samples []time.Duration) {
	if len(samples) == 0 {
		return
	}
	slices.Sort(samples)
	b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(samples[len(samples)*99/100].Microseconds())/1000, "p99-ms")
}

func BenchmarkCellRoundTrip(b *testing.B) {
	_, s := benchSession(b)
	ctx := context.Background()
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		res, err := s.Exec(ctx, "1", nil)
		if err != nil || res.Error != nil {
			b.Fatalf("%v %+v", err, res.Error)
		}
		samples = append(samples, time.Since(t0))
	}
	reportPercentiles(b, samples)
}

func dockerCLI(b *testing.B) string {
	p, err := exec.LookPath("docker")
	if err != nil {
		b.Skip("docker CLI not installed")
	}
	return p
}

// BenchmarkDockerExecPerCell is the baseline quarry avoids: a new Python per
// cell through `docker exec` (and no state kept between cells).
func BenchmarkDockerExecPerCell(b *testing.B) {
	docker := dockerCLI(b)
	_, s := benchSession(b)
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if out, err := exec.Command(docker, "exec", s.ContainerID(), "python3", "-c", "print(1)").CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		samples = append(samples, time.Since(t0))
	}
	reportPercentiles(b, samples)
}

// BenchmarkFreshContainerPerCell is the other baseline: `docker run --rm`
// per cell.
func BenchmarkFreshContainerPerCell(b *testing.B) {
	docker := dockerCLI(b)
	sandboxtest.Engine(b)
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		cmd := exec.Command(docker, "run", "--rm", "--network", "none", "--label", "io.quarry.bench=1",
			"--entrypoint", "python3", image.Ref(), "-c", "print(1)")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		samples = append(samples, time.Since(t0))
	}
	reportPercentiles(b, samples)
}

// BenchmarkConnect is the first step of every session start: reach the
// engine, negotiate the API, read its version and runtimes.
func BenchmarkConnect(b *testing.B) {
	sandboxtest.Engine(b)
	ctx := context.Background()
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		e, err := engine.Connect(ctx)
		if err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(t0))
		e.Close()
	}
	reportPercentiles(b, samples)
}

// BenchmarkSessionStart measures Start until the kernel is ready, then
// Close (not timed): "background" is today's order (the kernel says ready,
// forks the start's copy for the first checkpoint, then imports numpy,
// pandas and matplotlib in a thread), "eager" the old one (all imported
// before ready, sandbox.ImportsEnv), side by side in one run. It also reports where the time goes (medians): volumes and container
// create, attach and ContainerStart (the engine's share), and kernel source
// sent until ready (Python start-up, plus the imports when eager).
func BenchmarkSessionStart(b *testing.B) {
	for _, order := range []string{"background", "eager"} {
		b.Run(order, func(b *testing.B) {
			if order == "eager" {
				b.Setenv(sandbox.ImportsEnv, "eager")
			}
			benchSessionStart(b)
		})
	}
}

func benchSessionStart(b *testing.B) {
	e := sandboxtest.Engine(b)
	ctx := context.Background()
	samples := make([]time.Duration, 0, b.N)
	var creates, starts, kernels []time.Duration
	var imports float64
	for i := 0; i < b.N; i++ {
		dir := filepath.Join(b.TempDir(), fmt.Sprint("out", i))
		t0 := time.Now()
		s, err := sandbox.Start(ctx, e, sandbox.Options{OutputDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(t0))
		imports += s.ImportSeconds()
		c, st, k := s.StartupTimes()
		creates, starts, kernels = append(creates, c), append(starts, st), append(kernels, k)
		b.StopTimer()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(imports/float64(b.N), "imports-s")
	reportMedian(b, creates, "create-ms")
	reportMedian(b, starts, "engine-start-ms")
	reportMedian(b, kernels, "kernel-ms")
	reportPercentiles(b, samples)
}

func reportMedian(b *testing.B, d []time.Duration, unit string) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, unit)
}

// BenchmarkAddFile160MB streams a 160 MB CSV into /data (no profile).
func BenchmarkAddFile160MB(b *testing.B) {
	_, s := benchSession(b)
	path := filepath.Join(b.TempDir(), "big.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var size int64
	for i := 0; size < 160<<20; i++ {
		n, _ := fmt.Fprintf(w, "%d,item-%d,%d.%02d,2024-01-%02d,some text in a column\n", i, i%997, i%10000, i%100, 1+i%28)
		size += int64(n)
	}
	w.Flush()
	f.Close()
	b.SetBytes(size)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.CopyIn(ctx, path); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFigureOnHost times a plotting cell until its PNG is on the host
// disk, and reports apart the part after the user's code finished in the
// kernel (savefig, transfer, harvest): "after-cell-ms".
func BenchmarkFigureOnHost(b *testing.B) {
	_, s := benchSession(b)
	ctx := context.Background()
	if _, err := s.Exec(ctx, "import matplotlib.pyplot as plt", nil); err != nil {
		b.Fatal(err)
	}
	samples := make([]time.Duration, 0, b.N)
	after := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		res, err := s.Exec(ctx, "plt.plot([1, 3, 2, 5, 4])", nil)
		if err != nil || len(res.Figures) != 1 {
			b.Fatalf("%v %+v", err, res)
		}
		if _, err := os.Stat(res.Figures[0].Path); err != nil {
			b.Fatal(err)
		}
		total := time.Since(t0)
		samples = append(samples, total)
		after = append(after, total-s.LastKernelTime())
	}
	slices.Sort(after)
	b.ReportMetric(float64(after[len(after)/2].Microseconds())/1000, "after-cell-ms")
	reportPercentiles(b, samples)
}

package sandbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox"
)

// timeEach runs op b.N times and reports the percentiles of its duration.
func timeEach(b *testing.B, op func()) {
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		op()
		samples = append(samples, time.Since(t0))
	}
	reportPercentiles(b, samples)
}

// BenchmarkCheckpoint is what each question's start costs for undo to be
// instant: a checkpoint (a fork of the kernel) of an empty kernel and of one
// holding 300 MB of DataFrames, beside a trivial cell's round trip (the
// baseline). The kernel keeps 16 copies; past that each checkpoint also
// ends the oldest, as in a long session.
func BenchmarkCheckpoint(b *testing.B) {
	for _, c := range []struct{ name, setup string }{
		{"empty", "pass"},
		{"300MB", "import numpy as np, pandas as pd\ndf = pd.DataFrame(np.random.default_rng(0).random((2_500_000, 16)))"},
	} {
		b.Run(c.name+"/cell", func(b *testing.B) {
			_, s := benchSession(b)
			mustExec(b, s, c.setup)
			timeEach(b, func() { mustExec(b, s, "1") })
		})
		b.Run(c.name+"/checkpoint", func(b *testing.B) {
			_, s := benchSession(b)
			mustExec(b, s, c.setup)
			timeEach(b, func() {
				if _, err := s.Checkpoint(context.Background()); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkKernelDeath is a cell that kills the kernel (os._exit) until its
// result is back and the next cell can run: with no checkpoint the
// container restarts and every variable is lost (the baseline); with the
// question's checkpoint the kernel comes back at it in the same container.
func BenchmarkKernelDeath(b *testing.B) {
	for _, withCheckpoint := range []bool{false, true} {
		name := "restart"
		if withCheckpoint {
			name = "checkpoint"
		}
		b.Run(name, func(b *testing.B) {
			_, s := benchSession(b)
			mustExec(b, s, "import pandas as pd\nkept = pd.DataFrame({'a': range(1000)})")
			if withCheckpoint {
				if _, err := s.Checkpoint(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			timeEach(b, func() {
				res, err := s.Exec(context.Background(), "import os\nos._exit(3)", nil)
				if err != nil || res.Error == nil || res.Rewound != withCheckpoint {
					b.Fatalf("%v %+v", err, res)
				}
			})
		})
	}
}

func mustExec(b *testing.B, s *sandbox.Session, code string) {
	b.Helper()
	res, err := s.Exec(context.Background(), code, nil)
	if err != nil || res.Error != nil {
		b.Fatalf("%s: %v %+v", code, err, res.Error)
	}
}

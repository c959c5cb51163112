package sandbox_test

import (
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// Checkpoints of a session holding a few hundred MB of DataFrames: the
// copies share what the kernel does not change, a turn that replaces a
// frame makes its copy keep the old one, and under memory pressure the OOM
// killer ends copies before the kernel.
func TestCheckpointsWithBigDataFrames(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{Timeout: 90 * time.Second, Limits: sandbox.Limits{Memory: 1 << 30}})
	if s.Enforcement().Memory != sandbox.LimitCgroup {
		t.Skip("no memory cgroup on this engine (rootless Podman on cgroup v1): neither the copies' memory nor the OOM killer's order can be seen")
	}
	mustOK(t, run(t, s, "import numpy as np, pandas as pd\ndf = pd.DataFrame(np.random.default_rng(0).random((2_500_000, 16)))  # 305 MiB\ntotal = float(df[0].sum())"))
	cp1 := checkpoint(t, s)
	// A question that adds a column and a small frame: little of the heap changes.
	mustOK(t, run(t, s, "df['extra'] = df[1] * 2\nsmall = df.head(1000).copy()"))
	cp2 := checkpoint(t, s)
	const copiesMemory = sandboxtest.CopiesMemoryPy + "out = {'copies': copies_mib, 'kernel': kernel_mib, 'n': len(snapshots())}" + report
	var m struct{ Copies, Kernel, N int }
	runJSON(t, s, copiesMemory, &m)
	t.Logf("two copies beside a %d MiB kernel hold %d MiB of their own", m.Kernel, m.Copies)
	if m.N != 2 || m.Copies > 100 {
		t.Errorf("%d copies hold %d MiB of their own: copy-on-write should share the 305 MiB frame", m.N, m.Copies)
	}
	// Replacing the frame: the newest copy keeps the old one alive.
	mustOK(t, run(t, s, "df = df * 3"))
	runJSON(t, s, copiesMemory, &m)
	t.Logf("after df = df * 3 the copies hold %d MiB", m.Copies)
	if m.Copies < 250 {
		t.Errorf("the copies hold %d MiB after the frame was replaced; the old frame (305 MiB) should be theirs now", m.Copies)
	}
	if r := rewind(t, s, cp2); r.At != cp2 {
		t.Fatalf("rewind reached %+v", r.At)
	}
	if got := value(t, s, "float(df[0].sum()) == total, 'extra' in df, len(small)"); got != "(True, True, 1000)" {
		t.Fatalf("after rewind: %s", got)
	}
	// Under pressure: the pinned old frame and two new ones do not fit in
	// 1 GiB. The OOM killer ends the copy and the cell goes on.
	cp3 := checkpoint(t, s)
	mustOK(t, run(t, s, "df = df * 2"))
	res := run(t, s, "df = df * 2\ndf2 = df + 1\nfloat(df[0].sum() / total)")
	if res.Error != nil {
		t.Fatalf("the kernel, not a copy, paid for the memory: %+v", res.Error)
	}
	if res.Value == nil || res.Value.Repr != "4.0" {
		t.Errorf("value %+v", res.Value)
	}
	r := rewind(t, s, cp3)
	t.Logf("rewind after the copy was taken: reached %+v (cp1 %+v, cp3 %+v)", r.At, cp1, cp3)
	if r.At == cp3 {
		t.Errorf("the copy of cp3 survived the memory pressure: the test did not press hard enough")
	}
	res = run(t, s, "'df2' in globals()")
	if res.Error != nil && res.Error.Kind == kernel.ErrOutOfMemory {
		t.Fatalf("after the rewind: %+v", res.Error)
	}
}

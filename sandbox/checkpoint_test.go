package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

func checkpoint(t *testing.T, s *sandbox.Session) sandbox.Checkpoint {
	t.Helper()
	cp, err := s.Checkpoint(testCtx(t))
	if err != nil {
		t.Fatalf("checkpoint: %v", err)
	}
	return cp
}

func rewind(t *testing.T, s *sandbox.Session, cp sandbox.Checkpoint) sandbox.Rewound {
	t.Helper()
	r, err := s.Rewind(testCtx(t), cp)
	if err != nil {
		t.Fatalf("rewind: %v", err)
	}
	return r
}

// value is the repr of a final expression.
func value(t *testing.T, s *sandbox.Session, expr string) string {
	t.Helper()
	res := cell(t, s, expr)
	cellOK(t, res)
	if res.Value == nil {
		t.Fatalf("%s: no value", expr)
	}
	return res.Value.Repr
}

func TestRewindUndoesChangedAndCreatedVariables(t *testing.T) {
	s := sharedSession(t)
	cellOK(t, cell(t, s, "changed = 'before'\nimport numpy as np\nrng = np.random.default_rng(7)"))
	cp := checkpoint(t, s)
	cellOK(t, cell(t, s, "changed = 'after'\ncreated = 42\ndraw = rng.integers(1000000)"))
	first := value(t, s, "int(draw)")
	r := rewind(t, s, cp)
	if r.At != cp {
		t.Fatalf("rewind reached %+v, want the checkpoint itself", r.At)
	}
	if got := value(t, s, "changed, 'created' in globals()"); got != "('before', False)" {
		t.Fatalf("after rewind: %s", got)
	}
	// The random generator's state came back too: the same draw again.
	if got := value(t, s, "int(rng.integers(1000000))"); got != first {
		t.Errorf("draw after rewind %s, want %s (the generator's state at the checkpoint)", got, first)
	}
	// The kernel keeps serving: output, interrupts, values.
	res := cell(t, s, "print('still here')")
	cellOK(t, res)
	if !strings.Contains(res.Stdout, "still here") {
		t.Errorf("stdout after rewind: %q", res.Stdout)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	res, err := s.Exec(ctx, "import time\ntime.sleep(60)", nil)
	if err != nil || res.Error == nil || res.Error.Kind != kernel.ErrInterrupted || res.StateLost {
		t.Fatalf("interrupt after rewind: %+v %v", res, err)
	}
	if got := value(t, s, "changed"); got != "'before'" {
		t.Errorf("after the interrupt: %s", got)
	}
}

func TestRewindTwiceGoesBackTwoSteps(t *testing.T) {
	s := sharedSession(t)
	cellOK(t, cell(t, s, "steps = ['q1']"))
	cp2 := checkpoint(t, s)
	cellOK(t, cell(t, s, "steps.append('q2'); second = True"))
	cp3 := checkpoint(t, s)
	cellOK(t, cell(t, s, "steps.append('q3'); third = True"))
	rewind(t, s, cp3)
	if got := value(t, s, "steps, 'third' in globals(), 'second' in globals()"); got != "(['q1', 'q2'], False, True)" {
		t.Fatalf("one step back: %s", got)
	}
	r := rewind(t, s, cp2)
	if r.At != cp2 {
		t.Fatalf("second rewind reached %+v, want %+v", r.At, cp2)
	}
	if got := value(t, s, "steps, 'second' in globals()"); got != "(['q1'], False)" {
		t.Fatalf("two steps back: %s", got)
	}
	if _, err := s.Rewind(testCtx(t), cp3); err == nil {
		t.Error("a checkpoint rewound past was rewound to again")
	}
}

func TestRewindAfterFailedAndTimedOutCells(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{Timeout: 2 * time.Second})
	cellOK(t, cell(t, s, "total = 10"))
	cp := checkpoint(t, s)
	res := cell(t, s, "total = 11\nraise ValueError('bad')")
	if res.Error == nil || res.Error.Type != "ValueError" {
		t.Fatalf("failing cell: %+v", res)
	}
	res = cell(t, s, "total = 12\nimport time\nwhile True:\n    time.sleep(0.1)")
	if res.Error == nil || res.Error.Kind != kernel.ErrTimeout || res.StateLost {
		t.Fatalf("timed-out cell: %+v", res)
	}
	if got := value(t, s, "total"); got != "12" {
		t.Fatalf("before rewind: %s", got)
	}
	if r := rewind(t, s, cp); r.At != cp {
		t.Fatalf("rewind reached %+v", r.At)
	}
	if got := value(t, s, "total"); got != "10" {
		t.Errorf("after rewind: %s, want 10", got)
	}
}

// A checkpoint is a fork: thread pools of native libraries that do not
// survive one (libgomp's, behind sklearn) would hang the rewound kernel.
func TestRewindAfterNativeThreadPools(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{Timeout: 60 * time.Second})
	const work = `
import io
import numpy as np, pandas as pd
from sklearn.cluster import KMeans
csv = io.StringIO('a,b\n' + '1,2\n' * 200000)
sums = pd.read_csv(csv, engine='pyarrow').sum().tolist()
m = np.random.default_rng(1).random((600, 600))
km = KMeans(n_clusters=3, n_init=2, random_state=0).fit(np.random.default_rng(2).random((20000, 4)))
result = (sums, round(float((m @ m).trace()), 3), sorted(np.bincount(km.labels_).tolist()))
`
	cellOK(t, cell(t, s, work+"first = result"))
	cp := checkpoint(t, s)
	cellOK(t, cell(t, s, work+"later = result"))
	rewind(t, s, cp)
	res := cell(t, s, work+"result == first, 'later' in globals()")
	cellOK(t, res)
	if res.Value == nil || res.Value.Repr != "(True, False)" {
		t.Fatalf("pyarrow, OpenBLAS and OpenMP after a rewind: %+v", res.Value)
	}
}

func TestRewindOutputFiles(t *testing.T) {
	e := sandboxtest.Engine(t)
	out := filepath.Join(t.TempDir(), "out")
	s := sandboxtest.Session(t, e, sandbox.Options{OutputDir: out})
	res := cell(t, s, "open('/output/kept.csv', 'w').write('a\\n1\\n')\nimport matplotlib.pyplot as plt\nplt.plot([1, 2])")
	cellOK(t, res)
	if len(res.Figures) != 1 || res.Figures[0].Name != "figures/cell1-1.png" {
		t.Fatalf("first figure: %+v", res.Figures)
	}
	cp := checkpoint(t, s)
	res = cell(t, s, "import os\nos.makedirs('/output/made/deep')\nopen('/output/made/deep/new.csv', 'w').write('x')\nopen('/output/kept.csv', 'a').write('2\\n')\nplt.plot([3, 1])")
	cellOK(t, res)
	if len(res.Figures) != 1 || res.Figures[0].Name != "figures/cell2-1.png" || len(res.Files) != 2 {
		t.Fatalf("second cell: figures %+v files %+v", res.Figures, res.Files)
	}
	r := rewind(t, s, cp)
	if !slices.Equal(r.Removed, []string{"figures/cell2-1.png", "made/deep/new.csv"}) || !slices.Equal(r.Changed, []string{"kept.csv"}) {
		t.Fatalf("removed %q changed %q", r.Removed, r.Changed)
	}
	for _, gone := range []string{"made", "figures/cell2-1.png"} {
		if _, err := os.Lstat(filepath.Join(out, gone)); !os.IsNotExist(err) {
			t.Errorf("%s still in the host folder (%v)", gone, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "figures", "cell1-1.png")); err != nil {
		t.Errorf("the figure from before the checkpoint: %v", err)
	}
	// Numbering resumes at the checkpoint: the next figure is cell 2's again.
	res = cell(t, s, "plt.plot([0, 5])")
	cellOK(t, res)
	if len(res.Figures) != 1 || res.Figures[0].Name != "figures/cell2-1.png" {
		t.Errorf("figure after rewind: %v", fileNames(res.Figures))
	}
	if got := value(t, s, "sorted(__import__('os').listdir('/output'))"); got != "['kept.csv']" {
		t.Errorf("/output after rewind: %s", got)
	}
}

func TestRewindSQLViews(t *testing.T) {
	s := sharedSession(t)
	cellOK(t, cell(t, s, "sql('CREATE OR REPLACE VIEW early AS SELECT 1 AS x')"))
	cp := checkpoint(t, s)
	cellOK(t, cell(t, s, "sql('CREATE OR REPLACE VIEW late AS SELECT 2 AS x')\nsql('CREATE OR REPLACE VIEW early AS SELECT 3 AS x')"))
	rewind(t, s, cp)
	got := value(t, s, "sorted(sql(\"SELECT view_name FROM duckdb_views() WHERE NOT internal\")['view_name']), int(sql('SELECT x FROM early')['x'][0])")
	if got != "(['early'], 1)" {
		t.Errorf("views after rewind: %s", got)
	}
}

func TestRewindWhenCheckpointLost(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{})
	cellOK(t, cell(t, s, "n = 1"))
	cp1 := checkpoint(t, s)
	cellOK(t, cell(t, s, "n = 2"))
	cp2 := checkpoint(t, s)
	cellOK(t, cell(t, s, "n = 3"))
	// The newest copy dies (as under the OOM killer): the rewind reaches the one before.
	if got := value(t, s, sandboxtest.CopiesPy+"len(snapshots(1000)), len(snapshots(500))"); got != "(1, 1)" {
		t.Errorf("older and newest copies by OOM score: %s, want (1, 1)", got)
	}
	cellOK(t, cell(t, s, sandboxtest.CopiesPy+"import signal\nos.kill(snapshots(500)[0], signal.SIGKILL)"))
	r := rewind(t, s, cp2)
	if r.At != cp1 {
		t.Fatalf("rewind reached %+v, want the earlier checkpoint %+v", r.At, cp1)
	}
	if got := value(t, s, "n"); got != "1" {
		t.Errorf("n = %s at the earlier checkpoint", got)
	}
	// A crash with no copy left restarts the container: a fresh kernel.
	cp3 := checkpoint(t, s)
	cellOK(t, cell(t, s, sandboxtest.KillCopiesPy))
	if res := cell(t, s, "import os\nos._exit(3)"); !res.StateLost || res.Rewound {
		t.Fatalf("crash: %+v", res)
	}
	r = rewind(t, s, cp3)
	if r.At != (sandbox.Checkpoint{}) {
		t.Fatalf("after a crash the rewind reached %+v, want a fresh kernel", r.At)
	}
	if got := value(t, s, "'n' in globals()"); got != "False" {
		t.Errorf("fresh kernel has n: %s", got)
	}
}

func TestCheckpointsCapped(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{})
	var cps []sandbox.Checkpoint
	for i := 0; i < 20; i++ {
		cellOK(t, cell(t, s, "i = "+strconv.Itoa(i)))
		cps = append(cps, checkpoint(t, s))
	}
	if got := value(t, s, sandboxtest.CopiesPy+"len(snapshots())"); got != "16" {
		t.Errorf("%s copies kept, want 16", got)
	}
	// The oldest were ended: going back that far lands on the oldest kept.
	r := rewind(t, s, cps[1])
	if r.At != (sandbox.Checkpoint{}) {
		t.Errorf("rewind to a dropped checkpoint reached %+v, want a fresh kernel", r.At)
	}
}

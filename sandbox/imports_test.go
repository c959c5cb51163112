package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// The kernel says ready before numpy, pandas and matplotlib are imported
// (pykernel/quarry_kernel/runtime/imports.py); what needs them waits. These tests hold the imports
// back (SetImportsDelay) so each operation surely meets them pending.

func TestReadyComesBeforeTheImports(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{})
	if _, pandas := s.PythonVersion(); pandas != "" {
		t.Errorf("pandas %s was imported before ready", pandas)
	}
	// The first cell finds them all, whole, without importing them.
	got := value(t, s, "import sys\n(pd.DataFrame({'a': [1, 2]}).a.sum(), np.arange(3).sum(), plt.__name__, matplotlib.get_backend().lower(), plt.show(), 'pyreadstat' in globals())")
	if got != "(np.int64(3), np.int64(3), 'matplotlib.pyplot', 'agg', None, True)" {
		t.Errorf("first cell saw %s", got)
	}

	t.Setenv(sandbox.ImportsEnv, "eager")
	eager := sandboxtest.Session(t, e, sandbox.Options{})
	if _, pandas := eager.PythonVersion(); pandas == "" {
		t.Errorf("with %s=eager, ready came before pandas", sandbox.ImportsEnv)
	}
	if got := value(t, eager, "pd.__name__, plt.__name__"); got != "('pandas', 'matplotlib.pyplot')" {
		t.Errorf("eager kernel: %s", got)
	}
}

// The wait for the imports is part of the kernel's start, not of the cell's
// time limit, and the cell's figure is captured as any other.
func TestFirstCellWaitsForImportsOutsideItsLimit(t *testing.T) {
	defer sandbox.SetImportsDelay(2 * time.Second)()
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{Timeout: time.Second})
	res := cell(t, s, "plt.plot([1, 3, 2])\npd.DataFrame({'a': [1]}).shape")
	cellOK(t, res)
	if res.Value == nil || res.Value.Repr != "(1, 1)" || len(res.Figures) != 1 {
		t.Fatalf("value %+v, %d figures", res.Value, len(res.Figures))
	}
	if _, err := os.Stat(res.Figures[0].Path); err != nil {
		t.Errorf("figure not on the host: %v", err)
	}
}

func TestProfileWaitsForPandasOutsideItsLimit(t *testing.T) {
	defer sandbox.SetImportsDelay(2 * time.Second)()
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{Timeout: time.Second})
	path := filepath.Join(t.TempDir(), "q1.csv")
	if err := os.WriteFile(path, []byte("region,revenue\nNorth,80000\nSouth,100000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := s.AddFile(testCtx(t), path)
	if err != nil || p.Error != "" {
		t.Fatalf("profile: %v %q", err, p.Error)
	}
	if p.Rows != 2 || len(p.Columns) != 2 {
		t.Errorf("profile %d rows, %d columns", p.Rows, len(p.Columns))
	}
}

// A cell stopped while it waits for the imports is interrupted like any
// other; the next one gets them.
func TestCellInterruptedWhileImportsPending(t *testing.T) {
	defer sandbox.SetImportsDelay(3 * time.Second)()
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res, err := s.Exec(ctx, "waited = pd", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Error == nil || res.Error.Kind != kernel.ErrInterrupted || res.StateLost {
		t.Fatalf("result %+v error %+v", res, res.Error)
	}
	if got := value(t, s, "'waited' in globals(), pd.__name__"); got != "(False, 'pandas')" {
		t.Errorf("after the interrupt: %s", got)
	}
}

// A checkpoint asked for while the imports run forks only once they are
// done: a fork during them would leave the copy without the importing
// thread (its cells would wait for ever) or with its locks held.
func TestCheckpointWhileImportsPending(t *testing.T) {
	defer sandbox.SetImportsDelay(time.Second)()
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{})
	cp := checkpoint(t, s)
	res := cell(t, s, "made = 1\nplt.plot([1, 2])")
	cellOK(t, res)
	if len(res.Figures) != 1 {
		t.Fatalf("%d figures before the rewind", len(res.Figures))
	}
	if r := rewind(t, s, cp); r.At != cp {
		t.Fatalf("rewind reached %+v, want %+v", r.At, cp)
	}
	res = cell(t, s, "import matplotlib.pyplot\nplt.bar(['a'], [1])\n'made' in globals(), pd.__name__, matplotlib.pyplot is plt")
	cellOK(t, res)
	if res.Value == nil || res.Value.Repr != "(False, 'pandas', True)" || len(res.Figures) != 1 {
		t.Fatalf("after the rewind: value %+v, %d figures", res.Value, len(res.Figures))
	}
}

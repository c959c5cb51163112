package sandbox_test

import (
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// A cell waits only for the libraries it uses (pykernel/quarry_kernel/runtime/imports.py).
// Some cells below spell a library's name in pieces ('p' + 'd') so that the
// kernel's scan of the cell's text does not see it: that is the code the
// scan cannot protect, which the namespace's lazy names and the fork hook
// must.

// hidden is 'pd' in globals() and the like, spelled so the scan misses it.
func hidden(name string) string {
	return "'" + name[:1] + "' + '" + name[1:] + "' in globals()"
}

func TestCellWaitsOnlyForTheLibrariesItNames(t *testing.T) {
	defer sandbox.SetImportsDelay(3 * time.Second)()
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{Timeout: time.Second})
	// Neither waits: a trivial cell, and one importing a module already loaded.
	if got := value(t, s, "x = 1\n"+hidden("pd")); got != "False" {
		t.Errorf("a trivial cell waited for the imports: 'pd' in globals() is %s", got)
	}
	if got := value(t, s, "import os, json\n"+hidden("np")); got != "False" {
		t.Errorf("importing loaded modules waited for the imports: 'np' in globals() is %s", got)
	}
	// This one waits for pandas, outside its 1 s limit (the imports are 3 s away).
	if got := value(t, s, "pd.DataFrame({'a': [1, 2]}).a.sum()"); got != "np.int64(3)" {
		t.Errorf("pandas cell: %s", got)
	}
	res := cell(t, s, "plt.plot([1, 3])\nmatplotlib.get_backend().lower(), plt.show()")
	cellOK(t, res)
	if res.Value == nil || res.Value.Repr != "('agg', None)" || len(res.Figures) != 1 {
		t.Errorf("pyplot cell: value %+v, %d figures", res.Value, len(res.Figures))
	}
}

// Importing a module not loaded yet waits for every library: its import
// may need theirs.
func TestImportOfANewModuleWaitsForAll(t *testing.T) {
	defer sandbox.SetImportsDelay(2 * time.Second)()
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{})
	if got := value(t, s, "import wave\n"+hidden("pd")+", "+hidden("plt")+", "+hidden("pyreadstat")); got != "(True, True, True)" {
		t.Errorf("after import wave: %s", got)
	}
}

// Names the scan did not see (exec of a string; a function defined in one
// cell, called in another) wait for their import where they are looked up;
// once in the namespace, a name the code deleted stays deleted.
func TestNamesTheScanMissesWaitWhereUsed(t *testing.T) {
	defer sandbox.SetImportsSlow("matplotlib.pyplot", 3*time.Second)()
	defer sandbox.SetImportsDelay(time.Second)()
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{})
	cellOK(t, cell(t, s, "exec('def names():\\n    return ' + 'p' + 'd.__name__, n' + 'p.__name__')\n"+
		"def shape():\n    return pd.DataFrame({'a': [1]}).shape"))
	if got := value(t, s, "names()"); got != "('pandas', 'numpy')" {
		t.Errorf("a function from an exec'd string: %s", got)
	}
	if got := value(t, s, "shape()"); got != "(1, 1)" {
		t.Errorf("a function from the cell before: %s", got)
	}
	res := cell(t, s, "del pd\nnames()")
	if res.Error == nil || res.Error.Type != "NameError" || !strings.Contains(res.Error.Message, "'pd'") {
		t.Errorf("pd came back after del: %+v %+v", res.Value, res.Error)
	}
	// pyplot is still half made here: the exec'd lookup waits for it.
	if got := value(t, s, "exec('v = ' + 'p' + 'lt.__name__')\nv"); got != "'matplotlib.pyplot'" {
		t.Errorf("plt through exec: %s", got)
	}
	// Once all are in, the namespace's builtins are the module again.
	if got := value(t, s, "pyreadstat.__name__, type(__builtins__).__name__, len('ab')"); got != "('pyreadstat', 'module', 2)" {
		t.Errorf("after the imports: %s", got)
	}
}

// What the kernel reads of sys.modules after a cell (tables, figures) does
// not take a library the import thread is still making: a trivial cell
// then ends without a note, and one that plots waits for pyplot.
func TestCellEndsCleanWhilePyplotIsHalfMade(t *testing.T) {
	defer sandbox.SetImportsSlow("matplotlib.pyplot", 3*time.Second)()
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{Timeout: 2 * time.Second})
	deadline := time.Now().Add(time.Minute)
	for value(t, s, "import sys\n'matplot' + 'lib.py' + 'plot' in sys.modules") != "True" {
		if time.Now().After(deadline) {
			t.Fatal("pyplot's import never began")
		}
		time.Sleep(300 * time.Millisecond) // the kernel idle: pyplot's turn
	}
	res := cell(t, s, "sql('select 42 as answer')")
	cellOK(t, res)
	if len(res.Notes) != 0 || res.Value == nil || res.Value.Table == nil || res.Value.Table.Head[0][0] != "42" {
		t.Errorf("a cell ending while pyplot is half made: notes %q, value %+v", res.Notes, res.Value)
	}
	res = cell(t, s, "plt.bar(['a'], [1])\n1")
	cellOK(t, res)
	if len(res.Figures) != 1 || len(res.Notes) != 0 {
		t.Errorf("plotting cell: %d figures, notes %q", len(res.Figures), res.Notes)
	}
}

// The user's own os.fork() waits for the import thread to end: a fork
// during an import copies its held locks into a child with no thread to
// release them.
func TestUsersForkWaitsForTheImports(t *testing.T) {
	defer sandbox.SetImportsDelay(time.Second)()
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{})
	got := value(t, s, "import os, sys, threading\npid = os.fork()\n"+
		"if pid == 0:\n    os._exit(0 if 'num' + 'py' in sys.modules and 'matplot' + 'lib.py' + 'plot' in sys.modules else 3)\n"+
		"os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), [t.name for t in threading.enumerate() if t.name == 'quarry-' + 'imports']")
	if got != "(0, [])" {
		t.Errorf("fork during the imports: child's status and the import thread after it: %s", got)
	}
}

// An import that fails is said once, in the notes of a cell, even when a
// checkpoint came first; the other libraries are there.
func TestImportFailureSaidOnce(t *testing.T) {
	defer sandbox.SetImportsBroken("matplotlib")()
	defer sandbox.SetImportsDelay(time.Second)()
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{})
	checkpoint(t, s)
	var said []int
	for i, code := range []string{"1", "plt", "np.__name__, pd.__name__, pyreadstat.__name__", "2"} {
		res := cell(t, s, code)
		for _, n := range res.Notes {
			if strings.Contains(n, "import failed") && strings.Contains(n, "matplotlib") {
				said = append(said, i)
			}
		}
		switch i {
		case 1:
			if res.Error == nil || res.Error.Type != "NameError" {
				t.Errorf("plt without matplotlib: %+v", res.Error)
			}
		case 2:
			if res.Value == nil || res.Value.Repr != "('numpy', 'pandas', 'pyreadstat')" {
				t.Errorf("the others: %+v %+v", res.Value, res.Error)
			}
		}
	}
	if len(said) != 1 || said[0] > 1 {
		t.Errorf("the failure was said in cells %v, want once, by the cell that asked for plt", said)
	}
}

// The first cell finds IPython's ways as in Jupyter while the imports run.
func TestFirstCellIPythonWhileImportsPending(t *testing.T) {
	defer sandbox.SetImportsDelay(2 * time.Second)()
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{Timeout: time.Second})
	res := cell(t, s, "%matplotlib inline\ndf = pd.DataFrame({'a': [1.0, 2.5]})\ndisplay(df)\ndf.plot()\ndf.style.format('{:.2f}')")
	cellOK(t, res)
	if !strings.Contains(res.Stdout, "2.5") || len(res.Figures) != 1 {
		t.Errorf("display and plot: stdout %q, %d figures", res.Stdout, len(res.Figures))
	}
	if res.Value == nil || res.Value.Table == nil || res.Value.Table.Rows != 2 {
		t.Errorf("a Styler as the value: %+v", res.Value)
	}
	// %precision sets numpy's too, though no name in the cell says numpy.
	s2 := sandboxtest.Session(t, e, sandbox.Options{Timeout: time.Second})
	cellOK(t, cell(t, s2, "%precision 3"))
	if got := value(t, s2, "import sys\nsys.modules['num' + 'py'].array([3.14159])"); got != "array([3.142])" {
		t.Errorf("numpy after %%precision 3 in the first cell: %s", got)
	}
}

// The first checkpoint, with no cell run before it, is the copy the kernel
// forked as it started: it waits for no import, and a kernel back at it
// (undo, or a death) imports them again.
func TestFirstCheckpointWaitsForNoImport(t *testing.T) {
	defer sandbox.SetImportsDelay(3 * time.Second)()
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{})
	cp := checkpoint(t, s)
	if got := value(t, s, "made = 1\n"+hidden("pd")); got != "False" {
		t.Errorf("the first checkpoint waited for the imports: 'pd' in globals() is %s", got)
	}
	checkpoint(t, s) // after a cell: a fork, once the imports are done
	if got := value(t, s, hidden("pd")+", "+hidden("plt")); got != "(True, True)" {
		t.Errorf("after the second checkpoint: %s", got)
	}
	if r := rewind(t, s, cp); r.At != cp {
		t.Fatalf("rewind reached %+v, want %+v", r.At, cp)
	}
	if got := value(t, s, "'made' in globals(), pd.__name__, plt.__name__"); got != "(False, 'pandas', 'matplotlib.pyplot')" {
		t.Errorf("back at the start's copy: %s", got)
	}

	// The kernel dies after the first checkpoint: it comes back at it.
	s2 := sandboxtest.Session(t, e, sandbox.Options{})
	checkpoint(t, s2)
	cellOK(t, cell(t, s2, "made = 1"))
	if res := cell(t, s2, "import os\nos._exit(3)"); res.Error == nil || res.Error.Kind != kernel.ErrCrashed || !res.Rewound {
		t.Fatalf("death: %+v %+v", res, res.Error)
	}
	if got := value(t, s2, "'made' in globals(), pd.__name__, plt.__name__"); got != "(False, 'pandas', 'matplotlib.pyplot')" {
		t.Errorf("revived from the start's copy: %s", got)
	}
}

// QUARRY_KERNEL_IMPORTS=wait is the order before cells waited per name:
// the first cell finds every name, whatever it says.
func TestImportsWaitMode(t *testing.T) {
	defer sandbox.SetImportsDelay(time.Second)()
	t.Setenv(sandbox.ImportsEnv, "wait")
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{})
	checkpoint(t, s)
	got := value(t, s, "["+hidden("np")+", "+hidden("pd")+", "+hidden("plt")+", "+hidden("pyreadstat")+"]")
	if got != "[True, True, True, True]" {
		t.Errorf("first cell in wait mode: %s", got)
	}
}

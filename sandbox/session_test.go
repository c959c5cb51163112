package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// shared starts one session for the tests that only run cells, so the
// suite pays for a kernel start once.
var shared struct {
	once sync.Once
	e    *engine.Engine
	s    *sandbox.Session
	err  error
}

func sharedSession(t *testing.T) *sandbox.Session {
	t.Helper()
	e := sandboxtest.Engine(t) // skips or fails before anything starts
	_ = e
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		eng, err := engine.Connect(ctx)
		if err != nil {
			shared.err = err
			return
		}
		dir, _ := os.MkdirTemp("", "quarry-sandbox-test-")
		shared.e = eng
		shared.s, shared.err = sandbox.Start(ctx, eng, sandbox.Options{OutputDir: filepath.Join(dir, "out")})
	})
	if shared.err != nil {
		t.Fatalf("start shared session: %v", shared.err)
	}
	return shared.s
}

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		runOrphanHelper()
		return
	}
	code := sandboxtest.Main(m) // the Dask ledger is made once for the package
	if shared.s != nil {
		shared.s.Close()
		os.RemoveAll(filepath.Dir(shared.s.OutputDir()))
		shared.e.Close()
	}
	os.Exit(code)
}

func cell(t *testing.T, s *sandbox.Session, code string) kernel.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := s.Exec(ctx, code, nil)
	if err != nil {
		t.Fatalf("exec %q: %v", code, err)
	}
	return res
}

func cellOK(t *testing.T, res kernel.Result) {
	t.Helper()
	if res.Error != nil {
		t.Fatalf("cell failed: %+v\nstdout: %s\nstderr: %s", res.Error, res.Stdout, res.Stderr)
	}
}

func TestStatePersistsAcrossCells(t *testing.T) {
	s := sharedSession(t)
	cellOK(t, cell(t, s, "x = 41\ndef f(a):\n    return a + 1"))
	res := cell(t, s, "f(x)")
	cellOK(t, res)
	if res.Value == nil || res.Value.Repr != "42" {
		t.Fatalf("value = %+v, want 42", res.Value)
	}
	if res := cell(t, s, "print('hé', 1)\nNone"); res.Stdout != "hé 1\n" || res.Value != nil {
		t.Fatalf("stdout %q value %+v", res.Stdout, res.Value)
	}
}

func TestExceptionTracebackTrimmedToUserCode(t *testing.T) {
	s := sharedSession(t)
	res := cell(t, s, "d = {}\ndef g():\n    return d['missing']\ng()")
	if res.Error == nil || res.Error.Kind != kernel.ErrException || res.Error.Type != "KeyError" {
		t.Fatalf("error = %+v", res.Error)
	}
	if strings.Contains(res.Error.Traceback, "quarry") || !strings.Contains(res.Error.Traceback, "d['missing']") {
		t.Fatalf("traceback not trimmed to the cell:\n%s", res.Error.Traceback)
	}
}

func TestDataFrameValueAsTable(t *testing.T) {
	s := sharedSession(t)
	res := cell(t, s, "import pandas as pd\ndf = pd.DataFrame({'n': range(30), 'city': ['Köln'] * 30})\ndf['v'] = df.n * 1.5\ndf")
	cellOK(t, res)
	tb := res.Value.Table
	if tb == nil {
		t.Fatalf("no table in %+v", res.Value)
	}
	if tb.Rows != 30 || tb.Cols != 3 || len(tb.Head) != 10 || len(tb.Tail) != 5 || len(tb.Index) != 15 {
		t.Fatalf("shape: rows %d cols %d head %d tail %d", tb.Rows, tb.Cols, len(tb.Head), len(tb.Tail))
	}
	if strings.Join(tb.Columns, ",") != "n,city,v" || tb.Dtypes[0] != "int64" || tb.Dtypes[2] != "float64" {
		t.Fatalf("columns %v dtypes %v", tb.Columns, tb.Dtypes)
	}
	if tb.Tail[4][0] != "29" || tb.Head[1][1] != "Köln" || tb.Head[1][2] != "1.5" {
		t.Fatalf("cells: head %v tail %v", tb.Head[:2], tb.Tail[4])
	}
	res = cell(t, s, "df.v")
	if res.Value.Table == nil || res.Value.Table.Columns[0] != "v" || res.Value.Table.Rows != 30 {
		t.Fatalf("series value %+v", res.Value)
	}
}

// Tables carry the cells as pandas displays them (display.precision, one
// number of decimals for a column, head and tail formatted together) beside
// the exact values the model reads.
func TestTableDisplayAsPandas(t *testing.T) {
	s := sharedSession(t)
	res := cell(t, s, `import pandas as pd, numpy as np
df = pd.DataFrame({"v": [46624.99000000002, 1200.5, np.nan] + [1.0] * 27, "n": range(30)},
                  index=pd.Index([0.5 * i for i in range(30)], name="x"))
df`)
	cellOK(t, res)
	tb := res.Value.Table
	if len(tb.Display) != 15 || len(tb.IndexDisplay) != 15 {
		t.Fatalf("display %d rows, index %d, want 15", len(tb.Display), len(tb.IndexDisplay))
	}
	if tb.Head[0][0] != "46624.99000000002" {
		t.Errorf("exact value %q, want the repr", tb.Head[0][0])
	}
	want := [][]string{{"46624.99", "0"}, {"1200.50", "1"}, {"NaN", "2"}}
	for i, w := range want {
		if strings.Join(tb.Display[i], "|") != strings.Join(w, "|") {
			t.Errorf("display row %d = %v, want %v", i, tb.Display[i], w)
		}
	}
	if tb.Display[14][0] != "1.00" || tb.IndexDisplay[1] != "0.5" || tb.IndexDisplay[14] != "14.5" {
		t.Errorf("tail %v, index %v", tb.Display[14], tb.IndexDisplay)
	}
	res = cell(t, s, "pd.options.display.precision = 1\ndf.head(3)")
	cellOK(t, res)
	if got := res.Value.Table.Display[0][0]; got != "46625.0" {
		t.Errorf("display.precision 1: %q, want 46625.0", got)
	}
	cell(t, s, "pd.reset_option('display.precision')")
}

// With a figure box, each figure is drawn again for the screen: within the
// box, text at the size asked; the saved PNG stays as the code made it.
func TestInlineFigureForTheBox(t *testing.T) {
	s := sharedSession(t)
	s.SetFigureBox(kernel.FigureBox{W: 480, H: 300, FontPx: 10})
	defer s.SetFigureBox(kernel.FigureBox{})
	res := cell(t, s, "import matplotlib.pyplot as plt\nplt.bar(['Engineering', 'Marketing'], [3, 5])\nplt.title('Variance')")
	cellOK(t, res)
	if len(res.Figures) != 1 {
		t.Fatalf("figures %+v notes %v", res.Figures, res.Notes)
	}
	f := res.Figures[0]
	if f.Width != 640 || f.Height != 480 {
		t.Errorf("saved figure %d×%d, want matplotlib's 640×480", f.Width, f.Height)
	}
	w, h, err := kernel.CheckPNG(f.Inline)
	if err != nil {
		t.Fatalf("inline figure: %v", err)
	}
	if w > 480 || h > 300 || w < 300 {
		t.Errorf("inline figure %d×%d, want it to fit 480×300 closely", w, h)
	}
	s.SetFigureBox(kernel.FigureBox{})
	res = cell(t, s, "plt.plot([1, 2])")
	if len(res.Figures) != 1 || res.Figures[0].Inline != nil {
		t.Errorf("without a box, an inline figure: %+v", res.Figures)
	}
}

func TestFigureCapturedWithoutSavefig(t *testing.T) {
	s := sharedSession(t)
	res := cell(t, s, "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.title('t')")
	cellOK(t, res)
	if len(res.Figures) != 1 {
		t.Fatalf("figures = %+v notes %v", res.Figures, res.Notes)
	}
	f := res.Figures[0]
	b, err := os.ReadFile(f.Path)
	if err != nil || !strings.HasPrefix(string(b), "\x89PNG") || f.Width < 100 || f.Height < 100 {
		t.Fatalf("figure file %+v: %v", f, err)
	}
	if !strings.HasPrefix(f.Path, s.OutputDir()) {
		t.Fatalf("figure outside the output folder: %s", f.Path)
	}
	// Closed after capture: the next cell has no figure.
	if res := cell(t, s, "1"); len(res.Figures) != 0 {
		t.Fatalf("figure captured twice: %+v", res.Figures)
	}
}

func TestOutputFilesHarvested(t *testing.T) {
	s := sharedSession(t)
	res := cell(t, s, "import os\nos.makedirs('sub', exist_ok=True)\nopen('sub/r.csv', 'w').write('a,b\\n1,2\\n')\nopen('/output/k.txt', 'w').write('k')")
	cellOK(t, res)
	names := map[string]bool{}
	for _, f := range res.Files {
		names[f.Name] = true
		if b, err := os.ReadFile(f.Path); err != nil || len(b) == 0 {
			t.Fatalf("harvested %s: %v", f.Path, err)
		}
	}
	if !names["sub/r.csv"] || !names["k.txt"] || len(names) != 2 {
		t.Fatalf("files = %+v", res.Files)
	}
	if res := cell(t, s, "1"); len(res.Files) != 0 {
		t.Fatalf("unchanged files reported again: %+v", res.Files)
	}
}

func TestOutputCappedWithoutBlocking(t *testing.T) {
	s := sharedSession(t)
	var chunks, chunkBytes int
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := s.Exec(ctx, "for i in range(200000):\n    print(i)", func(c kernel.Chunk) {
		chunks++
		chunkBytes += len(c.Text)
	})
	if err != nil {
		t.Fatal(err)
	}
	cellOK(t, res)
	if res.Dropped < 1_000_000 || !strings.Contains(res.Stdout, "bytes of output dropped") {
		t.Fatalf("dropped %d; stdout head %q", res.Dropped, res.Stdout[:min(100, len(res.Stdout))])
	}
	if !strings.HasPrefix(res.Stdout, "0\n1\n2\n") || !strings.HasSuffix(res.Stdout, "199998\n199999\n") {
		t.Fatalf("head or tail missing: %q ... %q", res.Stdout[:20], res.Stdout[len(res.Stdout)-20:])
	}
	if len(res.Stdout) > 200_000 || chunks == 0 || chunkBytes != len(res.Stdout) {
		t.Fatalf("stdout %d bytes, %d chunks of %d bytes", len(res.Stdout), chunks, chunkBytes)
	}
	// A single long line (64 MB) is capped the same way.
	res = cell(t, s, "import sys\nsys.stdout.write('y' * (64 << 20))\nsys.stdout.write('\\xff\\udcff end')")
	cellOK(t, res)
	if len(res.Stdout) > 200_000 || !strings.HasSuffix(res.Stdout, "\uFFFD end") || res.Dropped < 60<<20 {
		t.Fatalf("long line: %d bytes kept, %d dropped, tail %q", len(res.Stdout), res.Dropped, res.Stdout[len(res.Stdout)-10:])
	}
}

func TestRawFdOutputDoesNotBreakProtocol(t *testing.T) {
	s := sharedSession(t)
	res := cell(t, s, "import os\nprint('before', flush=True)\nos.system('echo hi; echo err >&2; printf \"\\\\000\\\\377\\\\n\"')\nos.write(1, b'raw\\n')\nprint('after')")
	cellOK(t, res)
	for _, want := range []string{"before", "hi", "raw", "after"} {
		if !strings.Contains(res.Stdout, want) {
			t.Fatalf("stdout %q lacks %q", res.Stdout, want)
		}
	}
	if !strings.Contains(res.Stderr, "err") {
		t.Fatalf("stderr %q", res.Stderr)
	}
	if res := cell(t, s, "40 + 2"); res.Value == nil || res.Value.Repr != "42" {
		t.Fatalf("kernel unusable after raw output: %+v", res)
	}
}

// TestGigabyteSingleLineCapped prints a 1 GiB line from Python and from a
// child process writing to fd 1: both are capped in the kernel without
// doubling its memory, and the host keeps only the head and tail.
func TestGigabyteSingleLineCapped(t *testing.T) {
	s := sharedSession(t)
	for _, code := range []string{
		"print('x' * (1 << 30))",
		"import os\nos.system('head -c 1073741824 /dev/zero | tr \"\\\\0\" y')",
	} {
		res := cell(t, s, code)
		cellOK(t, res)
		if len(res.Stdout) > 100_000 || res.Dropped < 1<<30-100_000 || !strings.Contains(res.Stdout, "bytes of output dropped") {
			t.Fatalf("%q: kept %d bytes, dropped %d", code, len(res.Stdout), res.Dropped)
		}
	}
}

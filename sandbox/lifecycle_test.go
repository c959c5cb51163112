package sandbox_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

func TestTimeoutInterruptsAndKeepsState(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{Timeout: 2 * time.Second})
	cellOK(t, cell(t, s, "kept = 'yes'"))
	res := cell(t, s, "import time\nwhile True:\n    time.sleep(0.1)")
	if res.Error == nil || res.Error.Kind != kernel.ErrTimeout || res.StateLost {
		t.Fatalf("result %+v", res)
	}
	if res := cell(t, s, "kept"); res.Value == nil || res.Value.Repr != "'yes'" {
		t.Fatalf("state lost after a timeout: %+v", res)
	}
}

func TestCancelInterruptsCell(t *testing.T) {
	s := sharedSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	res, err := s.Exec(ctx, "import time\ntime.sleep(60)", nil)
	if err != nil || res.Error == nil || res.Error.Kind != kernel.ErrInterrupted || res.StateLost {
		t.Fatalf("res %+v err %v", res, err)
	}
	cellOK(t, cell(t, s, "1"))

	s.Interrupt() // between cells: must not hit the next cell
	time.AfterFunc(500*time.Millisecond, func() { s.Interrupt() })
	res = cell(t, s, "import time\nt0 = time.time()\ntime.sleep(60)")
	if res.Error == nil || res.Error.Kind != kernel.ErrInterrupted || res.StateLost || res.Duration < 400*time.Millisecond {
		t.Fatalf("Interrupt(): %+v (a stale interrupt must not stop the next cell early)", res)
	}
	if res := cell(t, s, "time.time() - t0 < 30"); res.Value == nil || res.Value.Repr != "True" {
		t.Fatalf("after Interrupt(): %+v", res)
	}
}

func TestSIGINTIgnoringLoopIsKilled(t *testing.T) {
	defer sandbox.SetInterruptGrace(time.Second)()
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{Timeout: time.Second})
	cellOK(t, cell(t, s, "before = 1"))
	res := cell(t, s, "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass")
	if res.Error == nil || res.Error.Kind != kernel.ErrTimeout || !res.StateLost {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(res.Error.Message, "restarted") {
		t.Fatalf("message does not say what happened: %q", res.Error.Message)
	}
	res = cell(t, s, "'before' in globals(), 1 + 1")
	if res.Value == nil || res.Value.Repr != "(False, 2)" {
		t.Fatalf("next cell after kill: %+v", res)
	}
}

func TestMemoryBombReportedAsOutOfMemory(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{Limits: sandbox.Limits{Memory: 256 << 20}})
	res := cell(t, s, "a = []\nwhile True:\n    a.append(b'x' * (16 << 20))")
	if s.Enforcement().Memory == sandbox.LimitPerProcess {
		// No memory cgroup (rootless Podman on cgroup v1): the per-process
		// cap turns the bomb into a MemoryError, and the kernel lives.
		if res.Error == nil || res.Error.Type != "MemoryError" {
			t.Fatalf("under RLIMIT_DATA: result %+v (error %+v), want a MemoryError", res, res.Error)
		}
		cellOK(t, cell(t, s, "print('alive')"))
		return
	}
	if res.Error == nil || res.Error.Kind != kernel.ErrOutOfMemory || !res.StateLost {
		t.Fatalf("result %+v (error %+v)", res, res.Error)
	}
	if !strings.Contains(res.Error.Message, "out of memory") || !strings.Contains(res.Error.Message, "256 MiB") {
		t.Fatalf("message %q", res.Error.Message)
	}
	cellOK(t, cell(t, s, "print('alive')"))
}

func TestKernelDeathClassified(t *testing.T) {
	s := sharedSession(t)
	cellOK(t, cell(t, s, "gone_soon = 1"))
	res := cell(t, s, "import os\nos._exit(3)")
	if res.Error == nil || res.Error.Kind != kernel.ErrCrashed || !res.StateLost || !strings.Contains(res.Error.Message, "status 3") {
		t.Fatalf("os._exit: %+v (error %+v)", res, res.Error)
	}
	res = cell(t, s, "import ctypes\nctypes.string_at(0)")
	if res.Error == nil || res.Error.Kind != kernel.ErrCrashed || !strings.Contains(res.Error.Message, "segmentation fault") {
		t.Fatalf("segfault: %+v", res)
	}
	if res := cell(t, s, "'gone_soon' in globals()"); res.Value == nil || res.Value.Repr != "False" {
		t.Fatalf("after crash: %+v", res)
	}
}

func TestAddFileMidSessionReadOnly(t *testing.T) {
	s := sharedSession(t)
	cellOK(t, cell(t, s, "y = 2"))
	dir := t.TempDir()
	name := "Données [été] 'q' \"x\".csv"
	host := filepath.Join(dir, name)
	content := []byte("a,b\n1,x\n2,y\n")
	if err := os.WriteFile(host, content, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(content)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := s.AddFile(ctx, host)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != name || p.Path != "/data/"+name || p.Rows != 2 || len(p.Columns) != 2 {
		t.Fatalf("profile %+v", p)
	}
	res := cell(t, s, fmt.Sprintf(`import os, pandas as pd
p = %q
df = pd.read_csv(p)
errs = []
for op in (lambda: open(p, 'a'), lambda: os.remove(p), lambda: open('/data/new', 'w'), lambda: os.chmod(p, 0o666)):
    try:
        op()
        errs.append('allowed')
    except OSError as e:
        errs.append(type(e).__name__)
(len(df), y, errs, oct(os.stat(p).st_mode & 0o777), os.path.basename(p) in os.listdir('/data'))`, "/data/"+name))
	cellOK(t, res)
	want := "(2, 2, ['PermissionError', 'PermissionError', 'PermissionError', 'PermissionError'], '0o444', True)"
	if res.Value == nil || res.Value.Repr != want {
		t.Fatalf("got  %s\nwant %s", res.Value.Repr, want)
	}
	after, _ := os.ReadFile(host)
	if sha256.Sum256(after) != sum {
		t.Fatal("host file modified")
	}
}

func TestAddFileRefusesNonRegular(t *testing.T) {
	s := sharedSession(t)
	_, err := s.AddFile(context.Background(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("err = %v", err)
	}
	_, err = s.AddFile(context.Background(), filepath.Join(t.TempDir(), "missing.csv"))
	if err == nil {
		t.Fatal("missing file accepted")
	}
}

func TestProfileEuropeanCSV(t *testing.T) {
	s := sharedSession(t)
	var b bytes.Buffer
	b.WriteString("Stadt;Umsatz;Menge;Datum\n")
	cities := []string{"München", "Köln", "Düsseldorf", "Nürnberg"}
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "%s;%d.%03d,%02d;%d;2024-01-%02d\n", cities[i%4], 1+i, i*7%1000, i%100, i, 1+i%28)
	}
	fmt.Fprintf(&b, "Öhringen;;5;2024-02-01\n")
	latin1 := toLatin1(b.String())
	host := filepath.Join(t.TempDir(), "umsätze.csv")
	if err := os.WriteFile(host, latin1, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := s.AddFile(context.Background(), host)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != "csv" || (p.Encoding != "cp1252" && p.Encoding != "latin-1") || p.Delimiter != ";" || p.Decimal != "," || p.Thousands != "." || p.HeaderRow != 0 || p.Rows != 41 || len(p.Notes) != 0 {
		t.Fatalf("profile %+v", p)
	}
	cols := map[string]kernel.Column{}
	for _, c := range p.Columns {
		cols[c.Name] = c
	}
	if cols["Umsatz"].Dtype != "float64" || cols["Umsatz"].Nulls != 1 || cols["Menge"].Dtype != "int64" || cols["Stadt"].Examples[0] != "München" {
		t.Fatalf("columns %+v", p.Columns)
	}
	if len(p.Head) != 5 || p.Head[0][0] != "München" || p.Head[0][1] != "1000.0" {
		t.Fatalf("head %v", p.Head)
	}
}

func toLatin1(s string) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		out = append(out, byte(r))
	}
	return out
}

func TestRestartKeepsFiles(t *testing.T) {
	s := sharedSession(t)
	host := filepath.Join(t.TempDir(), "keep.csv")
	os.WriteFile(host, []byte("k\n1\n"), 0o644)
	if _, err := s.AddFile(context.Background(), host); err != nil {
		t.Fatal(err)
	}
	cellOK(t, cell(t, s, "z = 1"))
	if err := s.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := cell(t, s, "import os\n('z' in globals(), os.path.exists('/data/keep.csv'))")
	if res.Value == nil || res.Value.Repr != "(False, True)" {
		t.Fatalf("after restart: %+v", res)
	}
}

func TestCloseLeavesNothing(t *testing.T) {
	e := sandboxtest.Engine(t)
	s, err := sandbox.Start(context.Background(), e, sandbox.Options{OutputDir: filepath.Join(t.TempDir(), "out")})
	if err != nil {
		t.Fatal(err)
	}
	cellOK(t, cell(t, s, "open('f.txt', 'w').write('x')"))
	if c, v, _ := sandbox.SessionObjects(context.Background(), e, s.ID()); c != 1 || v != 2 {
		t.Fatalf("before close: %d containers, %d volumes", c, v)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	c, v, err := sandbox.SessionObjects(context.Background(), e, s.ID())
	if err != nil || c != 0 || v != 0 {
		t.Fatalf("after close: %d containers, %d volumes, %v", c, v, err)
	}
	if _, err := s.Exec(context.Background(), "1", nil); err != sandbox.ErrClosed {
		t.Fatalf("exec after close: %v", err)
	}
}

const helperEnv = "QUARRY_ORPHAN_HELPER"

// runOrphanHelper is the test binary re-executed as a quarry process that
// starts a session and is then SIGKILLed, leaving its objects behind.
func runOrphanHelper() {
	ctx := context.Background()
	e, err := engine.Connect(ctx)
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(1)
	}
	s, err := sandbox.Start(ctx, e, sandbox.Options{OutputDir: os.Getenv(helperEnv)})
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(1)
	}
	fmt.Println("SESSION", s.ID())
	time.Sleep(10 * time.Minute)
}

func TestSweepRemovesWhatAKilledProcessLeft(t *testing.T) {
	e := sandboxtest.Engine(t)
	live := sharedSession(t) // a live session of this process must survive
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+filepath.Join(t.TempDir(), "out"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	id, ok := strings.CutPrefix(strings.TrimSpace(line), "SESSION ")
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if !ok {
		t.Fatalf("helper: %q", line)
	}
	ctx := context.Background()
	if c, v, _ := sandbox.SessionObjects(ctx, e, id); c != 1 || v != 2 {
		t.Fatalf("helper left %d containers, %d volumes; want 1 and 2", c, v)
	}
	n, err := sandbox.Sweep(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	if n < 3 {
		t.Fatalf("sweep removed %d objects, want at least 3", n)
	}
	if c, v, _ := sandbox.SessionObjects(ctx, e, id); c != 0 || v != 0 {
		t.Fatalf("after sweep: %d containers, %d volumes", c, v)
	}
	if c, v, _ := sandbox.SessionObjects(ctx, e, live.ID()); c != 1 || v != 2 {
		t.Fatalf("sweep touched a live session: %d containers, %d volumes", c, v)
	}
	cellOK(t, cell(t, live, "1"))
}

func TestProfileExcelSheets(t *testing.T) {
	s := sharedSession(t)
	// The workbook is made inside the sandbox (openpyxl is there, not on
	// the host) and comes back through the harvest, like any output.
	res := cell(t, s, `import pandas as pd
with pd.ExcelWriter('book.xlsx') as w:
    pd.DataFrame({'Region': ['Nord', 'Süd', None], 'Umsatz': [1.5, 2.25, 3.0]}).to_excel(w, sheet_name='Q1', index=False)
    pd.DataFrame({'id': range(12)}).to_excel(w, sheet_name='IDs', index=False)`)
	cellOK(t, res)
	if len(res.Files) != 1 {
		t.Fatalf("files %+v notes %v", res.Files, res.Notes)
	}
	p, err := s.AddFile(context.Background(), res.Files[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != "excel" || len(p.Sheets) != 2 || p.Error != "" {
		t.Fatalf("profile %+v", p)
	}
	q1, ids := p.Sheets[0], p.Sheets[1]
	if q1.Name != "Q1" || q1.Rows != 3 || len(q1.Columns) != 2 || q1.Columns[0].Nulls != 1 || q1.Columns[1].Dtype != "float64" {
		t.Fatalf("sheet Q1 %+v", q1)
	}
	if ids.Name != "IDs" || ids.Rows != 12 || ids.Columns[0].Dtype != "int64" {
		t.Fatalf("sheet IDs %+v", ids)
	}
}

func TestProfileVariants(t *testing.T) {
	s := sharedSession(t)
	cases := []struct {
		name, content            string
		enc, delim, dec          string
		header, rows, firstDtype int // firstDtype: 0 object, 1 int64, 2 float64
	}{
		{"bom.csv", "\ufeffname,price\nA,1.5\nB,2.5\n", "utf-8-sig", ",", ".", 0, 2, 0},
		{"tabs.tsv", "id\tvalue\n1\t3,5\n2\t4,25\n", "utf-8", "\t", ",", 0, 2, 1},
		{"noheader.csv", "1,2.5,x\n2,3.5,y\n3,4.5,z\n", "utf-8", ",", ".", -1, 3, 1},
		{"pipes.txt", "a|b|c\n1|2|3\n4|5|6\n", "utf-8", "|", ".", 0, 2, 1},
	}
	dtypes := []string{"object", "int64", "float64"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			host := filepath.Join(t.TempDir(), c.name)
			os.WriteFile(host, []byte(c.content), 0o644)
			p, err := s.AddFile(context.Background(), host)
			if err != nil {
				t.Fatal(err)
			}
			if p.Encoding != c.enc || p.Delimiter != c.delim || p.Decimal != c.dec || p.HeaderRow != c.header || p.Rows != c.rows {
				t.Fatalf("profile %+v", p)
			}
			if len(p.Columns) == 0 || p.Columns[0].Dtype != dtypes[c.firstDtype] {
				t.Fatalf("columns %+v", p.Columns)
			}
		})
	}
}

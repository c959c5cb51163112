package sandbox_test

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
)

// Shell lines run in the sandbox as IPython runs them: !cmd under a
// terminal of 80 columns (stderr joined), x = !cmd a list of lines with
// .n, .s and .l, $name and {expr} expanded ($$ a literal $), %%bash with
// stdout and stderr apart and CalledProcessError on a failing status,
// %sx and %system giving the lines, as the sandbox user in the working
// folder.
func TestShellLinesRun(t *testing.T) {
	s := sharedSession(t)
	cellOK(t, cell(t, s, "import pathlib\np = pathlib.Path('shell-lines'); p.mkdir(exist_ok=True)\n"+
		"(p / 'f.csv').write_text('a,b\\n1,2\\n3,4\\n')\nfor i in range(12): (p / ('file-%02d.txt' % i)).write_text('x')"))
	for _, c := range []struct {
		code, stdout, value, stderr string
	}{
		{"!cat shell-lines/f.csv", "a,b\n1,2\n3,4\n", "", ""},
		{"!head -n 2 shell-lines/f.csv; echo oops >&2", "a,b\n1,2\noops\n", "", ""},
		{"x = !wc -l shell-lines/f.csv\nx", "", "['3 shell-lines/f.csv']", ""},
		{"x.n, x.s, x.l, type(x).__name__", "", "('3 shell-lines/f.csv', '3 shell-lines/f.csv', ['3 shell-lines/f.csv'], 'SList')", ""},
		{"name = 'shell-lines/f.csv'\n!echo $name {name.upper()[:5]} $$HOME \"$$HOME\" '$name'", "shell-lines/f.csv SHELL /tmp /tmp $name\n", "", ""},
		{"!head -n 1 $name", "a,b\n", "", ""},
		{"!awk -F, '{print $1}' shell-lines/f.csv | tail -n 1", "3\n", "", ""},
		{"!id -u; pwd", "1000\n/output\n", "", ""},
		{"%%bash\necho out\necho err >&2", "out\n", "", "err\n"},
		{"%%sh\necho $0", "sh\n", "", ""},
		{"%%script bash\necho scripted", "scripted\n", "", ""},
		{"%sx echo one two", "", "['one two']", ""},
		{"y = %system printf 'a\\nb\\n'\ny", "", "['a', 'b']", ""},
		{"%%bash --out got\necho kept", "", "", ""},
		{"got", "", "'kept\\n'", ""},
		{"!false\n_exit_code", "", "1", ""},
		{"for i in range(2):\n    !echo in-loop {i}", "in-loop 0\nin-loop 1\n", "", ""},
		{"!printf 'no newline'", "no newline", "", ""},
		{"cat shell-lines/f.csv | head -n 1", "a,b\n", "", ""}, // a one-line cell naming an alias: automagic
		{">>> v = 2\n>>> v * 3", "", "6", ""},                  // a pasted prompt, stripped
		{"In [4]: w = 5\n   ...: w + 1", "", "6", ""},
	} {
		res := cell(t, s, c.code)
		cellOK(t, res)
		v := ""
		if res.Value != nil {
			v = res.Value.Repr
		}
		if res.Stdout != c.stdout || v != c.value || res.Stderr != c.stderr {
			t.Errorf("%q: stdout %q value %q stderr %q, want %q %q %q", c.code, res.Stdout, v, res.Stderr, c.stdout, c.value, c.stderr)
		}
	}
	// ls lays out its columns for the terminal of 80 columns IPython gives it.
	res := cell(t, s, "!ls shell-lines")
	cellOK(t, res)
	if lines := strings.Split(strings.TrimSpace(res.Stdout), "\n"); len(lines) < 2 || len(lines) > 4 || !strings.Contains(lines[0], "f.csv") {
		t.Errorf("!ls in columns: %q", res.Stdout)
	}
	// A failing status is shown (a note), and fails the cell only where
	// IPython fails it: %%bash, unless --no-raise-error.
	res = cell(t, s, "!ls no-such-file")
	cellOK(t, res)
	if !strings.Contains(res.Stdout, "No such file") || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "line 1: !ls no-such-file exited with status 2") {
		t.Errorf("a failing !cmd: stdout %q notes %q", res.Stdout, res.Notes)
	}
	res = cell(t, s, "%%bash\necho before\nexit 3")
	if res.Error == nil || res.Error.Type != "CalledProcessError" || !strings.Contains(res.Error.Message, "returned non-zero exit status 3") || res.Stdout != "before\n" {
		t.Errorf("%%%%bash exit 3: %+v stdout %q", res.Error, res.Stdout)
	}
	cellOK(t, cell(t, s, "%%bash --no-raise-error\nexit 3"))
	if res := cell(t, s, "!sleep 1 &"); res.Error == nil || res.Error.Type != "OSError" || !strings.Contains(res.Error.Message, "Background processes not supported") {
		t.Errorf("!cmd &: %+v", res.Error)
	}
	// A one-line cell naming a magic or an alias runs it (automagic).
	if res := cell(t, s, "pwd"); res.Value == nil || res.Value.Repr != "'/output'" {
		t.Errorf("pwd: %+v", res.Value)
	}
	if res := cell(t, s, "get_ipython().system('echo via get_ipython')"); res.Stdout != "via get_ipython\n" {
		t.Errorf("get_ipython().system: %q %+v", res.Stdout, res.Error)
	}
}

// A shell line's output streams as it comes, like print's; an interrupt
// kills its whole process group (a child that ignores SIGINT too) and
// stops the cell.
func TestShellLinesStreamAndStop(t *testing.T) {
	s := sharedSession(t)
	var mu sync.Mutex
	var first time.Duration
	start := time.Now()
	res, err := s.Exec(context.Background(), "!for i in 1 2 3; do echo tick $i; sleep 0.7; done", func(c kernel.Chunk) {
		mu.Lock()
		if first == 0 {
			first = time.Since(start)
		}
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	cellOK(t, res)
	total := time.Since(start)
	if first == 0 || first > total-time.Second {
		t.Errorf("first output after %v of %v: not streamed", first, total)
	}
	for _, code := range []string{"!trap '' INT; sleep 300; echo late", "%%bash\ntrap '' INT\nsleep 300\necho late", "x = !sleep 300"} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(1500*time.Millisecond, cancel)
		t0 := time.Now()
		res, err := s.Exec(ctx, code, nil)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if res.Error == nil || res.Error.Kind != kernel.ErrInterrupted || time.Since(t0) > 20*time.Second || strings.Contains(res.Stdout, "late") {
			t.Errorf("%q interrupted: %+v after %v, stdout %q", code, res.Error, time.Since(t0), res.Stdout)
		}
		left := cell(t, s, "import os\n[p for p in os.listdir('/proc') if p.isdigit() and b'sleep' in open('/proc/%s/cmdline' % p, 'rb').read()]")
		if left.Value == nil || left.Value.Repr != "[]" {
			t.Errorf("%q: processes left after the interrupt: %+v", code, left.Value)
		}
	}
}

// pip, conda and apt lines do not fail obscurely in a sandbox that
// installs nothing by itself: they raise PackageRequest (an ImportError)
// naming the packages as typed, and how quarry adds Debian packages.
func TestShellLinesAskForPackages(t *testing.T) {
	s := sharedSession(t)
	for code, want := range map[string]string{
		"!pip install xgboost":                             "pip ['xgboost']",
		"%pip install -q polars==1.0 --upgrade":            "pip ['polars==1.0']",
		"%conda install -c conda-forge geopandas":          "conda ['geopandas']",
		"!sudo apt-get install -y libgdal-dev":             "apt ['libgdal-dev']",
		"!apt install python3-xgboost":                     "apt ['python3-xgboost']",
		"import sys\n!{sys.executable} -m pip install lz4": "pip ['lz4']",
		"!pip install -r requirements.txt && echo done":    "pip []",
		"!pip list": "pip []",
	} {
		res := cell(t, s, "try:\n"+indent(code)+"\nexcept ImportError as e:\n    print(type(e).__name__, e.via, e.packages)\n    print(e)")
		cellOK(t, res)
		lines := strings.SplitN(res.Stdout, "\n", 2)
		if len(lines) < 2 || lines[0] != "PackageRequest "+want || !strings.Contains(lines[1], "quarry sandbox add") || strings.Contains(res.Stdout, "setting up") {
			t.Errorf("%q: %q, want PackageRequest %s", code, res.Stdout, want)
		}
	}
	res := cell(t, s, "%pip install xgboost")
	if res.Error == nil || res.Error.Type != "PackageRequest" || !strings.Contains(res.Error.Message, "quarry sandbox add xgboost") {
		t.Errorf("%%pip install xgboost: %+v", res.Error)
	}
	res = cell(t, s, "%%bash\necho setting up\npip install plotly")
	if res.Error == nil || res.Error.Type != "PackageRequest" || !strings.Contains(res.Error.Message, "quarry sandbox add plotly") || res.Stdout != "" {
		t.Errorf("a %%%%bash cell that installs: %+v, stdout %q", res.Error, res.Stdout)
	}
}

func indent(code string) string {
	return "    " + strings.ReplaceAll(code, "\n", "\n    ")
}

// A refused line stops the cell before any of it runs, and the refusal
// reaches the host as IPythonSyntaxRefused naming the line (the rules and
// their cases: pykernel/tests/ipython/test_syntax.py).
func TestIPythonLinesRefused(t *testing.T) {
	s := sharedSession(t)
	for code, want := range map[string]string{
		"ran = 1\n%run helpers.py": "line 2: %run helpers.py: it runs another file",
		"%%html\n<b>x</b>":         "line 1: %%html: cell magic %%html does not run",
	} {
		cell(t, s, "ran = 0")
		res := cell(t, s, code)
		if res.Error == nil || res.Error.Type != "IPythonSyntaxRefused" || !strings.Contains(res.Error.Message, want) {
			t.Errorf("%q: %+v, want %q", code, res.Error, want)
		}
		if r := cell(t, s, "ran"); r.Value == nil || r.Value.Repr != "0" {
			t.Errorf("%q: part of the cell ran (ran = %v)", code, r.Value)
		}
	}
}

// The kernel checks cells without running them: one request, one answer
// with every refused line, its cell and line; shell lines and the rest of
// IPython's syntax pass.
func TestKernelChecksCells(t *testing.T) {
	s := sharedSession(t)
	cell(t, s, "checked = 0")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := s.Check(ctx, []kernel.CheckCell{
		{Cell: 1, Code: "checked = 1\n!ls data\nx = !wc -l f\n%matplotlib inline\ndf.head?"},
		{Cell: 3, Code: "%%bash\nls"},
		{Cell: 4, Code: "import os\n%run other.py\nfor i in range(3):\n    %who\ns = '''\n%run not-code\n'''\n%cd .."},
		{Cell: 6, Code: "get_ipython().run_line_magic('run', 'x.py')\nget_ipython().system('ls')"},
		{Cell: 7, Code: "def f(:\n    %run broken"}, // fails as itself when it runs
	})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range got {
		lines = append(lines, regexp.MustCompile(`:.*`).ReplaceAllString(r.Why, ""))
		lines[len(lines)-1] = strings.Join([]string{strconv.Itoa(r.Cell), strconv.Itoa(r.Line), r.Text, lines[len(lines)-1]}, "|")
	}
	want := []string{
		"4|2|%run other.py|it runs another file",
		"4|4|%who|IPython magic %who has no meaning in quarry",
		"4|8|%cd ..|the code runs in the notebook's folder",
		"6|1|get_ipython().run_line_magic('run', 'x.py')|it runs another file",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("refusals:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if r := cell(t, s, "checked"); r.Value == nil || r.Value.Repr != "0" {
		t.Errorf("the check ran a cell: checked = %+v", r.Value)
	}
}

// The shell lines the system prompt shows the model run in the sandbox.
func TestPromptShellLinesRun(t *testing.T) {
	b, err := os.ReadFile(systemPrompt)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, m := range regexp.MustCompile("`([^`\n]*!\\w[^`\n]*)`").FindAllStringSubmatch(string(b), -1) {
		lines = append(lines, m[1])
	}
	if len(lines) < 2 {
		t.Fatalf("the prompt shows %q: keep this test in step", lines)
	}
	s := sharedSession(t)
	for _, l := range lines {
		code := l
		if m := regexp.MustCompile(`^(\w+) = !`).FindStringSubmatch(l); m != nil {
			code += "\n" + m[1] // the lines it gives
		}
		res := cell(t, s, code)
		if res.Error != nil || (res.Stdout == "" && res.Value == nil) {
			t.Errorf("the prompt's %q: %+v, stdout %q", l, res.Error, res.Stdout)
		}
	}
}

package notebook

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/hosttest"
)

// IPython's syntax with a plain meaning passes; the rest is refused with
// its line and what to do ("" passes; else "line:text:why").
var ipythonCases = map[string]string{
	"%matplotlib inline\nimport pandas as pd":                                             "",
	"%config InlineBackend.figure_format = 'retina'\n%load_ext autoreload\n%autoreload 2": "",
	"%precision 2\n%env MODE=test\n%time x = 1\n%timeit -n 3 sum(range(9))":               "",
	"%%time\nx = 1\nx":                    "",
	"df.head?\n?df\nx = 1  # why?":        "",
	"s = '''\n%not magic\n!nor this\n'''": "",
	"y = x % 2\nprint('!')":               "",
	"df = (df\n      % 3)\n!ls":           "3:!ls:shell commands",
	"if a != b:\n    pass":                "",
	"x = 1\n  !ls /data":                  "2:!ls /data:shell commands",
	"files = !ls":                         "1:files = !ls:shell commands",
	"%%bash\nls":                          "1:%%bash:shell commands",
	"%system ls":                          "1:%system ls:shell commands",
	"%pip install polars":                 "1:%pip install polars:no network",
	"import x\n%conda install y":          "2:%conda install y:no network",
	"%run helpers.py":                     "1:%run helpers.py:paste that file",
	"%load_ext sql":                       "1:%load_ext sql:extensions",
	"%config Completer.use_jedi = False":  "1:%config Completer.use_jedi = False:InlineBackend",
	"x = 1\n%%time":                       "2:%%time:first line",
	"%who":                                "1:%who:no meaning",
	"get_ipython().system('ls')":          "1:get_ipython().system('ls'):get_ipython",
}

func TestIPythonRefusal(t *testing.T) {
	for src, want := range ipythonCases {
		r := ipythonRefusal(src)
		switch {
		case want == "" && r != nil:
			t.Errorf("%q refused: %+v", src, r)
		case want != "" && r == nil:
			t.Errorf("%q not refused, want %s", src, want)
		case want != "":
			parts := strings.SplitN(want, ":", 3)
			if got := r.Text; fmt.Sprint(r.Line) != parts[0] || got != parts[1] || !strings.Contains(r.Why, parts[2]) {
				t.Errorf("%q: %+v, want %s", src, r, want)
			}
		}
	}
}

// The rerun's refusals are the kernel's: each case runs through the
// kernel's own transform (sandbox/pykernel/ipython.py, in the host's
// Python: it needs nothing else), which must refuse the same lines, at
// the same line, and only those. get_ipython() is the rerun's alone: the
// kernel's stand-in has none to call.
func TestIPythonRulesMatchTheKernel(t *testing.T) {
	py := hosttest.Python(t)
	src, err := os.ReadFile(filepath.Join("..", "sandbox", "pykernel", "ipython.py"))
	if err != nil {
		t.Fatal(err)
	}
	cases, _ := json.Marshal(ipythonCases)
	prog := string(src) + `
import json, sys
out = {}
for code in json.loads(sys.argv[1]):
    try:
        ipython_transform(code)
        out[code] = ''
    except IPythonSyntaxRefused as e:
        out[code] = str(e)
print(json.dumps(out))
`
	b, err := exec.Command(py, "-c", prog, string(cases)).Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var got map[string]string
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ipythonCases) {
		t.Fatalf("the kernel's transform saw %d cases of %d", len(got), len(ipythonCases))
	}
	for code, want := range ipythonCases {
		if strings.Contains(code, "get_ipython") {
			continue
		}
		k := got[code]
		if want == "" {
			if k != "" {
				t.Errorf("%q: the kernel refuses it (%s), the rerun does not", code, k)
			}
			continue
		}
		parts := strings.SplitN(want, ":", 3)
		if !strings.HasPrefix(k, "line "+parts[0]+": "+parts[1]+":") || !strings.Contains(k, parts[2]) {
			t.Errorf("%q: the kernel says %q, the rerun %s", code, k, want)
		}
	}
}

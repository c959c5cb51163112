package export

import (
	"fmt"
	"strings"
	"testing"
)

// IPython's syntax with a plain meaning passes; the rest is refused with
// its line and what to do.
func TestIPythonRefusal(t *testing.T) {
	for src, want := range map[string]string{
		"%matplotlib inline\nimport pandas as pd":                                             "",
		"%config InlineBackend.figure_format = 'retina'\n%load_ext autoreload\n%autoreload 2": "",
		"%precision 2\n%env MODE=test\n%time x = 1\n%timeit -n 3 sum(range(9))":               "",
		"%%time\nx = 1\nx":                    "",
		"df.head?\n?df\nx = 1  # why?":        "",
		"s = '''\n%not magic\n!nor this\n'''": "",
		"y = x % 2\nprint('!')":               "",
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
	} {
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

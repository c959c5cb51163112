package sandbox_test

import (
	"regexp"
	"strings"
	"testing"
)

// The IPython lines notebooks start with run, in the chat's kernel too:
// backends and autoreload are no-ops, timing magics run the code and print
// the time, %env and %precision take effect, a help line is dropped with a
// note.
func TestIPythonLinesRun(t *testing.T) {
	s := sharedSession(t)
	res := cell(t, s, "%matplotlib inline\n%config InlineBackend.figure_format = 'retina'\n%load_ext autoreload\n%reload_ext autoreload\n%autoreload 2\n%xmode Minimal\n"+
		"%precision 3\n%env QUARRY_NB=yes\nimport os, numpy as np\nprint(os.environ['QUARRY_NB'], np.array([1/3]))\n"+
		"%time total = sum(range(1000))\nfor i in range(2):\n    %time i * 2\n%timeit -n 5 -r 2 sum(range(10))\ntotal?\n?np.mean\ntotal")
	cellOK(t, res)
	out := res.Stdout
	for _, want := range []string{"env: QUARRY_NB=yes", "yes [0.333]", "CPU times: user ", "Wall time: ", "per loop (mean ± std. dev. of 2 runs, 5 loops each)"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "Wall time"); n != 3 {
		t.Errorf("%d timings, want 3:\n%s", n, out)
	}
	if res.Value == nil || res.Value.Repr != "499500" {
		t.Errorf("value %+v, want the last line's", res.Value)
	}
	if len(res.Notes) != 2 || !strings.Contains(res.Notes[0], "line 15: total?: IPython help is not shown") {
		t.Errorf("notes %q, want the two help lines", res.Notes)
	}

	if r := cell(t, s, "1/3"); r.Value == nil || r.Value.Repr != "0.333" {
		t.Errorf("a float after %%precision 3: %+v", r.Value)
	}
	if r := cell(t, s, "%precision\nimport pandas as pd\n(1/3, pd.get_option('display.precision'))"); r.Value == nil || r.Value.Repr != "(0.3333333333333333, 6)" {
		t.Errorf("%%precision alone: %+v, want the defaults back", r.Value)
	}
	res = cell(t, s, "%%time\nsquares = [i * i for i in range(100)]\nsum(squares)")
	cellOK(t, res)
	if !strings.Contains(res.Stdout, "Wall time") || res.Value == nil || res.Value.Repr != "328350" {
		t.Errorf("%%%%time: %q value %+v", res.Stdout, res.Value)
	}
	res = cell(t, s, "%%timeit -n 2 -r 3\nrounds = rounds + 1 if 'rounds' in globals() else 1")
	cellOK(t, res)
	if !strings.Contains(res.Stdout, "3 runs, 2 loops each") {
		t.Errorf("%%%%timeit: %q", res.Stdout)
	}
	if r := cell(t, s, "rounds"); r.Value == nil || r.Value.Repr != "7" {
		t.Errorf("%%%%timeit ran the cell %v times, want once and 3×2", r.Value)
	}
}

// display() and IPython.display's objects show as their plain meaning: an
// HTML table as a table, a Styler as its data, Markdown as its text.
func TestIPythonDisplay(t *testing.T) {
	s := sharedSession(t)
	// Until the code imports it, no IPython is there for libraries to find.
	if r := cell(t, s, "import sys\n'IPython' in sys.modules"); r.Value == nil || r.Value.Repr != "False" {
		t.Errorf("IPython in sys.modules before any import: %+v", r.Value)
	}
	res := cell(t, s, "from IPython.display import display, HTML, Markdown, Image\nimport pandas as pd\n"+
		"df = pd.DataFrame({'region': ['North', 'South'], 'revenue': [80000, 100000]})\n"+
		"display(df)\ndisplay(Markdown('**Total** 180000'))\ndisplay(HTML('<p>Revenue &amp; cost</p>'))\n"+
		"display(df.style.format('{:,}').highlight_max())\n"+
		"HTML('<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2</td></tr></table>')")
	cellOK(t, res)
	lines := regexp.MustCompile(`\s+`).ReplaceAllString(res.Stdout, " ")
	for _, want := range []string{"region revenue 0 North 80000 1 South 100000", "**Total** 180000", "Revenue & cost"} {
		if !strings.Contains(lines, want) {
			t.Errorf("display output lacks %q:\n%s", want, res.Stdout)
		}
	}
	if strings.Count(lines, "North 80000") != 2 {
		t.Errorf("the Styler was not shown as its table:\n%s", res.Stdout)
	}
	v := res.Value
	if v == nil || v.Table == nil || strings.Join(v.Table.Columns, ",") != "k,v" || v.Table.Rows != 2 || v.Table.Head[1][1] != "2" {
		t.Fatalf("an HTML table as the value: %+v", v)
	}
	// to_html() of a frame with a named index: one header, as Jupyter
	// shows it; and matplotlib still draws once IPython is imported.
	res = cell(t, s, "by = df.set_index('region').revenue.to_frame()\nax = by.plot.bar()\nHTML(by.to_html())")
	cellOK(t, res)
	if v := res.Value; v == nil || v.Table == nil || strings.Join(v.Table.Columns, ",") != "region,revenue" || len(res.Figures) != 1 {
		t.Errorf("to_html() table %+v, figures %d", v, len(res.Figures))
	}
	res = cell(t, s, "df.style.background_gradient()")
	cellOK(t, res)
	if res.Value == nil || res.Value.Table == nil || res.Value.Table.Rows != 2 {
		t.Errorf("a Styler as the value: %+v", res.Value)
	}
}

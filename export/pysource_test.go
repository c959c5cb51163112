package export

import (
	"strings"
	"testing"
)

func TestRelocatePaths(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`pd.read_csv('/data/q1.csv')`, `pd.read_csv((DATA_DIR + 'q1.csv'))`},
		{`pd.read_csv("/data/q1.csv", sep=";")`, `pd.read_csv((DATA_DIR + "q1.csv"), sep=";")`},
		{`df.to_csv('/output/v.csv'); df.to_csv('v2.csv')`, `df.to_csv((OUTPUT_DIR + 'v.csv')); df.to_csv('v2.csv')`},
		{`p = f'/data/{name}.csv'`, `p = (DATA_DIR + f'{name}.csv')`},
		{`p = r"/data/a\b.csv".upper()`, `p = (DATA_DIR + r"a\b.csv").upper()`},
		{"p = ('/data/'\n     'q1.csv')", "p = (DATA_DIR + ''\n     'q1.csv')"},
		{`os.listdir('/data')`, `os.listdir((DATA_DIR + ''))`},
		{`sql("SELECT * FROM '/data/q1.csv'")`, `sql("SELECT * FROM '/data/q1.csv'")`},
		{`x = '/database/x'  # '/data/q1.csv'`, `x = '/database/x'  # '/data/q1.csv'`},
		{`b'/data/x'`, `b'/data/x'`},
		{"s = '''\n/data/x\n'''", "s = '''\n/data/x\n'''"},
		{`s = 'it\'s /data/x'`, `s = 'it\'s /data/x'`},
	} {
		if got := relocatePaths(c.in); got != c.want {
			t.Errorf("relocatePaths(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestIPythonLine(t *testing.T) {
	for src, want := range map[string]string{
		"%matplotlib inline\nimport pandas as pd": "%matplotlib inline",
		"x = 1\n  !ls /data":                      "!ls /data",
		"df.head?":                                "df.head?",
		"get_ipython().system('ls')":              "get_ipython().system('ls')",
		"x = 1  # why?":                           "",
		"s = '''\n%not magic\n'''":                "",
		"y = x % 2\nprint('!')":                   "",
		"if a != b:\n    pass":                    "",
	} {
		if got := ipythonLine(src); got != want {
			t.Errorf("ipythonLine(%q) = %q, want %q", src, got, want)
		}
	}
}

func TestDataReads(t *testing.T) {
	src := "import pandas as pd\nq1 = pd.read_csv('q1_sales.csv')\nq2 = pd.read_excel(\"data/q2.xlsx\", sheet_name=0)\nq1.to_csv('out.csv')\nx = read_csv(f'{n}.csv')\n"
	var got []string
	for _, s := range dataReads(src) {
		got = append(got, s.body)
	}
	if strings.Join(got, ",") != "q1_sales.csv,data/q2.xlsx" {
		t.Errorf("reads %q", got)
	}
}

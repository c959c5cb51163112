package notebook

import "testing"

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
		if got := RelocatePaths(c.in); got != c.want {
			t.Errorf("RelocatePaths(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

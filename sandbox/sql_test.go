package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// sql() in a real kernel: DuckDB over an attached file, its answers, its
// errors and the walls around it. One session serves the subtests.
func TestSQL(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{Limits: sandbox.Limits{Memory: 1 << 30, CPUs: 1}})
	csv := filepath.Join(t.TempDir(), "gl.csv")
	os.WriteFile(csv, []byte("posting_date,account,amount_eur\n"+
		"2026-01-05,4000,1250.10\n2026-01-09,4000,-0.10\n2026-02-01,5100,99.99\n2026-02-11,5100,0.01\n2026-03-03,6200,-300.00\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := s.AddFile(ctx, csv); err != nil {
		t.Fatal(err)
	}

	t.Run("AggregatesIntoDataFrame", func(t *testing.T) {
		var got struct {
			Type   string             `json:"type"`
			Dtypes map[string]string  `json:"dtypes"`
			Sums   map[string]float64 `json:"sums"`
			Total  string             `json:"total"`
		}
		runJSON(t, s, `
df = sql("SELECT account, sum(amount_eur::DECIMAL(18,2)) AS s, min(posting_date) AS first FROM '/data/gl.csv' GROUP BY 1 ORDER BY 1")
tot = sql("SELECT sum(amount_eur::DECIMAL(18,2)) AS t FROM '/data/gl.csv'")
print('QJSON ' + _qj.dumps({'type': type(df).__name__, 'dtypes': {c: str(t) for c, t in df.dtypes.items()},
    'sums': {str(a): s for a, s in zip(df.account, df.s)}, 'total': '%.2f' % tot.t[0]}))`, &got)
		want := map[string]float64{"4000": 1250.00, "5100": 100.00, "6200": -300.00}
		if got.Type != "DataFrame" || got.Total != "1050.00" || len(got.Sums) != 3 {
			t.Fatalf("got %+v", got)
		}
		for a, v := range want {
			if got.Sums[a] != v {
				t.Errorf("account %s: sum %v, want %v", a, got.Sums[a], v)
			}
		}
		// DECIMAL arrives as a number, DATE as datetime64, as DuckDB's own Python module gives them.
		if got.Dtypes["s"] != "float64" || got.Dtypes["account"] != "int64" || !strings.HasPrefix(got.Dtypes["first"], "datetime64") {
			t.Errorf("dtypes %v", got.Dtypes)
		}
	})

	t.Run("ViewsPersistAcrossCalls", func(t *testing.T) {
		res := run(t, s, `print(sql("CREATE OR REPLACE VIEW gl AS SELECT * FROM '/data/gl.csv'"))`)
		mustOK(t, res)
		if strings.TrimSpace(res.Stdout) != "None" {
			t.Errorf("CREATE VIEW returned %q, want None", res.Stdout)
		}
		res = run(t, s, `print(int(sql("SELECT count(*) AS n FROM gl").n[0]))`)
		mustOK(t, res)
		if strings.TrimSpace(res.Stdout) != "5" {
			t.Errorf("count over the view in a later cell = %q", res.Stdout)
		}
	})

	t.Run("DescribeAndSummarize", func(t *testing.T) {
		res := run(t, s, `
d = sql("DESCRIBE SELECT * FROM '/data/gl.csv'")
m = sql("SUMMARIZE SELECT * FROM '/data/gl.csv'")
print(list(d.column_name), list(d.column_type), len(m), 'max' in m.columns)`)
		mustOK(t, res)
		if want := "['posting_date', 'account', 'amount_eur'] ['DATE', 'BIGINT', 'DOUBLE'] 3 True"; strings.TrimSpace(res.Stdout) != want {
			t.Errorf("got %q, want %q", res.Stdout, want)
		}
	})

	t.Run("SeveralStatementsReturnTheLast", func(t *testing.T) {
		res := run(t, s, `print(sql("SET VARIABLE cut = 100; SELECT count(*) AS n FROM '/data/gl.csv' WHERE amount_eur > getvariable('cut')").n[0])`)
		mustOK(t, res)
		if strings.TrimSpace(res.Stdout) != "1" {
			t.Errorf("got %q", res.Stdout)
		}
	})

	t.Run("ErrorsCarryDuckDBsMessage", func(t *testing.T) {
		cases := []struct{ sql, want string }{
			{"SELEC 1", "Parser Error"},
			{"SELECT nope FROM '/data/gl.csv'", "Binder Error"},
			{"SELECT * FROM '/data/missing.csv'", "missing.csv"},
			// The walls: no file outside /data, /output and /tmp, no
			// extension, no URL, no change of limits.
			{"SELECT * FROM read_csv('/etc/passwd')", "Permission Error"},
			{"SELECT * FROM read_text('/proc/self/environ')", "Permission Error"},
			{"INSTALL httpfs", "Permission Error"},
			{"INSTALL httpfs FROM 'http://127.0.0.1:9'", "Permission Error"},
			{"LOAD httpfs", "Permission Error"},
			{"SELECT * FROM 'http://127.0.0.1:9/x.csv'", "Permission Error"},
			{"SET memory_limit = '100GB'", "locked"},
			{"SET enable_external_access = true", "locked"},
			{"RESET lock_configuration", "locked"},
		}
		for _, c := range cases {
			res := run(t, s, "sql("+pyStr(c.sql)+")")
			if res.Error == nil || res.Error.Type != "DuckDBError" || !strings.Contains(res.Error.Message, c.want) {
				t.Errorf("sql(%q): error %+v, want a DuckDBError containing %q", c.sql, res.Error, c.want)
			}
		}
		// DuckDB's advice to install an extension is replaced by one that works here.
		res := run(t, s, `sql("SELECT * FROM read_xlsx('/data/book.xlsx')")`)
		if res.Error == nil || !strings.Contains(res.Error.Message, "pd.read_excel") || strings.Contains(res.Error.Message, "Please try installing") {
			t.Errorf("read_xlsx: %+v", res.Error)
		}
		res = run(t, s, `try:
    sql("SELEC 1")
except DuckDBError as e:
    print('caught', type(e).__name__)`)
		mustOK(t, res)
		if !strings.Contains(res.Stdout, "caught DuckDBError") {
			t.Errorf("DuckDBError is not catchable by name: %q", res.Stdout)
		}
	})

	// An error met while rows stream (after DuckDB's type sniffing) must not
	// end the result early as if it were complete.
	t.Run("BadValueDeepInTheFileIsAnError", func(t *testing.T) {
		res := run(t, s, `with open('/tmp/deep.csv', 'w') as f:
    f.write('id,amount\n')
    for i in range(300000):
        f.write('%d,%s\n' % (i, 'n/a' if i == 250000 else i))
r = sql("SELECT * FROM '/tmp/deep.csv'")`)
		if res.Error == nil || res.Error.Type != "DuckDBError" || !strings.Contains(res.Error.Message, "n/a") {
			t.Errorf("error %+v, want DuckDB's conversion error naming the value", res.Error)
		}
	})

	t.Run("OddInputsAndTypes", func(t *testing.T) {
		res := run(t, s, `sql("SELECT 1\x00")`)
		if res.Error == nil || res.Error.Type != "ValueError" {
			t.Errorf("NUL in the SQL: %+v", res.Error)
		}
		res = run(t, s, `print(sql("SELECT union_value(num := 2) AS u, uuid() AS id, INTERVAL 1 DAY AS d").shape)`)
		mustOK(t, res)
		if strings.TrimSpace(res.Stdout) != "(1, 3)" {
			t.Errorf("odd types: %q", res.Stdout)
		}
	})

	// Threads of the user's code call sql() at once: there is one database
	// file, so the calls take turns; otherwise views made at once get lost.
	t.Run("ConcurrentCallsTakeTurns", func(t *testing.T) {
		res := run(t, s, `import threading
def make(k):
    sql("CREATE OR REPLACE VIEW v%d AS SELECT sum(hash(i)) AS s FROM range(3000000) t(i); SELECT count(*) FROM v%d" % (k, k))
ts = [threading.Thread(target=make, args=(k,)) for k in range(6)]
[t.start() for t in ts]; [t.join() for t in ts]
print(sql("SELECT view_name FROM duckdb_views() WHERE view_name LIKE 'v_' ORDER BY 1").view_name.tolist())`)
		mustOK(t, res)
		if strings.TrimSpace(res.Stdout) != "['v0', 'v1', 'v2', 'v3', 'v4', 'v5']" {
			t.Errorf("views made by concurrent calls: %q", res.Stdout)
		}
	})

	t.Run("BrokenDatabaseIsReplacedWithANote", func(t *testing.T) {
		res := run(t, s, `sql("CREATE OR REPLACE VIEW before_break AS SELECT 1 AS x")
open('/tmp/quarry-sql/session.duckdb', 'wb').write(b'not a database' * 1000)
print(int(sql("SELECT 5 AS x").x[0]))`)
		mustOK(t, res)
		if strings.TrimSpace(res.Stdout) != "5" || !strings.Contains(res.Stderr, "views made earlier are gone") {
			t.Errorf("stdout %q, stderr %q", res.Stdout, res.Stderr)
		}
		// The views are gone now: say so rather than pretend.
		res = run(t, s, `sql("SELECT * FROM before_break")`)
		if res.Error == nil || !strings.Contains(res.Error.Message, "before_break") {
			t.Errorf("a view from the broken database: %+v", res.Error)
		}
		mustOK(t, run(t, s, `sql("CREATE OR REPLACE VIEW gl AS SELECT * FROM '/data/gl.csv'")`))
	})

	t.Run("LimitsFollowTheSandbox", func(t *testing.T) {
		res := run(t, s, `r = sql("SELECT current_setting('memory_limit') AS m, current_setting('threads') AS t")
print(r.m[0], r.t[0])`)
		mustOK(t, res)
		// A 1 GiB, 1-CPU sandbox: DuckDB gets part of the memory and one thread.
		var mib float64
		var unit, threads string
		if _, err := fmt.Sscanf(res.Stdout, "%g %s %s", &mib, &unit, &threads); err != nil || unit != "MiB" ||
			mib < 128 || mib > 768 || threads != "1" {
			t.Errorf("DuckDB's memory_limit and threads %q for a 1 GiB, 1-CPU sandbox", res.Stdout)
		}
	})

	t.Run("ResultRowsCapped", func(t *testing.T) {
		res := run(t, s, `sql("SELECT * FROM range(20) t(i)", max_rows=10)`)
		if res.Error == nil || !strings.Contains(res.Error.Message, "more than 10 rows") {
			t.Errorf("error %+v, want the row cap", res.Error)
		}
		res = run(t, s, `print(len(sql("SELECT * FROM range(2000000) t(i)", max_rows=None)))`)
		mustOK(t, res)
		if strings.TrimSpace(res.Stdout) != "2000000" {
			t.Errorf("max_rows=None: %q", res.Stdout)
		}
	})

	t.Run("WritesToOutputAreHarvested", func(t *testing.T) {
		res := run(t, s, `sql("COPY (SELECT account, sum(amount_eur) AS s FROM '/data/gl.csv' GROUP BY 1) TO '/output/by_account.parquet' (FORMAT parquet)")`)
		mustOK(t, res)
		if _, ok := hasFile(res.Files, "by_account.parquet"); !ok {
			t.Errorf("files %v", fileNames(res.Files))
		}
	})

	// DuckDB's threads end with each call, so the kernel can fork between cells.
	t.Run("NoThreadOutlivesACall", func(t *testing.T) {
		res := run(t, s, `import os
n0 = len(os.listdir('/proc/self/task'))
sql("SELECT sum(i) FROM range(10000000) t(i)")
sql("SELECT * FROM range(5000) t(i)")
print(n0, len(os.listdir('/proc/self/task')))`)
		mustOK(t, res)
		f := strings.Fields(res.Stdout)
		if len(f) != 2 || f[0] != f[1] {
			t.Errorf("threads before and after sql(): %q", res.Stdout)
		}
	})

	t.Run("InterruptStopsTheQueryAndKeepsVariables", func(t *testing.T) {
		mustOK(t, run(t, s, "kept = 42"))
		ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
		defer cancel()
		res, err := s.Exec(ctx, `sql("SELECT sum(hash(i)) FROM range(1000000000000) t(i)")`, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Error == nil || res.Error.Kind != kernel.ErrInterrupted || res.StateLost {
			t.Fatalf("result %+v, want an interrupt with the variables kept", res.Error)
		}
		res = run(t, s, `print(kept, int(sql("SELECT 7 AS x").x[0]))`)
		mustOK(t, res)
		if strings.TrimSpace(res.Stdout) != "42 7" {
			t.Errorf("after the interrupt: %q", res.Stdout)
		}
	})
}

// A query whose working set exceeds DuckDB's share fails with DuckDB's own
// out-of-memory error, and the kernel (with its variables) survives.
func TestSQLOutOfMemoryIsAnError(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{Limits: sandbox.Limits{Memory: 512 << 20}})
	mustOK(t, run(t, s, "kept = 'yes'"))
	res := run(t, s, `sql("SELECT count(DISTINCT i) FROM range(100000000) t(i)")`)
	if res.Error == nil || res.Error.Type != "DuckDBError" || !strings.Contains(res.Error.Message, "Out of Memory") ||
		!strings.Contains(res.Error.Message, "raise the sandbox memory") || res.StateLost {
		t.Fatalf("error %+v (state lost %v), want DuckDB's out-of-memory error", res.Error, res.StateLost)
	}
	res = run(t, s, "print(kept)")
	mustOK(t, res)
	if strings.TrimSpace(res.Stdout) != "yes" {
		t.Errorf("after the error: %q", res.Stdout)
	}
}

// Where no memory cgroup holds (rootless Podman on cgroup v1) the guard
// caps each process's data with RLIMIT_DATA instead: sql() sizes DuckDB
// from that cap, not from the machine, so a query too big for it still
// ends in DuckDB's own out-of-memory error and the kernel lives on. The
// cell lowers its own cap to play that case on any engine.
func TestSQLMemoryWithinTheDataLimit(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{Limits: sandbox.Limits{Memory: 2 << 30}})
	var got struct {
		Cap   int64  `json:"cap"`
		Limit string `json:"limit"`
	}
	runJSON(t, s, `
import resource
def _vmdata():
    for line in open('/proc/self/status'):
        if line.startswith('VmData:'):
            return int(line.split()[1]) * 1024
cap = _vmdata() + (700 << 20)
resource.setrlimit(resource.RLIMIT_DATA, (cap, resource.getrlimit(resource.RLIMIT_DATA)[1]))
kept = 'yes'
print('QJSON ' + _qj.dumps({'cap': cap, 'limit': sql("SELECT current_setting('memory_limit') AS m").m[0]}))`, &got)
	var n float64
	var unit string
	if _, err := fmt.Sscanf(got.Limit, "%f %s", &n, &unit); err != nil {
		t.Fatalf("memory_limit %q: %v", got.Limit, err)
	}
	mib := map[string]float64{"KiB": 1.0 / 1024, "MiB": 1, "GiB": 1024}[unit] * n
	t.Logf("DuckDB's memory_limit with 700 MiB of data left to the process: %s", got.Limit)
	if mib <= 0 || mib > 700 {
		t.Errorf("DuckDB was given %s with 700 MiB of data left to the process", got.Limit)
	}
	res := run(t, s, `sql("SELECT count(DISTINCT i) FROM range(100000000) t(i)")`)
	if res.Error == nil || res.Error.Type != "DuckDBError" || !strings.Contains(res.Error.Message, "Out of Memory") || res.StateLost || res.Rewound {
		t.Fatalf("error %+v (state lost %v), want DuckDB's out-of-memory error", res.Error, res.StateLost)
	}
	res = run(t, s, "print(kept)")
	mustOK(t, res)
	if strings.TrimSpace(res.Stdout) != "yes" {
		t.Errorf("after the error: %q", res.Stdout)
	}
}

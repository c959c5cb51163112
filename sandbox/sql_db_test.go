package sandbox_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// Database files as inputs: a SQLite and a DuckDB file, made by the
// kernel, harvested to the host and attached again, with and without
// extensions, answer through sqlite3 (SQLite) and sql(..., db=NAME) by
// the file's name without its extension; writes are refused.
func TestSQLOnDatabaseFiles(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{Limits: sandbox.Limits{Memory: 1 << 30, CPUs: 1}})
	made := run(t, s, `
import sqlite3
con = sqlite3.connect('/output/shop.sqlite')
con.executescript("""CREATE TABLE orders (region TEXT, amount INTEGER);
INSERT INTO orders VALUES ('North', 5), ('North', 7), ('South', 1);
CREATE VIEW big AS SELECT * FROM orders WHERE amount > 4;""")
con.commit(); con.close()
sql("ATTACH '/output/ware.duckdb' AS w; CREATE TABLE w.stock AS SELECT * FROM (VALUES ('bolt', 40), ('nut', 2)) t(item, qty); DETACH w")
`)
	mustOK(t, made)
	host := map[string]string{}
	for _, f := range made.Files {
		host[filepath.Base(f.Path)] = f.Path
	}
	if host["shop.sqlite"] == "" || host["ware.duckdb"] == "" {
		t.Fatalf("files made: %+v", made.Files)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, as := range []string{"shop.sqlite", "legacy", "ware.duckdb", "stockfile"} {
		src := host["shop.sqlite"]
		if strings.Contains(as, "ware") || as == "stockfile" {
			src = host["ware.duckdb"]
		}
		p, err := s.AddFileAs(ctx, src, as, nil)
		if err != nil {
			t.Fatalf("attach %s: %v", as, err)
		}
		if p.Tables != 1 {
			t.Errorf("profile of %s: %d tables, want 1 (the view of the SQLite file is not a table)", as, p.Tables)
		}
		if src == host["ware.duckdb"] {
			// The profile lists the tables like sheets, with the call that reads each.
			if p.Kind != "duckdb" || p.Error != "" || len(p.Sheets) != 1 || p.Sheets[0].Name != "stock" || p.Sheets[0].Rows != 2 ||
				len(p.Sheets[0].Columns) != 2 || p.Sheets[0].Columns[0].Name != "item" || !strings.Contains(strings.Join(p.Sheets[0].Notes, " "), `db='`+strings.TrimSuffix(as, ".duckdb")+`'`) {
				t.Errorf("profile of %s: %+v", as, p)
			}
		}
	}
	for _, c := range []struct{ name, code, want string }{
		{"sqlite3 reads", `import sqlite3; print(sqlite3.connect('/data/shop.sqlite').execute('SELECT sum(amount) FROM orders').fetchone()[0])`, "13"},
		{"sqlite3 reads without an extension", `import sqlite3; print(sqlite3.connect('/data/legacy').execute('SELECT count(*) FROM big').fetchone()[0])`, "2"},
		{"sql(db=) on SQLite", `df = sql("SELECT region, sum(amount) AS total FROM orders GROUP BY 1 ORDER BY 1", db="shop"); print(type(df).__name__, df.values.tolist())`, "DataFrame [['North', 12], ['South', 1]]"},
		{"sql(db=) on SQLite without an extension", `print(sql("SELECT count(*) AS n FROM orders", db="legacy").n[0])`, "3"},
		{"sql(db=) on DuckDB", `df = sql("SELECT item, qty FROM stock ORDER BY qty DESC", db="ware"); print(type(df).__name__, df.values.tolist())`, "DataFrame [['bolt', 40], ['nut', 2]]"},
		{"sql(db=) on DuckDB without an extension", `print(sql("SELECT sum(qty) AS n FROM stock", db="stockfile").n[0])`, "42"},
		{"SQLite refuses a write", `
try:
    sql("DELETE FROM orders", db="shop")
except DatabaseError as e:
    print("REFUSED", e)`, "REFUSED attempt to write a readonly database"},
		{"DuckDB refuses a write", `
try:
    sql("DELETE FROM stock", db="ware")
except DatabaseError as e:
    print("REFUSED", "read-only" in str(e))`, "REFUSED True"},
		{"sql() without db= keeps its meaning", `print(sql("SELECT 40 + 2 AS n").n[0])`, "42"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, s, c.code)
			mustOK(t, res)
			if got := strings.TrimSpace(res.Stdout); got != c.want {
				t.Fatalf("stdout %q, want %q (stderr %q)", got, c.want, res.Stderr)
			}
		})
	}
}

package session

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
	"github.com/quarry-cli/quarry/source"
	"github.com/quarry-cli/quarry/source/pgtest"
)

// dbSession starts a session (no model) with the server's database "sales"
// as source sales, and tables the tests read.
func dbSession(t testing.TB, timeout time.Duration, maxRows int64) (*Session, *pgtest.Server) {
	t.Helper()
	e := sandboxtest.Engine(t)
	srv := pgtest.Start(t)
	u := srv.CreateDB(t, "sales")
	srv.Exec(t, "sales", `CREATE TABLE sales (region text, revenue int8, price numeric(10,2), day date);
		INSERT INTO sales VALUES ('North', 80000, 1.50, '2026-01-02'), ('South', 100000, 2.25, '2026-01-03'), ('North', 10000, NULL, NULL);
		CREATE SCHEMA "Ventes été";
		CREATE TABLE "Ventes été"."Chiffre d'affaires ""net""" ("Région du nord" text, "montant €" int4);
		INSERT INTO "Ventes été"."Chiffre d'affaires ""net""" VALUES ('Île', 5), ('Île', 7), ('Nord', 1)`)
	set, err := source.OpenAll(context.Background(), []source.Spec{{Name: "sales", URL: u}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig("http://127.0.0.1:1/v1", t.TempDir())
	cfg.Timeout, cfg.DBMaxRows, cfg.DBMaxBytes = timeout, maxRows, 512<<20
	s := New(Options{Config: cfg, Engine: e, Sources: set, Rerun: "test"})
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return s, srv
}

func run(t testing.TB, s *Session, code string) kernel.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := s.exec(ctx, code, nil)
	if err != nil {
		t.Fatalf("exec: %v", err)
	}
	return res
}

func TestSQLOnPostgresSource(t *testing.T) {
	s, srv := dbSession(t, 5*time.Second, 20000)
	var outs []string
	keep := func(r kernel.Result) kernel.Result {
		outs = append(outs, r.Stdout, r.Stderr)
		if r.Error != nil {
			outs = append(outs, r.Error.Message, r.Error.Traceback)
		}
		return r
	}

	t.Run("totals", func(t *testing.T) {
		r := keep(run(t, s, `df = sql("SELECT region, sum(revenue) AS total FROM sales GROUP BY 1 ORDER BY 1", db="sales")
print(type(df).__name__, df.to_dict('records'), str(df.total.dtype))`))
		if r.Error != nil || !strings.Contains(r.Stdout, "DataFrame [{'region': 'North', 'total': 90000.0}, {'region': 'South', 'total': 100000.0}] float64") {
			t.Fatalf("stdout %q, error %+v", r.Stdout, r.Error)
		}
	})
	t.Run("write refused, nothing changed", func(t *testing.T) {
		r := keep(run(t, s, `try:
    sql("DELETE FROM sales", db="sales")
except DatabaseError as e:
    print("REFUSED", e)`))
		if !strings.Contains(r.Stdout, "REFUSED") || !strings.Contains(r.Stdout, "read-only transaction") {
			t.Fatalf("stdout %q, error %+v", r.Stdout, r.Error)
		}
		r = keep(run(t, s, `sql("INSERT INTO sales VALUES ('West', 1, 1, NULL)", db="sales")`))
		if r.Error == nil || r.Error.Type != "DatabaseError" || !strings.Contains(r.Error.Message, "cannot execute INSERT in a read-only transaction") {
			t.Fatalf("error %+v", r.Error)
		}
		if n := srv.QueryInt(t, "sales", "SELECT count(*) FROM sales"); n != 3 {
			t.Fatalf("%d rows after refused writes, want 3", n)
		}
	})
	t.Run("names with quotes, spaces and non-ASCII", func(t *testing.T) {
		r := keep(run(t, s, `df = sql('SELECT "Région du nord", sum("montant €") AS "total €" FROM "Ventes été"."Chiffre d\'affaires ""net""" GROUP BY 1 ORDER BY 1', db="sales")
print(list(df.columns), df.values.tolist())`))
		if r.Error != nil || !strings.Contains(r.Stdout, "['Région du nord', 'total €'] [['Nord', 1], ['Île', 12]]") {
			t.Fatalf("stdout %q, error %+v", r.Stdout, r.Error)
		}
	})
	t.Run("row cap said in the cell", func(t *testing.T) {
		r := keep(run(t, s, `df = sql("SELECT g FROM generate_series(1, 50000) g", db="sales", max_rows=1000)
print(len(df))`))
		if r.Error != nil || strings.TrimSpace(r.Stdout) != "1000" || !strings.Contains(r.Stderr, "row cap") {
			t.Fatalf("stdout %q, stderr %q, error %+v", r.Stdout, r.Stderr, r.Error)
		}
	})
	t.Run("row cap setting said in the cell", func(t *testing.T) {
		r := keep(run(t, s, `df = sql("SELECT g FROM generate_series(1, 50000) g", db="sales")
print(len(df))`))
		if r.Error != nil || strings.TrimSpace(r.Stdout) != "20000" || !strings.Contains(r.Stderr, "db_max_rows") {
			t.Fatalf("stdout %q, stderr %q, error %+v", r.Stdout, r.Stderr, r.Error)
		}
	})
	t.Run("timeout cancels on the server", func(t *testing.T) {
		r := keep(run(t, s, `sql("SELECT pg_sleep(60)", db="sales")`))
		if r.Error == nil {
			t.Fatal("a query past the cell's timeout finished")
		}
		t.Logf("the cell says: %s", r.Error.Message)
		deadline := time.Now().Add(10 * time.Second)
		for srv.QueryInt(t, "sales", "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(60)%' AND state = 'active' AND pid <> pg_backend_pid()") > 0 {
			if time.Now().After(deadline) {
				t.Fatal("the query still runs on the server after the cell stopped")
			}
			time.Sleep(100 * time.Millisecond)
		}
		r = keep(run(t, s, `print(sql("SELECT 7 AS n", db="sales").n[0])`))
		if r.Error != nil || strings.TrimSpace(r.Stdout) != "7" {
			t.Fatalf("after a timeout: %q %+v", r.Stdout, r.Error)
		}
	})
	t.Run("interrupt cancels on the server before its timeout", func(t *testing.T) {
		s.mu.Lock()
		sb := s.sb
		s.mu.Unlock()
		go func() {
			time.Sleep(time.Second)
			sb.Interrupt()
		}()
		start := time.Now()
		r := keep(run(t, s, `sql("SELECT pg_sleep(59)", db="sales")`))
		if r.Error == nil || time.Since(start) > 4*time.Second {
			t.Fatalf("the interrupted query: %+v after %s", r.Error, time.Since(start))
		}
		// The server's statement_timeout (the cell's, 5s) has not fired yet:
		// only a cancel request stops the query this soon.
		for srv.QueryInt(t, "sales", "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(59)%' AND state = 'active' AND pid <> pg_backend_pid()") > 0 {
			if time.Since(start) > 3500*time.Millisecond {
				t.Fatal("the interrupted query still runs on the server")
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	t.Run("unknown source", func(t *testing.T) {
		r := keep(run(t, s, `sql("SELECT 1", db="nope")`))
		if r.Error == nil || !strings.Contains(r.Error.Message, `no database source named "nope"`) || !strings.Contains(r.Error.Message, "sales") {
			t.Fatalf("error %+v", r.Error)
		}
	})
	t.Run("server stops mid-session", func(t *testing.T) {
		srv.Stop()
		r := keep(run(t, s, `sql("SELECT 1", db="sales")`))
		if r.Error == nil || r.Error.Type != "DatabaseError" || !strings.Contains(r.Error.Message, "source sales") {
			t.Fatalf("error %+v", r.Error)
		}
		t.Logf("the cell says: %s", r.Error.Message)
		r = keep(run(t, s, `print(6*7)`))
		if r.Error != nil || strings.TrimSpace(r.Stdout) != "42" || r.StateLost {
			t.Fatalf("the session did not go on: %q %+v", r.Stdout, r.Error)
		}
		// Back up: the next query connects again by itself.
		srv.Restart(t)
		r = keep(run(t, s, `print(sql("SELECT count(*) AS n FROM sales", db="sales").n[0])`))
		if r.Error != nil || strings.TrimSpace(r.Stdout) != "3" {
			t.Fatalf("after the server came back: %q %+v", r.Stdout, r.Error)
		}
	})
	for _, o := range outs {
		if strings.Contains(o, srv.Password) {
			t.Fatalf("the password reached the cell: %q", o)
		}
	}
}

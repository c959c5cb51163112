package session

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
	"github.com/quarry-cli/quarry/source"
	"github.com/quarry-cli/quarry/source/sourcetest"
)

// readOnly is the words of a server refusing a write: PostgreSQL's
// "read-only transaction", MariaDB's "READ ONLY transaction".
var readOnly = regexp.MustCompile(`(?i)read[- ]only transaction`)

// dbSession starts a session (no model) with a server of kind k, its
// database "sales" as source sales, and tables the tests read
// (sourcetest's Sales).
func dbSession(t testing.TB, k sourcetest.Kind, timeout time.Duration, maxRows int64) (*Session, sourcetest.Server) {
	t.Helper()
	e := sandboxtest.Engine(t)
	srv, u := k.SalesDB(t)
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

// The cases every kind of database passes through sql(db=) in a real
// sandbox, against a real server of each kind.
func TestSQLOnDatabaseSources(t *testing.T) {
	for _, k := range sourcetest.Kinds() {
		t.Run(k.Name, func(t *testing.T) { sqlOnSource(t, k) })
	}
}

func sqlOnSource(t *testing.T, k sourcetest.Kind) {
	s, srv := dbSession(t, k, 5*time.Second, 20000)
	var outs []string
	keep := func(r kernel.Result) kernel.Result {
		outs = append(outs, r.Stdout, r.Stderr)
		if r.Error != nil {
			outs = append(outs, r.Error.Message, r.Error.Traceback)
		}
		return r
	}

	if st := s.settings(); len(st.Sources) != 1 || st.Sources[0].Kind != k.Scheme || strings.Contains(st.Sources[0].Where, srv.Password) {
		t.Fatalf("the record's sources: %+v", st.Sources)
	}
	t.Run("totals", func(t *testing.T) {
		r := keep(run(t, s, `df = sql("SELECT region, sum(revenue) AS total FROM sales GROUP BY 1 ORDER BY 1", db="sales")
print(type(df).__name__, df.to_dict('records'), str(df.total.dtype))`))
		if r.Error != nil || !strings.Contains(r.Stdout, k.Totals) {
			t.Fatalf("stdout %q, error %+v", r.Stdout, r.Error)
		}
	})
	t.Run("write refused, nothing changed", func(t *testing.T) {
		r := keep(run(t, s, `try:
    sql("DELETE FROM sales", db="sales")
except DatabaseError as e:
    print("REFUSED", e)`))
		if !strings.Contains(r.Stdout, "REFUSED") || !readOnly.MatchString(r.Stdout) {
			t.Fatalf("stdout %q, error %+v", r.Stdout, r.Error)
		}
		r = keep(run(t, s, `sql("INSERT INTO sales VALUES ('West', 1, 1, NULL)", db="sales")`))
		if r.Error == nil || r.Error.Type != "DatabaseError" || !readOnly.MatchString(r.Error.Message) {
			t.Fatalf("error %+v", r.Error)
		}
		if n := srv.QueryInt(t, "sales", "SELECT count(*) FROM sales"); n != 3 {
			t.Fatalf("%d rows after refused writes, want 3", n)
		}
	})
	t.Run("names with quotes, spaces and non-ASCII", func(t *testing.T) {
		q := "SELECT " + k.Quote("Région du nord") + ", sum(" + k.Quote("montant €") + ") AS " + k.Quote("total €") + " FROM " + k.Net() + " GROUP BY 1 ORDER BY 2"
		lit, _ := json.Marshal(q) // a Python string literal too
		r := keep(run(t, s, "df = sql("+string(lit)+", db=\"sales\")\nprint(list(df.columns), df.values.tolist())"))
		if r.Error != nil || !strings.Contains(r.Stdout, "['Région du nord', 'total €'] [['Nord', 1], ['Île', 12]]") {
			t.Fatalf("stdout %q, error %+v", r.Stdout, r.Error)
		}
	})
	t.Run("row cap said in the cell", func(t *testing.T) {
		r := keep(run(t, s, `df = sql("`+k.Series(50000)+`", db="sales", max_rows=1000)
print(len(df))`))
		if r.Error != nil || strings.TrimSpace(r.Stdout) != "1000" || !strings.Contains(r.Stderr, "row cap") {
			t.Fatalf("stdout %q, stderr %q, error %+v", r.Stdout, r.Stderr, r.Error)
		}
	})
	t.Run("row cap setting said in the cell", func(t *testing.T) {
		r := keep(run(t, s, `df = sql("`+k.Series(50000)+`", db="sales")
print(len(df))`))
		if r.Error != nil || strings.TrimSpace(r.Stdout) != "20000" || !strings.Contains(r.Stderr, "db_max_rows") {
			t.Fatalf("stdout %q, stderr %q, error %+v", r.Stdout, r.Stderr, r.Error)
		}
	})
	t.Run("timeout cancels on the server", func(t *testing.T) {
		r := keep(run(t, s, `sql("`+k.Sleep(60)+`", db="sales")`))
		if r.Error == nil {
			t.Fatal("a query past the cell's timeout finished")
		}
		t.Logf("the cell says: %s", r.Error.Message)
		deadline := time.Now().Add(10 * time.Second)
		for srv.QueryInt(t, "sales", k.Running("sleep(60)")) > 0 {
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
		r := keep(run(t, s, `sql("`+k.Sleep(59)+`", db="sales")`))
		if r.Error == nil || time.Since(start) > 4*time.Second {
			t.Fatalf("the interrupted query: %+v after %s", r.Error, time.Since(start))
		}
		// The server's time limit (the cell's, 5s) has not passed yet: only
		// a cancel request (PostgreSQL) or KILL QUERY (MariaDB) stops the
		// query this soon; the processlist no longer shows it.
		for srv.QueryInt(t, "sales", k.Running("sleep(59)")) > 0 {
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

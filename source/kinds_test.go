package source

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quarry-cli/quarry/source/sourcetest"
)

// The cases every kind of database passes, each against a real server of
// each kind (sourcetest.Kinds).

func TestQueryTotalsAsArrow(t *testing.T) {
	eachKind(t, func(t *testing.T, k sourcetest.Kind) {
		_, src := salesDB(t, k)
		res, recs, err := query(t, src, "SELECT region, count(*) AS n, max(revenue) AS top, sum(price) AS price, min(day) AS first FROM sales GROUP BY 1 ORDER BY 1", Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Rows != 2 || res.Cut != "" || len(recs) != 1 {
			t.Fatalf("result %+v, %d batches", res, len(recs))
		}
		rec := recs[0]
		regions := rec.Column(0).(*array.String)
		counts := rec.Column(1).(*array.Int64)
		tops := rec.Column(2).(*array.Int64)
		if regions.Value(0) != "North" || counts.Value(0) != 2 || tops.Value(0) != 80000 || tops.Value(1) != 100000 || rec.Column(3).ValueStr(1) != "2.25" {
			t.Fatalf("got %v", rec)
		}
		if d := rec.Column(4).(*array.Date32).Value(0).ToTime().Format("2006-01-02"); d != "2026-01-02" {
			t.Fatalf("date %s", d)
		}
		if !strings.HasPrefix(src.Server(), strings.SplitN(k.Name, "/", 2)[0]+" ") {
			t.Errorf("Server() = %q, want the product and its version", src.Server())
		}
	})
}

var readOnlyRefusal = regexp.MustCompile(`(?i)read[- ]only transaction`)

// Every write is refused by the server, in its own words, DDL too
// (MariaDB and MySQL commit before DDL and run it outside the
// transaction: the session's transactions must be read-only as well).
func TestQueryWriteRefused(t *testing.T) {
	eachKind(t, func(t *testing.T, k sourcetest.Kind) {
		srv, src := salesDB(t, k)
		for _, q := range []string{"INSERT INTO sales VALUES ('West', 1, 1, NULL)", "DELETE FROM sales", "UPDATE sales SET revenue = 0",
			"DROP TABLE sales", "CREATE TABLE x (a int)", "TRUNCATE sales", "CREATE TEMPORARY TABLE y (a int)"} {
			_, _, err := query(t, src, q, Limits{})
			if err == nil || !readOnlyRefusal.MatchString(err.Error()) {
				t.Errorf("%s: %v, want the server's read-only refusal", q, err)
			}
		}
		if n := srv.QueryInt(t, "sales", "SELECT count(*) FROM sales"); n != 3 {
			t.Fatalf("%d rows after the refused writes, want 3", n)
		}
		// The refusals left the connection usable.
		if _, _, err := query(t, src, "SELECT 1 AS one", Limits{}); err != nil {
			t.Fatalf("after the refusals: %v", err)
		}
	})
}

func TestQueryRowCapSaysSo(t *testing.T) {
	eachKind(t, func(t *testing.T, k sourcetest.Kind) {
		_, src := salesDB(t, k)
		res, recs, err := query(t, src, k.Series(200000), Limits{MaxRows: 70000})
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, r := range recs {
			n += r.NumRows()
		}
		if res.Rows != 70000 || n != 70000 || !strings.Contains(res.Cut, "row cap") {
			t.Fatalf("rows %d/%d, cut %q", res.Rows, n, res.Cut)
		}
		// The connection is still good after the server stopped sending.
		_, recs, err = query(t, src, "SELECT 7 AS n", Limits{})
		if err != nil || recs[0].Column(0).ValueStr(0) != "7" {
			t.Fatalf("after a cap: %v", err)
		}
	})
}

func TestOpenWrongPasswordNamesSourceNotPassword(t *testing.T) {
	eachKind(t, func(t *testing.T, k sourcetest.Kind) {
		srv := k.Start(t)
		srv.CreateDB(t, "sales")
		wrong := "Wr0ng-pa55word-XYZ"
		_, err := Open(context.Background(), Spec{Name: "sales", URL: srv.URLWith("sales", wrong)})
		if err == nil {
			t.Fatal("a wrong password was accepted")
		}
		msg := err.Error()
		if !strings.Contains(msg, "source sales") || !strings.Contains(msg, "wrong password") || strings.Contains(msg, wrong) || strings.Contains(msg, srv.Password) {
			t.Fatalf("error %q", msg)
		}
	})
}

// A query past its time limit, and one whose context is cancelled, stop
// on the server, and the connection serves the next query.
func TestQueryStoppedOnTheServer(t *testing.T) {
	eachKind(t, func(t *testing.T, k sourcetest.Kind) {
		srv, src := salesDB(t, k)
		gone := func(marker string, within time.Duration) {
			t.Helper()
			deadline := time.Now().Add(within)
			for srv.QueryInt(t, "sales", k.Running(marker)) > 0 {
				if time.Now().After(deadline) {
					t.Fatalf("%s still runs on the server", marker)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		start := time.Now()
		_, _, err := query(t, src, k.Sleep(31), Limits{Timeout: time.Second})
		if err == nil || !strings.Contains(err.Error(), "cancelled on the server") || time.Since(start) > 10*time.Second {
			t.Fatalf("past the time limit: %v after %s", err, time.Since(start))
		}
		gone("(31)", 3*time.Second)

		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(500*time.Millisecond, cancel)
		// The chat asks which server it is while a query runs: no wait.
		asked := make(chan time.Duration, 1)
		time.AfterFunc(200*time.Millisecond, func() {
			at := time.Now()
			src.Server()
			asked <- time.Since(at)
		})
		start = time.Now()
		_, _, err = queryCtx(t, ctx, src, k.Sleep(32), Limits{Timeout: time.Minute})
		if d := <-asked; d > 100*time.Millisecond {
			t.Errorf("Server() waited %s for the running query", d)
		}
		if err == nil || !regexp.MustCompile(`stopped|cancelled on the server`).MatchString(err.Error()) || time.Since(start) > 5*time.Second {
			t.Fatalf("cancelled: %v after %s", err, time.Since(start))
		}
		gone("(32)", 2*time.Second)

		_, recs, err := query(t, src, "SELECT 7 AS n", Limits{})
		if err != nil || recs[0].Column(0).ValueStr(0) != "7" {
			t.Fatalf("after the stops: %v", err)
		}
	})
}

// A server restarted between two queries: the second connects again.
func TestQueryAfterServerRestart(t *testing.T) {
	eachKind(t, func(t *testing.T, k sourcetest.Kind) {
		srv, src := salesDB(t, k)
		if _, _, err := query(t, src, "SELECT 1 AS one", Limits{}); err != nil {
			t.Fatal(err)
		}
		srv.Stop()
		_, _, err := query(t, src, "SELECT 1 AS one", Limits{})
		if err == nil || strings.Count(err.Error(), "source sales") != 1 || strings.Contains(err.Error(), srv.Password) {
			t.Fatalf("with the server down: %v", err)
		}
		srv.Restart(t)
		_, recs, err := query(t, src, "SELECT count(*) AS n FROM sales", Limits{})
		if err != nil || recs[0].Column(0).ValueStr(0) != "3" {
			t.Fatalf("after the restart: %v", err)
		}
	})
}

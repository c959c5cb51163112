package source

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quarry-cli/quarry/source/pgtest"
)

func TestQueryTotalsAsArrow(t *testing.T) {
	_, src := salesDB(t)
	res, recs, err := query(t, src, "SELECT region, sum(revenue)::int8 AS total, sum(price) AS price, min(day) AS first FROM sales GROUP BY 1 ORDER BY 1", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 2 || res.Cut != "" || len(recs) != 1 {
		t.Fatalf("result %+v, %d batches", res, len(recs))
	}
	rec := recs[0]
	regions := rec.Column(0).(*array.String)
	totals := rec.Column(1).(*array.Int64)
	prices := rec.Column(2).(*array.Float64)
	if regions.Value(0) != "North" || totals.Value(0) != 90000 || totals.Value(1) != 100000 || prices.Value(1) != 2.25 {
		t.Fatalf("got %v", rec)
	}
	if d := rec.Column(3).(*array.Date32).Value(0).ToTime().Format("2006-01-02"); d != "2026-01-02" {
		t.Fatalf("date %s", d)
	}
}

func TestQueryWriteRefused(t *testing.T) {
	srv, src := salesDB(t)
	for _, q := range []string{"INSERT INTO sales VALUES ('West', 1, 1, NULL)", "DELETE FROM sales", "DROP TABLE sales", "CREATE TABLE x (a int)"} {
		_, _, err := query(t, src, q, Limits{})
		if err == nil || !strings.Contains(err.Error(), "read-only transaction") {
			t.Errorf("%s: %v, want the server's read-only refusal", q, err)
		}
	}
	if n := srv.QueryInt(t, "sales", "SELECT count(*) FROM sales"); n != 3 {
		t.Fatalf("%d rows after the refused writes, want 3", n)
	}
}

func TestQueryRowCapSaysSo(t *testing.T) {
	_, src := salesDB(t)
	res, recs, err := query(t, src, "SELECT g FROM generate_series(1, 200000) g", Limits{MaxRows: 70000})
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
	// The connection is still good after the server cancelled the rest.
	if _, _, err := query(t, src, "SELECT 1", Limits{}); err != nil {
		t.Fatalf("after a cap: %v", err)
	}
}

func TestOpenWrongPasswordNamesSourceNotPassword(t *testing.T) {
	srv := pgtest.Start(t)
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
}

func TestQueryTypes(t *testing.T) {
	_, src := salesDB(t)
	_, recs, err := query(t, src, `SELECT true AS b, 2::int2 AS i2, 3::int4 AS i4, 4::int8 AS i8, 1.5::float4 AS f4, 2.5::float8 AS f8,
		12.25::numeric AS n, 'x'::varchar AS v, 'y'::char(2) AS c, date '2026-03-01' AS d, timestamp '2026-03-01 12:30:00' AS ts,
		timestamptz '2026-03-01 12:30:00+02' AS tz, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u, '{"k": [1, 2]}'::jsonb AS j,
		ARRAY[1, 2] AS arr, interval '1 day 2 hours' AS iv, NULL::int AS nul, 'infinity'::date AS inf`, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	rec := recs[0]
	want := map[string]string{"b": "true", "i2": "2", "i4": "3", "i8": "4", "f4": "1.5", "f8": "2.5", "n": "12.25", "v": "x", "c": "y ",
		"d": "2026-03-01", "ts": "2026-03-01 12:30:00", "tz": "2026-03-01 10:30:00Z", "u": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"j": `{"k": [1, 2]}`, "arr": "[1,2]", "nul": "(null)", "inf": "(null)"}
	for i, f := range rec.Schema().Fields() {
		col := rec.Column(i)
		got := col.ValueStr(0)
		switch f.Name {
		case "d":
			got = col.(*array.Date32).Value(0).ToTime().Format("2006-01-02")
		case "ts":
			got = col.(*array.Timestamp).Value(0).ToTime(arrow.Microsecond).Format("2006-01-02 15:04:05")
		case "tz":
			got = col.(*array.Timestamp).Value(0).ToTime(arrow.Microsecond).Format("2006-01-02 15:04:05Z")
		case "iv":
			if got == "" || got == "(null)" {
				t.Errorf("interval: %q", got)
			}
			continue
		}
		if w, ok := want[f.Name]; ok && got != w {
			t.Errorf("%s (%s): %q, want %q", f.Name, f.Type, got, w)
		}
	}
}

package source

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/quarry-cli/quarry/source/pgtest"
)

// salesDB makes a database with a small sales table and returns the
// server and an open source on it.
func salesDB(t *testing.T) (*pgtest.Server, *Source) {
	t.Helper()
	srv := pgtest.Start(t)
	u := srv.CreateDB(t, "sales")
	srv.Exec(t, "sales", `CREATE TABLE sales (region text, revenue int8, price numeric(10,2), day date);
		INSERT INTO sales VALUES ('North', 80000, 1.50, '2026-01-02'), ('South', 100000, 2.25, '2026-01-03'), ('North', 10000, NULL, NULL)`)
	src, err := Open(context.Background(), Spec{Name: "sales", URL: u})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(src.Close)
	return srv, src
}

// query runs q and reads the Arrow stream back.
func query(t *testing.T, src *Source, q string, lim Limits) (Result, []arrow.RecordBatch, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var buf bytes.Buffer
	res, err := src.Query(ctx, q, lim, &buf)
	if err != nil || buf.Len() == 0 {
		return res, nil, err
	}
	r, rerr := ipc.NewReader(&buf)
	if rerr != nil {
		t.Fatalf("the result is not an Arrow stream: %v", rerr)
	}
	defer r.Release()
	var recs []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	return res, recs, nil
}

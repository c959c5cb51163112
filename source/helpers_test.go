package source

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/quarry-cli/quarry/source/sourcetest"
)

// salesDB starts a server of kind k with the sales tables and returns it
// and an open source on database sales.
func salesDB(t *testing.T, k sourcetest.Kind) (sourcetest.Server, Source) {
	t.Helper()
	srv, u := k.SalesDB(t)
	src, err := Open(context.Background(), Spec{Name: "sales", URL: u})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(src.Close)
	return srv, src
}

// eachKind runs test against a server of every kind.
func eachKind(t *testing.T, test func(t *testing.T, k sourcetest.Kind)) {
	for _, k := range sourcetest.Kinds() {
		t.Run(k.Name, func(t *testing.T) { test(t, k) })
	}
}

// query runs q and reads the Arrow stream back.
func query(t *testing.T, src Source, q string, lim Limits) (Result, []arrow.RecordBatch, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return queryCtx(t, ctx, src, q, lim)
}

func queryCtx(t *testing.T, ctx context.Context, src Source, q string, lim Limits) (Result, []arrow.RecordBatch, error) {
	t.Helper()
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

// profileOf opens the source at u and reads its profile with examples,
// judged against memory.
func profileOf(t *testing.T, u string, memory int64) Profile {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	src, err := Open(ctx, Spec{Name: "wide", URL: u})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	p, err := src.Profile(ctx, ProfileOptions{Examples: true, Memory: memory})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// benchStart times a source's start-up: the check and the profile.
func benchStart(b *testing.B, u string) {
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		src, err := Open(ctx, Spec{Name: "wide", URL: u})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := src.Profile(ctx, ProfileOptions{Examples: true, Memory: 2 << 30}); err != nil {
			b.Fatal(err)
		}
		src.Close()
	}
}

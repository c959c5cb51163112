package source

import (
	"context"
	"io"
	"testing"

	"github.com/quarry-cli/quarry/source/pgtest"
)

// BenchmarkQueryArrow is the host's share of sql(db=): 1 M rows × 8
// columns read from PostgreSQL and written as Arrow IPC (to io.Discard).
func BenchmarkQueryArrow(b *testing.B) {
	srv := pgtest.Start(b)
	u := srv.CreateDB(b, "sales")
	srv.Exec(b, "sales", `CREATE TABLE wide AS SELECT g AS id, g % 100 AS k, (g * 7) % 1000003 AS n,
		random() AS x, random() * 100 AS y, md5(g::text) AS s, 'region ' || (g % 17) AS r,
		date '2026-01-01' + (g % 365) AS d FROM generate_series(1, 1000000) g`)
	src, err := Open(context.Background(), Spec{Name: "sales", URL: u})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	b.ResetTimer()
	for range b.N {
		res, err := src.Query(context.Background(), "SELECT * FROM wide", Limits{}, io.Discard)
		if err != nil || res.Rows != 1_000_000 {
			b.Fatalf("%+v %v", res, err)
		}
		b.SetBytes(res.Bytes)
	}
}

package source

import (
	"context"
	"io"
	"testing"

	"github.com/quarry-cli/quarry/source/sourcetest"
)

// BenchmarkQueryArrow is the host's share of sql(db=): 1 M rows × 8
// columns read from the server and written as Arrow IPC (to io.Discard),
// for each kind.
func BenchmarkQueryArrow(b *testing.B) {
	for _, k := range sourcetest.Kinds() {
		b.Run(k.Name, func(b *testing.B) {
			srv := k.Start(b)
			u := srv.CreateDB(b, "sales")
			srv.Exec(b, "sales", k.Wide)
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
		})
	}
}

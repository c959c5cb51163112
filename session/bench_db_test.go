package session

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/hosttest"
	"github.com/quarry-cli/quarry/source/pgtest"
)

// 1 M rows × 8 columns from PostgreSQL into a DataFrame in the sandbox:
// through quarry (sql(db=): Arrow over the kernel protocol) against the
// CSV path (psql \copy … TO a file, the file attached, pd.read_csv); and
// a group-by pushed down to the server against fetching the table and
// grouping in pandas. One session, one server for all.
func BenchmarkPostgres(b *testing.B) {
	s, srv := dbSession(b, 10*time.Minute, 1_000_000)
	srv.Exec(b, "sales", `CREATE TABLE wide AS SELECT g AS id, g % 100 AS k, (g * 7) % 1000003 AS n,
		random() AS x, random() * 100 AS y, md5(g::text) AS s, 'region ' || (g % 17) AS r,
		date '2026-01-01' + (g % 365) AS d FROM generate_series(1, 1000000) g; ANALYZE wide`)
	psql, err := exec.LookPath(filepath.Join(pgtest.Bin(), "psql"))
	if err != nil {
		psql = hosttest.Tool(b, "psql")
	}
	check := func(code, want string) {
		r := run(b, s, code)
		if r.Error != nil || strings.TrimSpace(r.Stdout) != want {
			b.Fatalf("stdout %q, want %q; error %+v", r.Stdout, want, r.Error)
		}
	}
	b.Run("fetch/quarry-arrow", func(b *testing.B) {
		for range b.N {
			check(`df = sql("SELECT * FROM wide", db="sales"); print(df.shape)`, "(1000000, 8)")
		}
	})
	b.Run("fetch/psql-copy-csv-read_csv", func(b *testing.B) {
		for i := range b.N {
			csv := filepath.Join(b.TempDir(), "wide.csv")
			cmd := exec.Command(psql, srv.URL("sales"), "-qAt", "-c", `\copy wide TO '`+csv+`' WITH (FORMAT csv, HEADER)`)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("psql: %v: %s", err, out)
			}
			name := "wide" + strings.Repeat("x", i) + ".csv"
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			s.mu.Lock()
			sb := s.sb
			s.mu.Unlock()
			if _, err := sb.AddFileAs(ctx, csv, name, nil); err != nil {
				b.Fatal(err)
			}
			cancel()
			check(`import pandas as pd; df = pd.read_csv('/data/`+name+`', parse_dates=['d']); print(df.shape)`, "(1000000, 8)")
		}
	})
	b.Run("groupby/pushed-down", func(b *testing.B) {
		for range b.N {
			check(`g = sql("SELECT k, sum(y) AS y, count(*) AS n FROM wide GROUP BY k", db="sales"); print(len(g))`, "100")
		}
	})
	b.Run("groupby/fetch-then-pandas", func(b *testing.B) {
		for range b.N {
			check(`t = sql("SELECT * FROM wide", db="sales"); g = t.groupby('k').agg(y=('y', 'sum'), n=('id', 'size')); print(len(g))`, "100")
		}
	})
}

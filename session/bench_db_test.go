package session

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/hosttest"
	"github.com/quarry-cli/quarry/source/pgtest"
	"github.com/quarry-cli/quarry/source/sourcetest"
)

// 1 M rows × 8 columns from PostgreSQL into a DataFrame in the sandbox:
// through quarry (sql(db=): Arrow over the kernel protocol) against the
// CSV path (psql \copy … TO a file, the file attached, pd.read_csv); and
// a group-by pushed down to the server against fetching the table and
// grouping in pandas. One session, one server for all.
func BenchmarkPostgres(b *testing.B) {
	psql, err := exec.LookPath(filepath.Join(pgtest.Bin(), "psql"))
	if err != nil {
		psql = hosttest.Tool(b, "psql")
	}
	benchDB(b, sourcetest.Kinds()[0],
		"psql-copy-csv-read_csv", func(srv sourcetest.Server, file string) error {
			if out, err := exec.Command(psql, srv.URL("sales"), "-qAt", "-c", `\copy wide TO '`+file+`' WITH (FORMAT csv, HEADER)`).CombinedOutput(); err != nil {
				return fmt.Errorf("%v: %s", err, out)
			}
			return nil
		}, `pd.read_csv('%s', parse_dates=['d'])`)
}

// The same against MariaDB: quarry's path against mariadb --batch (the
// mysql client's tab-separated output) written to a file, attached and
// read with pd.read_csv.
func BenchmarkMariaDB(b *testing.B) {
	client := hosttest.Tool(b, "mariadb")
	benchDB(b, sourcetest.Kinds()[1],
		"mariadb-batch-read_csv", func(srv sourcetest.Server, file string) error {
			f, err := os.Create(file)
			if err != nil {
				return err
			}
			defer f.Close()
			var stderr strings.Builder
			cmd := exec.Command(client, "--no-defaults", "--batch", "--socket="+srv.Socket, "--user="+srv.User, "sales", "-e", "SELECT * FROM wide")
			cmd.Env = append(os.Environ(), "MYSQL_PWD="+srv.Password)
			cmd.Stdout, cmd.Stderr = f, &stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("%v: %s", err, stderr.String())
			}
			return f.Close()
		}, `pd.read_csv('%s', sep='\t', parse_dates=['d'])`)
}

// benchDB runs the four paths against a server of kind k whose database
// sales gets the table wide (sourcetest's Wide); export writes the table to a file
// by the kind's own client, read is the pandas call that reads it (%s the
// file in /data).
func benchDB(b *testing.B, k sourcetest.Kind, baseline string, export func(sourcetest.Server, string) error, read string) {
	s, srv := dbSession(b, k, 10*time.Minute, 1_000_000)
	srv.Exec(b, "sales", k.Wide)
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
	b.Run("fetch/"+baseline, func(b *testing.B) {
		for i := range b.N {
			file := filepath.Join(b.TempDir(), "wide.csv")
			if err := export(srv, file); err != nil {
				b.Fatalf("%s: %v", baseline, err)
			}
			name := "wide" + strings.Repeat("x", i) + ".csv"
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			s.mu.Lock()
			sb := s.sb
			s.mu.Unlock()
			if _, err := sb.AddFileAs(ctx, file, name, nil); err != nil {
				b.Fatal(err)
			}
			cancel()
			check(`import pandas as pd; df = `+strings.Replace(read, "%s", "/data/"+name, 1)+`; print(df.shape)`, "(1000000, 8)")
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

package source

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/source/pgtest"
)

// manyTables makes a database of n small tables t0001…, plus one larger.
func manyTables(t testing.TB, n int) (*pgtest.Server, string) {
	srv := pgtest.Start(t)
	u := srv.CreateDB(t, "wide")
	srv.Exec(t, "wide", `DO $$ BEGIN FOR i IN 1..`+strconv.Itoa(n)+` LOOP
		EXECUTE format('CREATE TABLE %I (id int, name text, amount numeric)', 't' || lpad(i::text, 4, '0'));
		END LOOP; END $$;
		CREATE TABLE big AS SELECT g AS id, md5(g::text) AS name FROM generate_series(1, 20000) g; ANALYZE big`)
	return srv, u
}

func TestProfileOfTwoThousandTablesIsBounded(t *testing.T) {
	_, u := manyTables(t, 2000)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	src, err := Open(ctx, Spec{Name: "wide", URL: u})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	p, err := src.Profile(ctx, ProfileOptions{Examples: true, Memory: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if p.Total != 2001 || len(p.Tables) != MaxTables {
		t.Fatalf("total %d, listed %d; want 2001 and %d", p.Total, len(p.Tables), MaxTables)
	}
	first := p.Tables[0]
	if first.Name != "big" || first.Rows != 20000 || !first.Large || len(first.Examples) != exampleRows || len(first.Columns) != 2 {
		t.Fatalf("the largest table first, estimated, large, with examples: %+v", first)
	}
	if p.Tables[1].Rows != 0 || !p.Tables[1].Exact {
		t.Fatalf("a never-analysed small table is counted: %+v", p.Tables[1])
	}
	text := p.Text(true)
	if len(text) > 16<<10 || !strings.Contains(text, "1941 more tables") || !strings.Contains(text, "large:") {
		t.Fatalf("profile text of %d bytes:\n%s", len(text), text)
	}
	if schema := p.Text(false); strings.Contains(schema, "row:") {
		t.Fatalf("share = schema shows rows:\n%s", schema)
	}
}

// BenchmarkStartWithTwoThousandTables is a source's start-up against a
// schema of 2,000 tables: the check and the profile the model gets.
func BenchmarkStartWithTwoThousandTables(b *testing.B) {
	_, u := manyTables(b, 2000)
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

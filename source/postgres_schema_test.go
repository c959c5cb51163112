package source

import (
	"strconv"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/source/pgtest"
)

// manyTables makes a database of n small tables t0001…, plus one larger.
func manyTables(t testing.TB, n int) (*pgtest.Server, string) {
	srv := pgtest.Start(t)
	u := srv.CreateDB(t, "wide")
	srv.Exec(t, "wide", `DO $$ BEGIN FOR i IN 1..`+strconv.Itoa(n)+` LOOP
		EXECUTE format('CREATE TABLE %I (id int, name text, amount numeric)', 't' || lpad(i::text, 4, '0'));
		END LOOP; END $$;
		CREATE TABLE big AS SELECT g AS id, md5(g::text) AS name FROM generate_series(1, 20000) g; ANALYZE big;
		CREATE TABLE parted (id int, day date) PARTITION BY RANGE (day);
		CREATE TABLE parted_2025 PARTITION OF parted FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
		CREATE TABLE parted_2026 PARTITION OF parted FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
		INSERT INTO parted SELECT g, date '2025-06-01' + (g % 400) FROM generate_series(1, 8000) g; ANALYZE parted`)
	return srv, u
}

func TestProfileOfTwoThousandTablesIsBounded(t *testing.T) {
	_, u := manyTables(t, 2000)
	p := profileOf(t, u, 1<<20)
	if p.Total != 2002 || len(p.Tables) != MaxTables {
		t.Fatalf("total %d, listed %d; want 2002 (partitions are not tables of their own) and %d", p.Total, len(p.Tables), MaxTables)
	}
	if second := p.Tables[1]; second.Name != "parted" || second.Kind != "partitioned table" || second.Rows != 8000 || second.Bytes == 0 {
		t.Fatalf("a partitioned table counts its partitions: %+v", second)
	}
	first := p.Tables[0]
	if first.Name != "big" || first.Rows != 20000 || !first.Large || len(first.Examples) != exampleRows || len(first.Columns) != 2 {
		t.Fatalf("the largest table first, estimated, large, with examples: %+v", first)
	}
	if p.Tables[2].Rows != 0 || !p.Tables[2].Exact {
		t.Fatalf("a never-analysed small table is counted: %+v", p.Tables[2])
	}
	text := p.Text(true)
	if len(text) > 16<<10 || !strings.Contains(text, "1942 more tables") || !strings.Contains(text, "large:") {
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
	benchStart(b, u)
}

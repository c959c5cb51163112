package source

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/source/sourcetest"
)

// myManyTables makes database wide with n small tables t0001… (MyISAM:
// exact row counts), a larger InnoDB table, a view, and a second database
// the user may read.
func myManyTables(t testing.TB, n int) (sourcetest.Server, string) {
	srv := sourcetest.Kinds()[1].Start(t)
	u := srv.CreateDB(t, "wide")
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "CREATE TABLE t%04d (id int, name text, amount decimal(10,2)) ENGINE=MyISAM;", i)
	}
	srv.Exec(t, "wide", b.String())
	srv.Exec(t, "wide", `CREATE TABLE big ENGINE=InnoDB AS SELECT seq AS id, md5(seq) AS name FROM seq_1_to_20000; ANALYZE TABLE big;
		INSERT INTO t0001 VALUES (1, 'a', 1.5), (2, 'b', NULL);
		CREATE VIEW big_ids AS SELECT id FROM big;
		CREATE DATABASE other; CREATE TABLE other.notes (note text); INSERT INTO other.notes VALUES ('x')`)
	return srv, u
}

func TestMariaDBProfileIsBounded(t *testing.T) {
	_, u := myManyTables(t, 2000)
	p := profileOf(t, u, 1<<20)
	if p.Total != 2003 || len(p.Tables) != MaxTables {
		t.Fatalf("total %d, listed %d; want 2003 (2,002 in wide, 1 in other) and %d", p.Total, len(p.Tables), MaxTables)
	}
	first := p.Tables[0]
	if first.Schema != "wide" || first.Name != "big" || first.Kind != "table" || first.Rows != 20000 || !first.Exact || !first.Large ||
		len(first.Examples) != exampleRows || len(first.Columns) != 2 || first.Columns[1].Type != "varchar(32)" {
		t.Fatalf("the largest table first, counted, large, with examples: %+v", first)
	}
	var t1 *Table
	for i := range p.Tables {
		if p.Tables[i].Name == "t0001" {
			t1 = &p.Tables[i]
		}
		if p.Tables[i].Schema != "wide" {
			t.Errorf("the URL's database comes first: %s.%s is listed among 60", p.Tables[i].Schema, p.Tables[i].Name)
		}
	}
	if t1 == nil || t1.Rows != 2 || !t1.Exact || t1.Columns[2].Type != "decimal(10,2)" || t1.Examples[1][2] != "NULL" {
		t.Fatalf("a MyISAM table's row count is exact: %+v", t1)
	}
	text := p.Text(true)
	if len(text) > 16<<10 || !strings.Contains(text, "1943 more tables") || !strings.Contains(text, "large:") ||
		!strings.Contains(text, "(MariaDB 1") || !strings.Contains(text, "table_name LIKE '%word%'") {
		t.Fatalf("profile text of %d bytes:\n%s", len(text), text)
	}
	if schema := p.Text(false); strings.Contains(schema, "row:") {
		t.Fatalf("share = schema shows rows:\n%s", schema)
	}
}

// A small profile: every table and view of both databases, names quoted
// with backticks where MariaDB needs it.
func TestMariaDBProfileNamesAndViews(t *testing.T) {
	k := sourcetest.Kinds()[1]
	srv, u := k.SalesDB(t)
	srv.Exec(t, "sales", "CREATE VIEW north AS SELECT * FROM sales WHERE region = 'North'")
	src, err := Open(context.Background(), Spec{Name: "sales", URL: u})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	p, err := src.Profile(context.Background(), ProfileOptions{Examples: true, Memory: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	text := p.Text(true)
	for _, want := range []string{"sales.sales (table, 3 rows", "sales.north (view", "`Ventes été`.`Chiffre d'affaires \"net\"` (table, 3 rows",
		"columns: `Région du nord` text, `montant €` int(11)", "row: Île | 5", "quote names with spaces or accents in backticks"} {
		if !strings.Contains(text, want) {
			t.Errorf("the profile lacks %q:\n%s", want, text)
		}
	}
}

// BenchmarkMariaDBStartWithTwoThousandTables is a MariaDB source's
// start-up against 2,000 tables: the check and the profile the model gets.
func BenchmarkMariaDBStartWithTwoThousandTables(b *testing.B) {
	_, u := myManyTables(b, 2000)
	benchStart(b, u)
}

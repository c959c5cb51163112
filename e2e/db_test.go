package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
	"github.com/quarry-cli/quarry/source/pgtest"
)

// A report against a live PostgreSQL, then its rerun with no model a month
// later: the rerun reads the database again (today's data), through --db,
// and the password is in neither run's output.
func TestRerunReadsTheDatabaseAgain(t *testing.T) {
	sandboxtest.Engine(t)
	pg := pgtest.Start(t)
	pg.CreateDB(t, "sales")
	pg.Exec(t, "sales", "CREATE TABLE orders (region text, amount int); INSERT INTO orders VALUES ('North', 5), ('North', 7), ('South', 1)")
	home := t.TempDir()
	code := `t = sql("SELECT region, sum(amount)::int AS total FROM orders GROUP BY 1 ORDER BY 1", db="sales")
for r in t.itertuples():
    print("TOTAL", r.region, r.total)`
	model := openaitest.New(t, openaitest.ToolCalls(code), openaitest.Text("North leads."))
	db := "sales=" + pg.URL("sales")
	r := newRun(t, model.URL, "-p", "totals by region", "--db", db, "--json").inHome(home)
	if c := r.exec(3 * time.Minute); c != 0 {
		t.Fatalf("session: exit %d\n%s", c, r.stderr.String())
	}
	var res struct {
		Session string
	}
	json.Unmarshal(r.stdout.Bytes(), &res)
	for _, out := range []string{r.stdout.String(), r.stderr.String()} {
		if strings.Contains(out, pg.Password) {
			t.Fatalf("the password is in the session's output:\n%s", out)
		}
	}
	if !strings.Contains(r.stdout.String(), "TOTAL North 12") {
		t.Fatalf("the session's cell output:\n%s", r.stdout.String())
	}

	pg.Exec(t, "sales", "INSERT INTO orders VALUES ('South', 100)")
	rr := newRun(t, "", "rerun", res.Session, "--db", db, "--json").inHome(home).withoutModel()
	if c := rr.exec(3 * time.Minute); c != 0 {
		t.Fatalf("rerun: exit %d\n%s\n%s", c, rr.stdout.String(), rr.stderr.String())
	}
	var doc rerunDoc
	if err := json.Unmarshal(rr.stdout.Bytes(), &doc); err != nil || len(doc.Cells) != 1 {
		t.Fatalf("rerun --json: %v\n%s", err, rr.stdout.String())
	}
	if !strings.Contains(doc.Cells[0].Stdout, "TOTAL South 101") || !strings.Contains(doc.Cells[0].Stdout, "TOTAL North 12") {
		t.Errorf("the rerun did not read today's data:\n%s", doc.Cells[0].Stdout)
	}
	if strings.Contains(rr.stdout.String()+rr.stderr.String(), pg.Password) {
		t.Errorf("the password is in the rerun's output")
	}
}

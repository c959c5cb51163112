package mcp

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/source"
	"github.com/quarry-cli/quarry/source/pgtest"
)

// run_sql reads a real PostgreSQL through the host; its password is in no
// result, not in an error, a listing, the record's export or a profile.
func TestSourcePasswordInNoResult(t *testing.T) {
	pg := pgtest.Start(t)
	u := pg.CreateDB(t, "sales")
	pg.Exec(t, "sales", `CREATE TABLE sales (region text, revenue int8); INSERT INTO sales VALUES ('North', 80000), ('South', 100000)`)
	cfg := config.Config{Sources: map[string]string{"sales": u}}
	h := newHarness(t, Options{Config: cfg, OpenSources: func(ctx context.Context) (*source.Set, error) {
		return source.OpenAll(ctx, []source.Spec{{Name: "sales", URL: u}})
	}}, true, nil)
	var seen []string
	keep := func(res *sdk.CallToolResult) *sdk.CallToolResult {
		b, _ := json.Marshal(res)
		seen = append(seen, string(b))
		return res
	}
	h.writeFile("q1.csv", "region,target\nNorth,90000\nSouth,90000\n")
	keep(h.ok("attach_file", map[string]any{"path": "q1.csv"}))
	res := keep(h.ok("run_sql", map[string]any{"query": "SELECT region, revenue FROM sales ORDER BY region", "db": "sales"}))
	var out CellOutput
	structured(t, res, &out)
	if out.Table == nil || out.Table.Shape.Rows != 2 || out.Table.Rows[1][1] != "100000" {
		t.Fatalf("run_sql: %+v\n%s", out, text(res))
	}
	// DuckDB over the attached file, as sql() without db.
	res = keep(h.ok("run_sql", map[string]any{"query": "SELECT sum(target) AS t FROM '/data/q1.csv'"}))
	if !strings.Contains(text(res), "180000") {
		t.Fatalf("DuckDB over the file:\n%s", text(res))
	}
	keep(h.call("run_sql", map[string]any{"query": "SELECT * FROM no_such_table", "db": "sales"}))
	keep(h.call("run_python", map[string]any{"code": "import os\nprint(dict(os.environ))\nsql('SELECT current_user, version()', db='sales')"}))
	keep(h.call("run_sql", map[string]any{"query": "SELECT 1", "db": "nowhere"}))
	keep(h.ok("check_numbers", map[string]any{"text": "South sold 100000; the password is " + pg.Password}))
	for _, f := range []string{"md", "html", "ipynb"} {
		var ex ExportOutput
		structured(t, keep(h.ok("export_session", map[string]any{"format": f})), &ex)
		rr, err := h.cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: ex.URI})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(rr)
		seen = append(seen, string(b))
	}
	enc := url.QueryEscape(pg.Password)
	for _, s := range seen {
		if strings.Contains(s, pg.Password) || strings.Contains(s, enc) {
			t.Fatalf("the password reached a client:\n%s", s)
		}
	}
	if !strings.Contains(strings.Join(seen, "\n"), "no_such_table") {
		t.Fatal("the failed query's error did not come back")
	}
}

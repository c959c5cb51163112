package export

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/session"
)

// A cell that read a database writes, in the notebook, a read of the
// source: the setup defines sql() over a connection placeholder, with the
// session's user@host/db beside it and no credential.
func TestNotebookReadsSourcesThroughPlaceholder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "20261129-173235-3761b5")
	os.MkdirAll(dir, 0o700)
	var lines [][]byte
	add := func(e session.Entry) {
		e.Time = time.Date(2026, 11, 29, 17, 32, 35, 0, time.UTC)
		b, _ := json.Marshal(e)
		lines = append(lines, b)
	}
	add(session.Entry{Kind: session.EntrySession, V: session.RecordVersion, ID: filepath.Base(dir), Model: "gpt-fake",
		Settings: &session.Settings{Sources: []session.RecordedSource{{Name: "sales", Where: "analyst@db.example.com:5432/sales"},
			{Name: "store", Where: "analyst@/run/mysqld/mysqld.sock/store", Kind: "mysql"}}}})
	add(session.Entry{Kind: session.EntryQuestion, Text: "revenue by region"})
	add(session.Entry{Kind: session.EntryCell, Cell: &session.Cell{Num: 1, Status: session.CellOK,
		Code: `df = sql("SELECT region, sum(amount) FROM orders GROUP BY 1", db="sales")` + "\n" + `legacy = sql('SELECT * FROM t', db='shop')` + "\n" + `items = sql("SELECT * FROM items", db="store")`}})
	os.WriteFile(filepath.Join(dir, session.RecordName), append(bytes.Join(lines, []byte("\n")), '\n'), 0o600)

	out := filepath.Join(t.TempDir(), "s.ipynb")
	if _, err := Write(loadRecord(t, dir), Notebook, out); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	var nb struct {
		Cells []struct {
			Source any `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatal(err)
	}
	setup := sourceText(nb.Cells[1].Source)
	for _, want := range []string{"SOURCES = {", "'sales': 'postgresql://USER@HOST:5432/DBNAME',  # in the session: PostgreSQL, analyst@db.example.com:5432/sales",
		"'store': 'mysql+pymysql://USER@HOST:3306/DBNAME',  # in the session: MariaDB/MySQL, analyst@/run/mysqld/mysqld.sock/store", "def sql(query, db=None"} {
		if !strings.Contains(setup, want) {
			t.Errorf("the setup cell lacks %q:\n%s", want, setup)
		}
	}
	if strings.Contains(setup, "'shop'") {
		t.Errorf("a database file is listed as a source:\n%s", setup)
	}
}

func sourceText(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case []any:
		var b strings.Builder
		for _, x := range s {
			b.WriteString(x.(string))
		}
		return b.String()
	}
	return ""
}

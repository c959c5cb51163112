package e2e

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// Files whose names say another kind than their content are read by their
// content through the real binary: a CSV exported with an .xlsx name and a
// gzip file named .csv. The model is told in the prompt (the note and the
// read call that works), the user on stderr, and the cell reads both.
func TestFilesReadByTheirContent(t *testing.T) {
	sandboxtest.Engine(t)
	srv := openaitest.New(t, openaitest.ToolCalls("import pandas as pd\n"+
		"print('ROWS', len(pd.read_csv('/data/book.xlsx')), len(pd.read_csv('/data/sales.csv', compression='gzip')))"))
	srv.Handle(func(req openaitest.Request) openaitest.Reply {
		return openaitest.Text("Answer: " + regexp.MustCompile(`ROWS \d+ \d+`).FindString(req.LastToolResult()))
	})
	dir := t.TempDir()
	book := filepath.Join(dir, "book.xlsx")
	if err := os.WriteFile(book, []byte(q1CSV), 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte("region,amount\nNorth,1\nSouth,2\n"))
	z.Close()
	sales := filepath.Join(dir, "sales.csv")
	if err := os.WriteFile(sales, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRun(t, srv.URL, "-p", "how many rows?", book, sales)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr.String())
	}
	if !strings.Contains(r.stdout.String(), "Answer: ROWS 3 2") {
		t.Errorf("stdout = %q", r.stdout.String())
	}
	for _, w := range []string{"book.xlsx: named .xlsx, but it is a CSV file", "sales.csv: named .csv, but it is compressed with gzip"} {
		if !strings.Contains(r.stderr.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr.String())
		}
	}
	reqs := srv.ChatRequests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the model")
	}
	sys := reqs[0].System()
	for _, w := range []string{"note: named .xlsx, but it is a CSV file", "read with: pd.read_csv('/data/sales.csv', compression='gzip')"} {
		if !strings.Contains(sys, w) {
			t.Errorf("the system prompt lacks %q:\n%s", w, sys)
		}
	}
}

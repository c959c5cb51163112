package sandboxtest

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The ledger's truth must be what a CSV reader finds in the file.
func TestWriteLedgerTruthMatchesFile(t *testing.T) {
	lg, err := WriteLedger(filepath.Join(t.TempDir(), "gl.csv"), 20000, 7)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(lg.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != LedgerHeader || int64(len(recs)-1) != lg.Rows {
		t.Fatalf("header %v, %d rows; want %d", recs[0], len(recs)-1, lg.Rows)
	}
	var total int64
	by := map[int]int64{}
	for _, r := range recs[1:] {
		a, _ := strconv.Atoi(r[2])
		c, err := strconv.ParseInt(strings.Replace(r[6], ".", "", 1), 10, 64)
		if err != nil || len(r) != 7 {
			t.Fatalf("row %v: %v", r, err)
		}
		total += c
		by[a] += c
	}
	if total != lg.TotalCents || len(by) != len(lg.ByAccount) {
		t.Fatalf("total %d (truth %d), %d accounts (truth %d)", total, lg.TotalCents, len(by), len(lg.ByAccount))
	}
	for a, c := range by {
		if lg.ByAccount[a] != c {
			t.Errorf("account %d: %d, truth %d", a, c, lg.ByAccount[a])
		}
	}
	if Cents(-5) != "-0.05" || Cents(123456) != "1234.56" {
		t.Errorf("Cents: %s %s", Cents(-5), Cents(123456))
	}
	if per := lg.Bytes / lg.Rows; per < 90 || per > 110 {
		t.Errorf("%d bytes a row; 16 M rows should make about 1.6 GB", per)
	}
}

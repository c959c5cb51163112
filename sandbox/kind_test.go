package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The kernel's question about a file it holds is answered by the one table
// from the file's start and end: a workbook a cell wrote (its zip directory
// at the end) is a workbook, junk is refused in the table's words, and a
// sample that is not one of a file is refused.
func TestIdentifySample(t *testing.T) {
	src := filepath.Join("..", "..", "shared", "corpus", "csv")
	xlsx, _ := filepath.Glob(filepath.Join(src, "*.xlsx"))
	if len(xlsx) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("no .xlsx in ../shared/corpus/csv")
		}
		t.Skip("../shared/corpus/csv is absent")
	}
	b, err := os.ReadFile(xlsx[0])
	if err != nil {
		t.Fatal(err)
	}
	head, tail, at := b, []byte(nil), int64(len(b))
	if len(b) > 4096 {
		head, at = b[:1024], int64(len(b)-2048)
		tail = b[at:]
	}
	row, err := identifySample("../../etc/out.xlsx", int64(len(b)), head, tail, at)
	if err != nil || row.Reader != "excel" {
		t.Fatalf("a workbook's start and end: %+v, %v", row, err)
	}
	if _, err := identifySample("x.csv", 16, []byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"), nil, 16); err == nil || !strings.Contains(err.Error(), "x.csv is not a CSV file") {
		t.Errorf("junk: %v", err)
	}
	if _, err := identifySample("x.csv", 10, []byte("a,b\n"), []byte("1,2"), 2); err == nil {
		t.Error("an end that overlaps the start was taken")
	}
}

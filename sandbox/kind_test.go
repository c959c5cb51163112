package sandbox

import (
	"archive/zip"
	"bytes"
	"strings"
	"testing"
)

// The kernel's question about a file it holds is answered by the one table
// from the file's start and end: a workbook a cell wrote (its zip directory
// at the end) is a workbook, junk is refused in the table's words, and a
// sample that is not one of a file is refused.
func TestIdentifySample(t *testing.T) {
	// A workbook as a cell would write it: its directory at the end, past a
	// member larger than the start the kernel sends.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range []struct {
		name string
		size int
	}{{"[Content_Types].xml", 200}, {"xl/worksheets/sheet1.xml", 40 << 10}, {"xl/workbook.xml", 300}} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(bytes.Repeat([]byte("x"), m.size))
	}
	zw.Close()
	b := buf.Bytes()
	head, at := b[:1024], int64(len(b)-2048)
	row, err := identifySample("../../etc/out.xlsx", int64(len(b)), head, b[at:], at)
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

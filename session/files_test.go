package session

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestCheckFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	folder := filepath.Join(dir, "exports")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// What a file's content is, whatever its name, is filekind's (its
	// tests pair every name with every content); here: the checks around it.
	cases := []struct {
		name string
		path string
		want string // "" means accepted; otherwise a piece of the message
	}{
		{"csv", write("q1.csv", []byte("department,budget,actual\nSales,100,90\n")), ""},
		{"no extension, text", write("popcon", []byte("#rank name inst\n1     dpkg 198813\n")), ""},
		{"sqlite named .bin", write("shop.bin", append([]byte("SQLite format 3\x00"), make([]byte, 84)...)), ""},
		{"missing", filepath.Join(dir, "nope.csv"), "no such file"},
		{"folder", folder, "is a folder"},
		{"fifo", fifo, "not a regular file"},
		{"empty", write("empty.csv", nil), "is empty"},
		{"pdf named csv", write("report.csv", []byte("%PDF-1.7")), "is a PDF document, not a CSV file"},
		{"unknown binary", write("blob.bin", []byte{0xde, 0xad, 0, 1}), "unsupported file (type .bin)"},
		{"truncated xlsx", write("cut.xlsx", zipOf(t, "xl/workbook.xml")[:30]), "damaged or incomplete"},
		{"zip of two files", write("two.zip", zipOf(t, "a.csv", "b.csv")), "holds 2 files (a.csv, b.csv)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckFile(c.path)
			if c.want == "" {
				if err != nil {
					t.Fatalf("CheckFile(%s) = %v, want accepted", c.path, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckFile(%s) accepted, want %q", c.path, c.want)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
				t.Fatalf("CheckFile(%s) = %q, want it to name the file and say %q", c.path, err, c.want)
			}
		})
	}
}

// zipOf is a zip archive holding the named (small) files.
func zipOf(t *testing.T, names ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for _, n := range names {
		f, err := w.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("a,b\n1,2\n"))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

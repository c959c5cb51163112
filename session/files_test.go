package session

import (
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
	cases := []struct {
		name string
		path string
		want string // "" means accepted; otherwise a piece of the message
	}{
		{"csv", write("q1.csv", []byte("department,budget,actual\nSales,100,90\n")), ""},
		{"tsv upper-case ext", write("q1.TSV", []byte("a\tb\n1\t2\n")), ""},
		{"json", write("d.json", []byte(`[{"a":1}]`)), ""},
		{"utf16 text with BOM", write("u.txt", []byte{0xFF, 0xFE, 'a', 0, ',', 0, 'b', 0}), ""},
		{"xlsx", write("b.xlsx", []byte("PK\x03\x04rest-of-zip")), ""},
		{"xlsm", write("b.xlsm", []byte("PK\x03\x04rest-of-zip")), ""},
		{"xls ole", write("old.xls", []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1, 0}), ""},
		{"parquet", write("p.parquet", []byte("PAR1....PAR1")), ""},
		{"missing", filepath.Join(dir, "nope.csv"), "no such file"},
		{"folder", folder, "is a folder"},
		{"fifo", fifo, "not a regular file"},
		{"empty", write("empty.csv", nil), "is empty"},
		{"unsupported", write("report.pdf", []byte("%PDF-1.7")), "unsupported file (type .pdf)"},
		{"no extension", write("data", []byte("a,b\n")), "unsupported file (no extension)"},
		{"binary csv", write("bin.csv", []byte("a,b\n\x00\x01\x02")), "looks binary"},
		{"xlsx not zip", write("fake.xlsx", []byte("a,b\n1,2\n")), "not an Excel workbook"},
		{"xlsx that is old xls", write("old.xlsx", []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}), "rename it to .xls"},
		{"xls that is html", write("export.xls", []byte("<html><table>")), "rename it to .csv"},
		{"parquet bad", write("bad.parquet", []byte("a,b\n")), "not a Parquet file"},
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

func TestCheckFileUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files whatever their mode")
	}
	p := filepath.Join(t.TempDir(), "secret.csv")
	if err := os.WriteFile(p, []byte("a,b\n"), 0o000); err != nil {
		t.Fatal(err)
	}
	err := CheckFile(p)
	if err == nil || !strings.Contains(err.Error(), "permission denied") || !strings.Contains(err.Error(), p) {
		t.Fatalf("CheckFile = %v, want permission denied naming %s", err, p)
	}
}

func TestCheckFilesSameBaseName(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "q1.csv"), filepath.Join(t.TempDir(), "q1.csv")
	for _, p := range []string{a, b} {
		os.WriteFile(p, []byte("a,b\n1,2\n"), 0o644)
	}
	if err := CheckFiles([]string{a}); err != nil {
		t.Fatalf("one file: %v", err)
	}
	err := CheckFiles([]string{a, b})
	if err == nil || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) || !strings.Contains(err.Error(), "rename") {
		t.Fatalf("err = %v", err)
	}
}

// A folder that cannot be made is bad input, found before any container.
func TestCheckOutputDirCannotBeMade(t *testing.T) {
	file := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	cases := []string{filepath.Join(file, "out"), filepath.Join(file, "a", "b")}
	if _, err := os.Stat("/proc/self"); err == nil {
		cases = append(cases, "/proc/quarry-out") // not writable, even for root
	}
	for _, dir := range cases {
		err := CheckOutputDir(dir)
		if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "--output-dir") {
			t.Errorf("CheckOutputDir(%s) = %v", dir, err)
		}
	}
	ok := filepath.Join(t.TempDir(), "new", "deeper")
	if err := CheckOutputDir(ok); err != nil {
		t.Errorf("CheckOutputDir(%s) = %v", ok, err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(filepath.Dir(ok))); len(entries) != 0 {
		t.Errorf("the check left %v behind", entries)
	}
}

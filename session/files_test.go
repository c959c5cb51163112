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
	cases := []struct {
		name string
		path string
		want string // "" means accepted; otherwise a piece of the message
	}{
		{"csv", write("q1.csv", []byte("department,budget,actual\nSales,100,90\n")), ""},
		{"tsv upper-case ext", write("q1.TSV", []byte("a\tb\n1\t2\n")), ""},
		{"json", write("d.json", []byte(`[{"a":1}]`)), ""},
		{"utf16 text with BOM", write("u.txt", []byte{0xFF, 0xFE, 'a', 0, ',', 0, 'b', 0}), ""},
		{"xlsx", write("b.xlsx", zipOf(t, "[Content_Types].xml", "xl/workbook.xml")), ""},
		{"xlsm", write("b.xlsm", zipOf(t, "[Content_Types].xml")), ""},
		{"ods", write("b.ods", zipOf(t, "mimetype", "content.xml")), ""},
		{"xls ole", write("old.xls", []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1, 0}), ""},
		{"parquet", write("p.parquet", []byte("PAR1data-and-metadata\x04\x00\x00\x00PAR1")), ""},
		{"feather", write("f.feather", []byte("ARROW1\x00\x00dataARROW1")), ""},
		{"stata", write("s.dta", []byte("<stata_dta><header>")), ""},
		{"spss", write("s.sav", []byte("$FL2@(#) SPSS DATA FILE")), ""},
		{"spss portable", write("s.por", []byte("ASCII SPSS PORT FILE")), ""},
		{"sas", write("s.sas7bdat", append(make([]byte, 12), append([]byte{0xc2, 0xea, 0x81, 0x60}, make([]byte, 16)...)...)), ""},
		{"sas transport", write("s.xpt", []byte("HEADER RECORD*******LIBRARY HEADER RECORD!!!!!!!")), ""},
		{"gzip csv", write("q.csv.gz", []byte{0x1f, 0x8b, 8, 0}), ""},
		{"bz2 tsv", write("q.tsv.bz2", []byte("BZh91AY")), ""},
		{"xz json lines", write("q.jsonl.xz", []byte{0xfd, '7', 'z', 'X', 'Z', 0}), ""},
		{"zip of one csv", write("q.zip", zipOf(t, "q1.csv")), ""},
		{"zip with mac junk", write("m.zip", zipOf(t, "q1.csv", "__MACOSX/._q1.csv")), ""},
		{"missing", filepath.Join(dir, "nope.csv"), "no such file"},
		{"folder", folder, "is a folder"},
		{"fifo", fifo, "not a regular file"},
		{"empty", write("empty.csv", nil), "is empty"},
		{"unsupported", write("report.pdf", []byte("%PDF-1.7")), "unsupported file (type .pdf)"},
		{"no extension, text", write("popcon", []byte("#rank name inst\n1     dpkg 198813\n")), ""},
		{"digits for an extension, text", write("data.2024", []byte("a,b\n1,2\n")), ""},
		{"no extension, parquet", write("pq", []byte("PAR1data-and-metadata\x04\x00\x00\x00PAR1")), ""},
		{"no extension, sqlite", write("db", append([]byte("SQLite format 3\x00"), make([]byte, 84)...)), ""},
		{"no extension, gzip", write("logs", []byte{0x1f, 0x8b, 8, 0}), ""},
		{"no extension, zip", write("book", zipOf(t, "[Content_Types].xml", "xl/workbook.xml")), ""},
		{"no extension, zip of one csv", write("bundle", zipOf(t, "q1.csv")), ""},
		{"no extension, zip of two files", write("bundle2", zipOf(t, "a.csv", "b.csv")), "holds 2 files (a.csv, b.csv)"},
		{"no extension, old stata", write("survey", []byte{114, 2, 1, 0, 3, 0}), ""},
		{"no extension, spss", write("spss", []byte("$FL2@(#) SPSS DATA FILE")), ""},
		{"no extension, utf-16 text", write("u16", []byte{0xFF, 0xFE, 'a', 0, ',', 0, 'b', 0}), ""},
		{"no extension, png", write("picture", []byte("\x89PNG\r\n\x1a\n\x00\x00")), "is a PNG image"},
		{"no extension, unknown binary", write("blob", []byte{0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3, 4}), "neither text nor a known data format (it starts with the bytes de ad be ef 00 01 02 03)"},
		{"sqlite by name", write("shop.sqlite", append([]byte("SQLite format 3\x00"), make([]byte, 84)...)), ""},
		{"sqlite name, not sqlite", write("shop.db", []byte("a,b\n")), "not an SQLite database"},
		{"binary csv", write("bin.csv", []byte("a,b\n\x00\x01\x02")), "looks binary"},
		{"xlsx not zip", write("fake.xlsx", []byte("a,b\n1,2\n")), "not an Excel workbook"},
		{"truncated xlsx", write("cut.xlsx", zipOf(t, "xl/workbook.xml")[:30]), "damaged or incomplete"},
		{"encrypted xlsx", write("locked.xlsx", encryptedOffice()), "password-protected"},
		{"broken parquet footer", write("cut.parquet", []byte("PAR1data-and-meta")), "Parquet footer"},
		{"parquet footer longer than the file", write("lie.parquet", []byte("PAR1\xff\xff\x00\x00PAR1")), "Parquet footer"},
		{"truncated arrow", write("cut.arrow", []byte("ARROW1\x00\x00data")), "damaged or incomplete"},
		{"spss syntax as sav", write("x.sav", []byte("GET FILE='a.sav'.")), "not an SPSS data file"},
		{"gzip that is text", write("t.csv.gz", []byte("a,b\n")), "not a gz file"},
		{"gzip of a workbook", write("b.xlsx.gz", []byte{0x1f, 0x8b}), "unpack it"},
		{"zip of two files", write("two.zip", zipOf(t, "a.csv", "b.csv")), "holds 2 files (a.csv, b.csv)"},
		{"zip of a workbook", write("wb.zip", zipOf(t, "book.xlsx")), "holds book.xlsx"},
		{"empty zip", write("none.zip", []byte("PK\x05\x06"+strings.Repeat("\x00", 18))), "empty zip"},
		{"truncated zip", write("cut.zip", zipOf(t, "q1.csv")[:40]), "damaged or incomplete"},
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

// encryptedOffice is the start of a password-protected Office file: an OLE
// container whose directory (sector 0, 512-byte sectors) lists the
// EncryptionInfo and EncryptedPackage streams.
func encryptedOffice() []byte {
	b := make([]byte, 1024)
	copy(b, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1})
	b[30] = 9 // sector shift: 512 bytes
	copy(b[512:], utf16le("EncryptionInfo"))
	copy(b[640:], utf16le("EncryptedPackage"))
	return b
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

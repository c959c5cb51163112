package session

import (
	"archive/zip"
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
)

// magics are the data formats quarry reads, told by their first bytes, for
// a file whose name does not say (popcon, data.2024).
var magics = []struct {
	what  string
	match func(head []byte) bool
}{
	{"Parquet", prefix(parquetMagic)},
	{"SQLite", prefix(sqliteMagic)},
	{"DuckDB", isDuckDB},
	{"zip (Excel, OpenDocument or a zipped file)", prefix(zipMagic)},
	{"gzip", prefix(compressions[".gz"])},
	{"bzip2", prefix(compressions[".bz2"])},
	{"xz", prefix(compressions[".xz"])},
	{"Arrow", func(h []byte) bool { return bytes.HasPrefix(h, arrowMagic) || bytes.HasPrefix(h, []byte("FEA1")) }},
	{"old-style Excel", prefix(oleMagic)},
	{"Stata", func(h []byte) bool {
		// <stata_dta> from version 117; before it a version byte (102 to
		// 115), a byte order (1 or 2) and file type 1.
		return bytes.HasPrefix(h, []byte("<stata_dta>")) ||
			len(h) > 3 && h[0] >= 102 && h[0] <= 115 && (h[1] == 1 || h[1] == 2) && h[2] == 1
	}},
	{"SPSS", func(h []byte) bool { return bytes.HasPrefix(h, []byte("$FL2")) || bytes.HasPrefix(h, []byte("$FL3")) }},
	{"SAS", func(h []byte) bool {
		return len(h) >= 32 && bytes.Equal(h[12:16], []byte{0xc2, 0xea, 0x81, 0x60}) ||
			bytes.HasPrefix(h, []byte("HEADER RECORD*******LIB"))
	}},
}

// others are formats that are not data quarry reads, named so the refusal
// says what the file is.
var others = []struct {
	magic []byte
	what  string
}{
	{[]byte("%PDF"), "a PDF document"},
	{[]byte("\x89PNG"), "a PNG image"},
	{[]byte{0xff, 0xd8, 0xff}, "a JPEG image"},
	{[]byte("GIF8"), "a GIF image"},
	{[]byte("\x7fELF"), "a program (ELF)"},
	{[]byte("MZ"), "a Windows program"},
	{[]byte{0x28, 0xb5, 0x2f, 0xfd}, "zstd-compressed data (unpack it with unzstd)"},
	{[]byte("Rar!"), "a RAR archive"},
	{[]byte{'7', 'z', 0xbc, 0xaf, 0x27, 0x1c}, "a 7-Zip archive"},
}

func prefix(m []byte) func([]byte) bool {
	return func(h []byte) bool { return bytes.HasPrefix(h, m) }
}

// extensionless reports whether a file's name gives no type to go by: no
// extension, or one without a letter (data.2024).
func extensionless(ext string) bool {
	return !strings.ContainsFunc(ext, unicode.IsLetter)
}

// checkByContent accepts a file without an extension whose first bytes are
// text (read as a table, delimiter sniffed as for .txt) or a data format
// quarry reads; the profile then decides by the same content.
func checkByContent(p string, head []byte) error {
	if bytes.HasPrefix(head, zipMagic) && !isWorkbook(p) {
		return checkCompressed(p, ".zip", head) // a zipped file: one data file inside
	}
	for _, m := range magics {
		if m.match(head) {
			return nil
		}
	}
	for _, o := range others {
		if bytes.HasPrefix(head, o.magic) {
			return fmt.Errorf("%s: has no extension and is %s, not data quarry reads: attach a CSV, Excel, Parquet or other data file", p, o.what)
		}
	}
	if len(head) > 262 && bytes.Equal(head[257:262], []byte("ustar")) {
		return fmt.Errorf("%s: has no extension and is a tar archive: unpack it and attach the files inside", p)
	}
	if !LooksBinary(head) {
		return nil
	}
	n := min(len(head), 8)
	return fmt.Errorf("%s: has no extension and its content is neither text nor a known data format (it starts with the bytes % x): if it is a table, export it as CSV; otherwise name it with its type, e.g. %s.parquet",
		p, head[:n], filepath.Base(p))
}

// isWorkbook tells an Excel or OpenDocument file from a zip of data files
// by the parts it holds.
func isWorkbook(p string) bool {
	z, err := zip.OpenReader(p)
	if err != nil {
		return false
	}
	defer z.Close()
	for _, f := range z.File {
		if f.Name == "[Content_Types].xml" || f.Name == "mimetype" || strings.HasPrefix(f.Name, "xl/") {
			return true
		}
	}
	return false
}

package session

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// SupportedExts are the file types quarry attaches. A CSV, TSV, text or
// JSON file may also come compressed (.gz, .bz2, .xz, or a .zip holding it).
var SupportedExts = []string{
	".csv", ".tsv", ".txt", ".json", ".jsonl", ".ndjson",
	".xlsx", ".xlsm", ".xls", ".ods",
	".parquet", ".feather", ".arrow", ".duckdb",
	".dta", ".sav", ".zsav", ".por", ".sas7bdat", ".xpt",
	".sqlite", ".sqlite3", ".db",
	".gz", ".bz2", ".xz", ".zip",
}

var textExts = []string{".csv", ".tsv", ".txt", ".json", ".jsonl", ".ndjson"}

// compressions are the packings pandas unpacks while reading, by extension.
var compressions = map[string][]byte{
	".gz":  {0x1f, 0x8b},
	".bz2": []byte("BZh"),
	".xz":  {0xfd, '7', 'z', 'X', 'Z', 0},
	".zip": zipMagic,
}

var (
	zipMagic     = []byte("PK\x03\x04")
	zipEmpty     = []byte("PK\x05\x06")
	oleMagic     = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
	parquetMagic = []byte("PAR1")
	arrowMagic   = []byte("ARROW1")
	sqliteMagic  = []byte("SQLite format 3\x00")
)

// isDuckDB tells a DuckDB database by its header: a checksum, then "DUCK".
func isDuckDB(head []byte) bool { return len(head) >= 12 && bytes.Equal(head[8:12], []byte("DUCK")) }

// checkContent checks that the first bytes match the extension, so a
// mislabelled, damaged or locked file fails here with advice rather than
// deep in pandas.
func checkContent(p, ext string, head []byte) error {
	switch ext {
	case ".xlsx", ".xlsm", ".ods":
		if !bytes.HasPrefix(head, zipMagic) {
			if bytes.HasPrefix(head, oleMagic) {
				if oleEncrypted(p) {
					return fmt.Errorf("%s: is password-protected: open it, remove the password (File > Info > Protect Workbook), save and attach it again", p)
				}
				return fmt.Errorf("%s: is an old-style Excel workbook named %s: rename it to .xls", p, ext)
			}
			what := "an Excel workbook"
			if ext == ".ods" {
				what = "an OpenDocument spreadsheet"
			}
			return fmt.Errorf("%s: is not %s (no zip signature): if it is text, rename it to .csv; otherwise open and re-save it", p, what)
		}
		return checkZipIntact(p)
	case ".xls":
		if !bytes.HasPrefix(head, oleMagic) && !bytes.HasPrefix(head, zipMagic) {
			return fmt.Errorf("%s: is not an Excel workbook: many systems export text or HTML with an .xls name; if it is text, rename it to .csv or .tsv", p)
		}
	case ".duckdb":
		if !isDuckDB(head) {
			return fmt.Errorf("%s: is not a DuckDB database (no DUCK signature): check the export", p)
		}
	case ".parquet":
		if !bytes.HasPrefix(head, parquetMagic) {
			return fmt.Errorf("%s: is not a Parquet file (no PAR1 signature): check the export", p)
		}
		return checkParquetFooter(p)
	case ".feather", ".arrow":
		if !bytes.HasPrefix(head, arrowMagic) && !bytes.HasPrefix(head, []byte("FEA1")) &&
			!bytes.HasPrefix(head, []byte{0xff, 0xff, 0xff, 0xff}) {
			return fmt.Errorf("%s: is not a Feather or Arrow file (no ARROW1 signature): check the export", p)
		}
		if bytes.HasPrefix(head, arrowMagic) && !endsWith(p, arrowMagic) {
			return fmt.Errorf("%s: is damaged or incomplete (the Arrow footer is missing): export or download it again", p)
		}
	case ".dta":
		if !bytes.HasPrefix(head, []byte("<stata_dta>")) && (len(head) == 0 || head[0] < 0x66 || head[0] > 0x73) {
			return fmt.Errorf("%s: is not a Stata data file: check the export", p)
		}
	case ".sav", ".zsav":
		if !bytes.HasPrefix(head, []byte("$FL2")) && !bytes.HasPrefix(head, []byte("$FL3")) {
			return fmt.Errorf("%s: is not an SPSS data file (no $FL2 signature): if it is SPSS syntax or output, export the data as .sav", p)
		}
	case ".sas7bdat":
		if len(head) < 32 || !bytes.Equal(head[12:16], []byte{0xc2, 0xea, 0x81, 0x60}) {
			return fmt.Errorf("%s: is not a SAS data set: check the export", p)
		}
	case ".xpt":
		if !bytes.HasPrefix(head, []byte("HEADER RECORD*******LIB")) {
			return fmt.Errorf("%s: is not a SAS transport (XPORT) file: check the export", p)
		}
	case ".sqlite", ".sqlite3", ".db":
		if !bytes.HasPrefix(head, sqliteMagic) {
			return fmt.Errorf("%s: is not an SQLite database (no \"SQLite format 3\" signature): check the export", p)
		}
	case ".por":
		// SPSS portable files are text with their own character table.
	case ".gz", ".bz2", ".xz", ".zip":
		return checkCompressed(p, ext, head)
	default: // text types
		if LooksBinary(head) {
			return fmt.Errorf("%s: looks binary, not %s text (NUL bytes near the start): check that it is the file you meant, or export it as CSV", p, strings.TrimPrefix(ext, "."))
		}
	}
	return nil
}

// checkCompressed checks a compressed text file: the signature, and for a
// zip archive its directory, which must list one data file.
func checkCompressed(p, ext string, head []byte) error {
	inner := strings.ToLower(path.Ext(strings.TrimSuffix(strings.ToLower(p), ext)))
	if ext != ".zip" && inner != "" && !isText(inner) {
		return fmt.Errorf("%s: quarry reads compressed CSV, TSV, text and JSON files, not %s: unpack it and attach the %s file", p, inner, inner)
	}
	if ext == ".zip" && bytes.HasPrefix(head, zipEmpty) {
		return fmt.Errorf("%s: is an empty zip archive: there is nothing to analyse", p)
	}
	if !bytes.HasPrefix(head, compressions[ext]) {
		return fmt.Errorf("%s: is not a %s file (its signature does not match): check the export, or rename it", p, strings.TrimPrefix(ext, "."))
	}
	if ext != ".zip" {
		return nil
	}
	if err := checkZipIntact(p); err != nil {
		return err
	}
	z, err := zip.OpenReader(p)
	if err != nil {
		return fmt.Errorf("%s: is damaged or incomplete (%v): download or export it again", p, err)
	}
	defer z.Close()
	var data []string
	for _, f := range z.File {
		name := f.Name
		if strings.HasSuffix(name, "/") || strings.HasPrefix(name, "__MACOSX/") || path.Base(name) == ".DS_Store" {
			continue
		}
		if f.Flags&1 != 0 {
			return fmt.Errorf("%s: is password-protected: unzip it with its password and attach the file inside", p)
		}
		data = append(data, name)
	}
	switch {
	case len(data) == 0:
		return fmt.Errorf("%s: holds no file: there is nothing to analyse", p)
	case len(data) > 1:
		shown := data[:min(len(data), 4)]
		return fmt.Errorf("%s: holds %d files (%s): quarry reads a zip with one CSV or JSON file inside; unzip it and attach the files you need", p, len(data), strings.Join(shown, ", "))
	case !isText(strings.ToLower(path.Ext(data[0]))):
		return fmt.Errorf("%s: holds %s, which quarry reads only unpacked: unzip it and attach that file", p, data[0])
	}
	return nil
}

func isText(ext string) bool {
	for _, e := range textExts {
		if e == ext {
			return true
		}
	}
	return false
}

// checkZipIntact looks for the zip directory's end record, which a zip file
// cut short (an interrupted download or copy) lacks.
func checkZipIntact(p string) error {
	tail, err := readTail(p, 64<<10+22)
	if err != nil {
		return fmt.Errorf("%s: cannot be read: %v", p, err)
	}
	if !bytes.Contains(tail, zipEmpty) {
		return fmt.Errorf("%s: is damaged or incomplete (its zip directory is missing, as when a download or copy stops early): download or export it again", p)
	}
	return nil
}

// checkParquetFooter checks the end of a Parquet file: its metadata and the
// closing PAR1, without which no reader can open it.
func checkParquetFooter(p string) error {
	info, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("%s: cannot be read: %v", p, err)
	}
	tail, err := readTail(p, 8)
	if err != nil {
		return fmt.Errorf("%s: cannot be read: %v", p, err)
	}
	if len(tail) < 8 || !bytes.Equal(tail[4:], parquetMagic) ||
		int64(binary.LittleEndian.Uint32(tail[:4])) > info.Size()-12 {
		return fmt.Errorf("%s: is damaged or incomplete (its Parquet footer is missing or broken, as when a write or copy stops early): export or download it again", p)
	}
	return nil
}

func endsWith(p string, magic []byte) bool {
	tail, err := readTail(p, int64(len(magic)))
	return err == nil && bytes.Equal(tail, magic)
}

func readTail(p string, n int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := max(info.Size()-n, 0)
	b := make([]byte, info.Size()-off)
	_, err = f.ReadAt(b, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b, nil
}

// oleEncrypted tells an Office file encrypted with a password (an OLE
// container holding an EncryptedPackage stream) from an old .xls.
func oleEncrypted(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	hdr := make([]byte, 512)
	if _, err := io.ReadFull(f, hdr); err != nil {
		return false
	}
	sector := int64(1) << binary.LittleEndian.Uint16(hdr[30:32])
	dir := int64(binary.LittleEndian.Uint32(hdr[48:52]))
	if sector < 512 || sector > 4096 || dir > 1<<20 {
		return false
	}
	buf := make([]byte, sector)
	if _, err := f.ReadAt(buf, (dir+1)*sector); err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	return bytes.Contains(buf, utf16le("EncryptedPackage")) || bytes.Contains(buf, utf16le("EncryptionInfo"))
}

func utf16le(s string) []byte {
	b := make([]byte, 0, 2*len(s))
	for _, r := range s {
		b = append(b, byte(r), 0)
	}
	return b
}

package filekind

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every pairing of a name and a content: the content decides the kind; a
// name that says otherwise gives a note when quarry reads the content, and
// a refusal naming both when it does not.
func TestIdentify(t *testing.T) {
	dir := t.TempDir()
	csv := []byte("region;amount\nNord;100,25\nSüd;200,5\n")
	pq, arrowF, arrowS := parquetFile(t), arrowFile(t), arrowStreamFile(t)
	xlsx := xlsxParts(t)
	ods := zipOf(t, "mimetype", odsMime, "content.xml", "<office:document-content/>")
	odt := zipOf(t, "mimetype", "application/vnd.oasis.opendocument.text", "content.xml", "<x/>")
	docx := zipOf(t, "[Content_Types].xml", "<Types/>", "word/document.xml", "<w:document/>")
	xlsb := zipOf(t, "[Content_Types].xml", "<Types/>", "xl/workbook.bin", "\x00\x01")
	xls, doc, locked, other := oleOf("Workbook"), oleOf("WordDocument"), oleOf("EncryptionInfo", "EncryptedPackage"), oleOf("Contents")
	cases := []struct {
		name    string
		data    []byte
		kind    string // "" when refused
		packing string
		note    string // a piece of Note; "" wants none
		err     string // a piece of Err; "" wants none
	}{
		// Names that agree with the content.
		{"q1.csv", csv, "csv", "", "", ""},
		{"q1.TSV", []byte("a\tb\n1\t2\n"), "tsv", "", "", ""},
		{"notes.txt", []byte("a b c\n1 2 3\n"), "txt", "", "", ""},
		{"d.json", []byte(`[{"a":1}]`), "json", "", "", ""},
		{"d.jsonl", []byte("{\"a\":1}\n{\"a\":2}\n"), "jsonl", "", "", ""},
		{"one.jsonl", []byte("{\"a\":1}\n"), "jsonl", "", "", ""},
		{"one.json", []byte("{\"a\":1}\n"), "json", "", "", ""},
		{"u.txt", []byte{0xFF, 0xFE, 'a', 0, ',', 0, 'b', 0}, "txt", "", "", ""},
		{"u16.csv", []byte("a\x00,\x00b\x00\n\x001\x00,\x002\x00\n\x00"), "csv", "", "", ""},
		{"p.parquet", pq, "parquet", "", "", ""},
		{"f.feather", arrowF, "feather", "", "", ""},
		{"s.arrows", arrowS, "arrow_stream", "", "", ""},
		{"shop.sqlite", sqliteFile(), "sqlite", "", "", ""},
		{"shop.duckdb", duckdbFile(), "duckdb", "", "", ""},
		{"b.xlsx", xlsx, "xlsx", "", "", ""},
		{"b.ods", ods, "ods", "", "", ""},
		{"old.xls", xls, "xls", "", "", ""},
		{"s.dta", []byte{114, 2, 1, 0, 3, 0, 0, 0}, "stata", "", "", ""},
		{"q.csv.gz", gzipOf(t, csv), "csv", "gzip", "", ""},
		{"q.jsonl.xz", xzOf(t, []byte("{\"a\":1}\n{\"a\":2}\n")), "jsonl", "xz", "", ""},
		{"q.zip", zipOf(t, "q1.csv", ""), "csv", "zip", "", ""},
		{"m.zip", zipOf(t, "q1.csv", "", "__MACOSX/._q1.csv", "\x00\x05\x16\x07"), "csv", "zip", "", ""},

		// Text and binary kinds under each other's names.
		{"report.csv", []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n"), "", "", "", "report.csv is a PDF document, not a CSV file"},
		{"shop.csv", sqliteFile(), "sqlite", "", "named .csv, but it is an SQLite database", ""},
		{"data.csv", pq, "parquet", "", "named .csv, but it is a Parquet file", ""},
		{"fake.xlsx", csv, "csv", "", "named .xlsx, but it is a CSV file", ""},
		{"page.csv", []byte("<!DOCTYPE html>\n<html><body>Not found</body></html>"), "", "", "", "page.csv is an HTML page, not a CSV file"},
		{"export.xls", []byte("<html><table><tr><td>1</td></tr></table></html>"), "", "", "", "export.xls is an HTML page, not an old-style Excel workbook"},
		{"x.sav", []byte("GET FILE='a.sav'.\n"), "txt", "", "named .sav, but it is a text file", ""},
		{"d.csv", []byte(`{"rows": [{"a": 1}, {"a": 2}]}`), "json", "", "named .csv, but it is a JSON file", ""},
		{"brackets.csv", []byte("[id],name\n1,x\n"), "csv", "", "", ""},
		{"picture.csv", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "", "", "", "picture.csv is a PNG image, not a CSV file"},
		{"bin.csv", []byte("a,b\n\x00\x01\x02\x03"), "", "", "", "bin.csv is not a CSV file: its content is binary"},
		{"sheet.xls", []byte("<?xml version=\"1.0\"?>\n<Workbook xmlns=\"urn:schemas-microsoft-com:office:spreadsheet\">"), "", "", "", "an Excel 2003 XML spreadsheet, not an old-style Excel workbook"},

		// Compressed files.
		{"t.csv.gz", csv, "csv", "", "named .csv.gz, but it is not compressed", ""},
		{"plain.csv", gzipOf(t, csv), "csv", "gzip", "named .csv, but it is compressed with gzip", ""},
		{"q.csv.gz", xzOf(t, csv), "csv", "xz", "named .csv.gz, but it is compressed with xz", ""},
		{"b.parquet.gz", gzipOf(t, pq), "", "gzip", "", "holds a Parquet file compressed with gzip, which quarry reads only unpacked"},
		{"cut.csv.gz", []byte{0x1f, 0x8b, 8, 0}, "", "gzip", "", "damaged or incomplete (gzip cannot unpack its start"},
		{"twice.gz", gzipOf(t, gzipOf(t, csv)), "", "gzip", "", "packed twice"},
		{"empty.gz", gzipOf(t, nil), "", "gzip", "", "unpacks to nothing"},
		{"two.zip", zipOf(t, "a.csv", "", "b.csv", ""), "", "zip", "", "holds 2 files (a.csv, b.csv)"},
		{"wb.zip", zipOf(t, "book.xlsx", string(xlsx)), "", "zip", "", "holds a zip archive or an Office document (book.xlsx in the zip)"},
		{"sas.zip", zipOf(t, "s.dta", "\x72\x02\x01\x00\x03"), "", "zip", "", "holds s.dta (a Stata data file), which quarry reads only unpacked"},
		{"none.zip", []byte("PK\x05\x06" + strings.Repeat("\x00", 18)), "", "", "", "empty zip"},
		{"cut.zip", zipOf(t, "q1.csv", "")[:40], "", "", "", "damaged or incomplete (its zip directory is missing"},

		// Zip documents: a workbook is not a zip of a file, nor a Word file a workbook.
		{"book.zip", xlsx, "xlsx", "", "named .zip, but it is an Excel workbook", ""},
		{"b.xlsx", ods, "ods", "", "", ""},
		{"zipped.xlsx", zipOf(t, "sales.csv", ""), "csv", "zip", "named .xlsx, but it is a CSV file compressed with zip", ""},
		{"report.xlsx", docx, "", "", "", "report.xlsx is a Word document, not an Excel workbook"},
		{"b.xlsx", xlsb, "", "", "", "b.xlsx is an Excel binary workbook (.xlsb), not an Excel workbook"},
		{"letter.ods", odt, "", "", "", "an OpenDocument text or presentation, not an OpenDocument spreadsheet"},
		{"cut.xlsx", xlsx[:30], "", "", "", "damaged or incomplete"},

		// OLE files: an old workbook, a password, a Word file, another document.
		{"old.xlsx", xls, "xls", "", "", ""},
		{"old.doc", xls, "xls", "", "named .doc, but it is an old-style Excel workbook", ""},
		{"locked.xlsx", locked, "", "", "", "password-protected Office file"},
		{"letter.xls", doc, "", "", "", "letter.xls is an old-style Word document, not an old-style Excel workbook"},
		{"thing.xls", other, "", "", "", "an old Office document that is not a workbook"},
		{"cut.xls", xls[:100], "", "", "", "damaged or incomplete"},

		// Parquet, Arrow and Feather under each other's names.
		{"f.parquet", arrowF, "feather", "", "named .parquet, but it is a Feather or Arrow file", ""},
		{"p.feather", pq, "parquet", "", "named .feather, but it is a Parquet file", ""},
		{"s.arrow", arrowS, "arrow_stream", "", "named .arrow, but it is an Arrow IPC stream", ""},
		{"cut.parquet", pq[:len(pq)-3], "", "", "", "Parquet footer"},
		{"lie.parquet", []byte("PAR1\xff\xff\x00\x00PAR1"), "", "", "", "Parquet footer"},
		{"cut.arrow", arrowF[:len(arrowF)-4], "", "", "", "the Arrow footer is missing"},

		// Statistics files under each other's names.
		{"s.sav", []byte{114, 2, 1, 0, 3, 0, 0, 0}, "stata", "", "named .sav, but it is a Stata data file", ""},
		{"s.dta", []byte("$FL2@(#) SPSS DATA FILE"), "spss", "", "named .dta, but it is an SPSS data file", ""},
		{"s.sas7bdat", []byte("HEADER RECORD*******LIBRARY HEADER RECORD!!!!!!!000"), "xport", "", "", ""},

		// Databases under each other's names.
		{"shop.duckdb", sqliteFile(), "sqlite", "", "named .duckdb, but it is an SQLite database", ""},
		{"shop.db", duckdbFile(), "duckdb", "", "named .db, but it is a DuckDB database", ""},
		{"shop.db", []byte("a,b\n1,2\n"), "csv", "", "named .db, but it is a CSV file", ""},
		{"cut.sqlite", []byte("SQLite format 3\x00\x10\x00"), "", "", "", "shorter than an SQLite database's 100-byte header"},

		// No extension, or one quarry does not know.
		{"popcon", []byte("#rank name inst\n1     dpkg 198813\n"), "txt", "", "", ""},
		{"data.2024", []byte("a,b\n1,2\n"), "csv", "", "", ""},
		{"pq", pq, "parquet", "", "", ""},
		{"book", xlsx, "xlsx", "", "", ""},
		{"bundle", zipOf(t, "q1.csv", ""), "csv", "zip", "", ""},
		{"logs", gzipOf(t, []byte("{\"a\":1}\n{\"a\":2}\n")), "jsonl", "gzip", "", ""},
		{"picture", []byte("\x89PNG\r\n\x1a\n\x00\x00"), "", "", "", "picture has no extension and is a PNG image"},
		{"blob", []byte{0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3, 4}, "", "", "", "has no extension and its content is binary, of no kind quarry knows (it starts with the bytes de ad be ef 00 01 02 03)"},
		{"shop.bin", sqliteFile(), "sqlite", "", "named .bin, a kind quarry does not know: read by its content, an SQLite database", ""},
		{"table.dat", []byte("a b\n1 2\n"), "txt", "", "named .dat, a kind quarry does not know", ""},
		{"blob.bin", []byte{0xde, 0xad, 0, 1}, "", "", "", "unsupported file (type .bin)"},
		{"report.pdf", []byte("%PDF-1.7"), "", "", "", "report.pdf is a PDF document, which quarry does not read"},
		{"archive.tar", append(make([]byte, 257), []byte("ustar\x0000")...), "", "", "", "a tar archive"},

		// Empty files and files cut inside their signature.
		{"empty.csv", nil, "", "", "", "is empty"},
		{"cut2.parquet", []byte("PA"), "", "", "", "the start of a Parquet file's signature"},
		{"cut3.sqlite", []byte("SQLite for"), "", "", "", "the start of an SQLite database's signature"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sub := filepath.Join(dir, string(rune('a'+i/26))+string(rune('a'+i%26)))
			os.Mkdir(sub, 0o755)
			id := Identify(write(t, sub, c.name, c.data))
			err := id.Err()
			got := ""
			if err == nil {
				got = id.Kind.Name
			}
			packing := ""
			if id.Packing != nil {
				packing = id.Packing.Name
			}
			if got != c.kind || packing != c.packing {
				t.Fatalf("kind %q packing %q (err %v), want %q %q", got, packing, err, c.kind, c.packing)
			}
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), id.Path)):
				t.Fatalf("err %v, want it to name the file and say %q", err, c.err)
			}
			if note := id.Note(); c.note == "" && note != "" || !strings.Contains(note, c.note) {
				t.Fatalf("note %q, want %q", note, c.note)
			}
		})
	}
}

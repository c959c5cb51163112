package filekind

// Kind is one row of the table: one kind of file quarry reads, or knows
// well enough to say what it is and what to do instead.
type Kind struct {
	Name  string   // the row's id; the kernel's profile request carries it
	Label string   // what a file of the kind is, with its article: "an Excel workbook"
	Short string   // its name in lists ("Excel"); "" leaves it out of them
	Exts  []string // lower case, with the dot; the first names data that comes without a name
	Magic []Magic  // content signatures: any one of them tells the kind
	Rule  string   // the content rule in words, where it is not (only) Magic
	// Reader is the kernel's profile reader for the kind (READERS in
	// pykernel/quarry_kernel/profile/front.py); "" when quarry does not read it.
	Reader string
	Reads  []Read   // the calls the reader reports as the file's read call
	Calls  []string // other functions a notebook's code reads the kind with
	Packed bool     // may come compressed, or as the one file of a zip
	Fix    string   // for a kind quarry does not read: what to do instead
	text   bool     // a text kind: considered only when no binary kind matches
	// match is the content rule; without one, any of Magic matches.
	match func(*probe) bool
	check func(*probe) string // the file's integrity once identified: "" or the problem
}

// Magic is a content signature: Bytes at offset At.
type Magic struct {
	At    int
	Bytes string
}

// Read is a call a reader reports: Func(path, **args) + Suffix.
type Read struct {
	Func   string // e.g. pd.read_csv
	Suffix string // "[0]" for the readers that return (DataFrame, metadata)
}

func magic(at int, b string) Magic { return Magic{At: at, Bytes: b} }

func reads(funcs ...string) []Read {
	r := make([]Read, len(funcs))
	for i, f := range funcs {
		r[i] = Read{Func: f}
	}
	return r
}

const (
	fixExport  = "export the table from the program that made it as CSV or Excel, and attach that"
	fixUnpack  = "unpack it and attach the files inside"
	fixNoTable = "quarry reads tables: attach the data file instead"
)

// Kinds is the table. Content is matched in its order, binary kinds
// before any text kind (a text kind counts only when no binary one
// matches); delimited text is any text no other text kind claims.
var Kinds = []*Kind{
	// Kinds quarry reads: text first.
	{Name: "csv", Label: "a CSV file", Short: "CSV", Exts: []string{".csv"}, text: true,
		Rule: "any other text: no NUL bytes, or UTF-16/32", match: delimited,
		Reader: "csv", Reads: reads("pd.read_csv", "pd.read_fwf"), Calls: []string{"read_table"}, Packed: true},
	{Name: "tsv", Label: "a TSV file", Exts: []string{".tsv"}, text: true, Rule: "as CSV; named so, or tabs on the first line", match: delimited,
		Reader: "csv", Reads: reads("pd.read_csv", "pd.read_fwf"), Packed: true},
	{Name: "txt", Label: "a text file", Exts: []string{".txt"}, text: true, Rule: "as CSV; named so, or no comma, semicolon or tab on the first line", match: delimited,
		Reader: "csv", Reads: reads("pd.read_csv", "pd.read_fwf"), Packed: true},
	{Name: "json", Label: "a JSON file", Short: "JSON", Exts: []string{".json"}, text: true,
		Rule: "text whose first value opens with `{` or `[` and is the only one", match: func(p *probe) bool { return p.text().json },
		Reader: "json", Reads: reads("pd.read_json"), Packed: true},
	{Name: "jsonl", Label: "a JSON lines file", Exts: []string{".jsonl", ".ndjson"}, text: true,
		Rule: "text whose first line is a JSON object, and the next one opens another", match: func(p *probe) bool { return p.text().jsonLines },
		Reader: "json", Reads: reads("pd.read_json"), Packed: true},

	// Workbooks: zip containers told by the parts inside, OLE compound files
	// (old Office) by their streams.
	{Name: "xlsx", Label: "an Excel workbook", Short: "Excel", Exts: []string{".xlsx", ".xlsm"},
		Magic: []Magic{magic(0, zipMagic)}, Rule: "holding `xl/workbook.xml`", match: zipHolds("xl/workbook.xml"),
		Reader: "excel", Reads: reads("pd.read_excel"), Calls: []string{"ExcelFile"}},
	{Name: "ods", Label: "an OpenDocument spreadsheet", Short: "OpenDocument", Exts: []string{".ods"},
		Magic: []Magic{magic(0, zipMagic)}, Rule: "whose `mimetype` is an OpenDocument spreadsheet's", match: zipMime(odsMime),
		Reader: "excel", Reads: reads("pd.read_excel")},
	{Name: "office_encrypted", Label: "a password-protected Office file", Exts: nil,
		Magic: []Magic{magic(0, oleMagic)}, Rule: "holding an `EncryptedPackage` stream", match: oleHolds("EncryptedPackage", "EncryptionInfo"),
		Fix: "open it, remove the password (File > Info > Protect Workbook > Encrypt with Password, cleared), save and attach it again"},
	{Name: "xls", Label: "an old-style Excel workbook (.xls)", Exts: []string{".xls"},
		Magic: []Magic{magic(0, oleMagic)}, Rule: "holding a `Workbook` or `Book` stream", match: oleHolds("Workbook", "Book"),
		Reader: "excel", Reads: reads("pd.read_excel")},

	// Binary data files and databases.
	{Name: "parquet", Label: "a Parquet file", Short: "Parquet", Exts: []string{".parquet"},
		Magic: []Magic{magic(0, "PAR1")}, Reader: "parquet", Reads: reads("pd.read_parquet"), check: parquetFooter},
	{Name: "feather", Label: "a Feather or Arrow file", Short: "Feather/Arrow", Exts: []string{".feather", ".arrow", ".ipc"},
		Magic: []Magic{magic(0, "ARROW1"), magic(0, "FEA1")}, Reader: "feather", Reads: reads("pd.read_feather"), check: arrowFooter},
	{Name: "arrow_stream", Label: "an Arrow IPC stream", Exts: []string{".arrows"},
		Magic: []Magic{magic(0, "\xff\xff\xff\xff")}, Rule: "then a message length under 16 MiB",
		match: arrowStream, Reader: "arrow_stream"},
	{Name: "stata", Label: "a Stata data file", Short: "Stata", Exts: []string{".dta"},
		Magic: []Magic{magic(0, "<stata_dta>")}, Rule: "or, before release 117, a release byte 102–115, a byte order 1 or 2 and file type 1",
		match: stata, Reader: "stata", Reads: reads("pd.read_stata"), Calls: []string{"read_dta"}},
	{Name: "spss", Label: "an SPSS data file", Short: "SPSS", Exts: []string{".sav", ".zsav"},
		Magic: []Magic{magic(0, "$FL2"), magic(0, "$FL3")}, Reader: "spss", Reads: reads("pd.read_spss"), Calls: []string{"read_sav"}},
	{Name: "spss_portable", Label: "an SPSS portable file", Exts: []string{".por"},
		Rule: "`SPSSPORT` within its first 1 KiB", match: spssPortable,
		Reader: "spss", Reads: []Read{{Func: "pyreadstat.read_por", Suffix: "[0]"}}},
	{Name: "sas7bdat", Label: "a SAS data set", Short: "SAS", Exts: []string{".sas7bdat"},
		Magic:  []Magic{magic(0, "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xc2\xea\x81\x60\xb3\x14\x11\xcf\xbd\x92\x08\x00\x09\xc7\x31\x8c\x18\x1f\x10\x11")},
		Reader: "sas", Reads: []Read{{Func: "pyreadstat.read_sas7bdat", Suffix: "[0]"}}, Calls: []string{"read_sas"}},
	{Name: "xport", Label: "a SAS transport (XPORT) file", Exts: []string{".xpt"},
		Magic: []Magic{magic(0, "HEADER RECORD*******LIB")}, Reader: "sas", Reads: []Read{{Func: "pyreadstat.read_xport", Suffix: "[0]"}}},
	{Name: "sqlite", Label: "an SQLite database", Short: "SQLite", Exts: []string{".sqlite", ".sqlite3", ".db"},
		Magic: []Magic{magic(0, "SQLite format 3\x00")}, Reader: "sqlite", check: sqliteHeader},
	{Name: "duckdb", Label: "a DuckDB database", Short: "DuckDB", Exts: []string{".duckdb"},
		Magic: []Magic{magic(8, "DUCK")}, Reader: "duckdb"},

	// Kinds quarry does not read, named so a refusal says what the file is.
	{Name: "xlsb", Label: "an Excel binary workbook (.xlsb)", Exts: []string{".xlsb"},
		Magic: []Magic{magic(0, zipMagic)}, Rule: "holding `xl/workbook.bin`", match: zipHolds("xl/workbook.bin"),
		Fix: "open it in Excel and save it as .xlsx (File > Save As), then attach that"},
	{Name: "docx", Label: "a Word document", Exts: []string{".docx"},
		Magic: []Magic{magic(0, zipMagic)}, Rule: "holding `word/document.xml`", match: zipHolds("word/document.xml"),
		Fix: "copy its table into a spreadsheet, save that as .xlsx or CSV and attach it"},
	{Name: "pptx", Label: "a PowerPoint presentation", Exts: []string{".pptx"},
		Magic: []Magic{magic(0, zipMagic)}, Rule: "holding `ppt/presentation.xml`", match: zipHolds("ppt/presentation.xml"), Fix: fixNoTable},
	{Name: "odf", Label: "an OpenDocument text or presentation", Exts: []string{".odt", ".odp"},
		Magic: []Magic{magic(0, zipMagic)}, Rule: "whose `mimetype` is another OpenDocument's", match: zipMime("application/vnd.oasis.opendocument."),
		Fix: fixNoTable},
	{Name: "doc", Label: "an old-style Word document", Exts: []string{".doc"},
		Magic: []Magic{magic(0, oleMagic)}, Rule: "holding a `WordDocument` stream", match: oleHolds("WordDocument"),
		Fix: "copy its table into a spreadsheet, save that as .xlsx or CSV and attach it"},
	{Name: "msg", Label: "an Outlook message", Exts: []string{".msg"},
		Magic: []Magic{magic(0, oleMagic)}, Rule: "holding `__substg1.0_` streams", match: oleHoldsPrefix("__substg1.0_"),
		Fix: "save the attachment inside it and attach that"},
	{Name: "ole", Label: "an old Office document that is not a workbook", Exts: []string{".ppt"},
		Magic: []Magic{magic(0, oleMagic)}, Fix: fixExport, check: oleHeader},
	{Name: "access", Label: "a Microsoft Access database", Exts: []string{".mdb", ".accdb"},
		Magic: []Magic{magic(4, "Standard Jet DB"), magic(4, "Standard ACE DB")},
		Fix:   "export its tables as CSV (External Data > Export > Text File) and attach those"},
	{Name: "pdf", Label: "a PDF document", Exts: []string{".pdf"}, Magic: []Magic{magic(0, "%PDF")}, Fix: fixExport},
	{Name: "png", Label: "a PNG image", Exts: []string{".png"}, Magic: []Magic{magic(0, "\x89PNG")}, Fix: fixNoTable},
	{Name: "jpeg", Label: "a JPEG image", Exts: []string{".jpg", ".jpeg"}, Magic: []Magic{magic(0, "\xff\xd8\xff")}, Fix: fixNoTable},
	{Name: "gif", Label: "a GIF image", Exts: []string{".gif"}, Magic: []Magic{magic(0, "GIF8")}, Fix: fixNoTable},
	{Name: "elf", Label: "a program (ELF)", Magic: []Magic{magic(0, "\x7fELF")}, Fix: fixNoTable},
	{Name: "exe", Label: "a Windows program", Exts: []string{".exe", ".dll"}, Magic: []Magic{magic(0, "MZ")}, Fix: fixNoTable},
	{Name: "zstd", Label: "zstd-compressed data", Exts: []string{".zst"}, Magic: []Magic{magic(0, "\x28\xb5\x2f\xfd")},
		Fix: "unpack it (unzstd) and attach the file inside"},
	{Name: "rar", Label: "a RAR archive", Exts: []string{".rar"}, Magic: []Magic{magic(0, "Rar!")}, Fix: fixUnpack},
	{Name: "7z", Label: "a 7-Zip archive", Exts: []string{".7z"}, Magic: []Magic{magic(0, "7z\xbc\xaf\x27\x1c")}, Fix: fixUnpack},
	{Name: "tar", Label: "a tar archive", Exts: []string{".tar"}, Magic: []Magic{magic(257, "ustar")}, Fix: fixUnpack},
	{Name: "hdf5", Label: "an HDF5 file", Exts: []string{".h5", ".hdf5"}, Magic: []Magic{magic(0, "\x89HDF\r\n\x1a\n")},
		Calls: []string{"read_hdf"}, Fix: "save the table as Parquet or CSV (df.to_parquet) and attach that"},
	{Name: "orc", Label: "an ORC file", Exts: []string{".orc"}, Magic: []Magic{magic(0, "ORC")},
		Calls: []string{"read_orc"}, Fix: "convert it to Parquet and attach that"},
	{Name: "avro", Label: "an Avro file", Exts: []string{".avro"}, Magic: []Magic{magic(0, "Obj\x01")},
		Fix: "convert it to Parquet and attach that"},
	{Name: "pickle", Label: "a Python pickle", Exts: []string{".pkl", ".pickle"}, Rule: "a protocol byte 0x80 0x02–0x05 and a last byte `.`",
		match: pickle, Calls: []string{"read_pickle"},
		Fix: "a pickle can run code when loaded: save the DataFrame as Parquet (df.to_parquet) and attach that"},

	// Text quarry does not read as a table.
	{Name: "html", Label: "an HTML page", Exts: []string{".html", ".htm"}, text: true,
		Rule: "text opening with `<!doctype html`, `<html` or a `<table`", match: func(p *probe) bool { return p.text().html },
		Calls: []string{"read_html"},
		Fix:   "many systems export an HTML table with an .xls name: open it in Excel or LibreOffice, save it as .xlsx or CSV and attach that"},
	{Name: "xml_spreadsheet", Label: "an Excel 2003 XML spreadsheet", Exts: nil, text: true,
		Rule: "XML naming `urn:schemas-microsoft-com:office:spreadsheet`", match: func(p *probe) bool { return p.text().xmlSpreadsheet },
		Fix: "open it in Excel or LibreOffice, save it as .xlsx and attach that"},
	{Name: "xml", Label: "an XML document", Exts: []string{".xml"}, text: true,
		Rule: "text opening with `<?xml`", match: func(p *probe) bool { return p.text().xml },
		Calls: []string{"read_xml"}, Fix: "convert it to CSV (pd.read_xml reads it) and attach that"},
	{Name: "rtf", Label: "an RTF document", Exts: []string{".rtf"}, text: true,
		Rule: "text opening with `{\\rtf`", match: func(p *probe) bool { return p.text().rtf }, Fix: fixExport},
}

// Packing is how a text file may come compressed; pandas unpacks it while
// reading.
type Packing struct {
	Name  string // pandas' compression= name
	Label string // "gzip"
	Ext   string
	Magic string
}

// Packings are told by their magic at offset 0. A zip is a packing when it
// is not a document (a workbook, a Word file): a zip of one text file.
var Packings = []*Packing{
	{Name: "gzip", Label: "gzip", Ext: ".gz", Magic: "\x1f\x8b"},
	{Name: "bz2", Label: "bzip2", Ext: ".bz2", Magic: "BZh"},
	{Name: "xz", Label: "xz", Ext: ".xz", Magic: "\xfd7zXZ\x00"},
	{Name: "zip", Label: "zip", Ext: ".zip", Magic: zipMagic},
}

const (
	zipMagic = "PK\x03\x04"
	zipEmpty = "PK\x05\x06"
	oleMagic = "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
	odsMime  = "application/vnd.oasis.opendocument.spreadsheet"
)

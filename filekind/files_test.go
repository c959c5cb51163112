package filekind

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/ulikunitz/xz"
)

// Files the tests identify, made here with real writers (arrow-go for
// Parquet and Arrow, Go's own for gzip and zip) or laid out as their
// formats say (OLE, SQLite and DuckDB headers).

func record(t *testing.T) arrow.Record {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "region", Type: arrow.BinaryTypes.String}, {Name: "amount", Type: arrow.PrimitiveTypes.Float64}}, nil))
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"Nord", "Süd"}, nil)
	b.Field(1).(*array.Float64Builder).AppendValues([]float64{100.25, 200.5}, nil)
	return b.NewRecord()
}

// parquetFile is laid out as Parquet's: PAR1, the data, the metadata,
// its length and PAR1 again (the sandbox's tests read real ones, written
// by pyarrow).
func parquetFile(t *testing.T) []byte {
	t.Helper()
	meta := []byte("\x15\x02\x19\x2c\x48\x06schema\x15\x04\x00")
	b := append([]byte("PAR1"), bytes.Repeat([]byte{0x15, 0}, 40)...)
	b = append(b, meta...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(meta)))
	return append(b, "PAR1"...)
}

func arrowFile(t *testing.T) []byte {
	t.Helper()
	rec := record(t)
	defer rec.Release()
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(rec.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func arrowStreamFile(t *testing.T) []byte {
	t.Helper()
	rec := record(t)
	defer rec.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema()))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipOf(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func xzOf(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := xz.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// zipOf is a zip of the named parts, in order, each holding its content
// (a CSV table when the content is "").
func zipOf(t *testing.T, parts ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for i := 0; i < len(parts); i += 2 {
		f, err := w.Create(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		body := "a,b\n1,2\n"
		if i+1 < len(parts) && parts[i+1] != "" {
			body = parts[i+1]
		}
		f.Write([]byte(body))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func xlsxParts(t *testing.T) []byte {
	return zipOf(t, "[Content_Types].xml", "<Types/>", "_rels/.rels", "<Relationships/>",
		"xl/workbook.xml", "<workbook/>", "xl/worksheets/sheet1.xml", "<worksheet/>")
}

// oleOf is a compound file of 512-byte sectors: the header, a FAT sector
// and one directory sector holding the root and the named streams.
func oleOf(streams ...string) []byte {
	b := make([]byte, 512*3)
	copy(b, oleMagic)
	binary.LittleEndian.PutUint16(b[26:], 3)      // major version
	binary.LittleEndian.PutUint16(b[28:], 0xFFFE) // byte order
	binary.LittleEndian.PutUint16(b[30:], 9)      // 512-byte sectors
	binary.LittleEndian.PutUint32(b[44:], 1)      // one FAT sector
	binary.LittleEndian.PutUint32(b[48:], 1)      // the directory starts at sector 1
	for i := 0; i < 109; i++ {
		binary.LittleEndian.PutUint32(b[76+4*i:], 0xFFFFFFFF)
	}
	binary.LittleEndian.PutUint32(b[76:], 0) // the FAT is sector 0
	fat := b[512:1024]
	for i := 0; i < 128; i++ {
		binary.LittleEndian.PutUint32(fat[4*i:], 0xFFFFFFFF)
	}
	binary.LittleEndian.PutUint32(fat[0:], 0xFFFFFFFD)
	binary.LittleEndian.PutUint32(fat[4:], 0xFFFFFFFE)
	dir := b[1024:]
	for i, name := range append([]string{"Root Entry"}, streams...) {
		if i >= 4 {
			break
		}
		e := dir[128*i : 128*(i+1)]
		for j, r := range name {
			binary.LittleEndian.PutUint16(e[2*j:], uint16(r))
		}
		binary.LittleEndian.PutUint16(e[64:], uint16(2*len(name)+2))
		e[66] = 2
		if i == 0 {
			e[66] = 5
		}
	}
	return b
}

func sqliteFile() []byte { return append([]byte("SQLite format 3\x00"), make([]byte, 4080)...) }

func duckdbFile() []byte {
	b := make([]byte, 4096)
	copy(b[8:], "DUCK")
	return b
}

// corpus is a folder of ../shared/corpus; absent, the test skips, or fails
// in CI.
func corpus(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "corpus", name)
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus %s missing: %v", dir, err)
		}
		t.Skipf("corpus %s missing (%v): run beside ../shared", dir, err)
	}
	return dir
}

func write(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

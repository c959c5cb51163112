package sandbox_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// A German export: cp1252 text, ';', "1.234,56" amounts and day-first dotted
// dates, which thousands='.' alone would turn into integers (01.02.2024 →
// 1022024). The read_csv call built from the profile must get every column right.
func TestProfileEuropeanDottedDates(t *testing.T) {
	s := sharedSession(t)
	var b bytes.Buffer
	b.WriteString("Kunde;Betrag;Datum;Menge\n")
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, "Müller & Söhne %d;%d.%03d,%02d;%02d.%02d.2024;%d\n", i, 1+i, i*37%1000, i, 1+i%28, 1+i%12, i)
	}
	host := filepath.Join(t.TempDir(), "buchungen.csv")
	if err := os.WriteFile(host, toLatin1(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := s.AddFile(context.Background(), host)
	if err != nil {
		t.Fatal(err)
	}
	if p.Error != "" || p.Delimiter != ";" || p.Decimal != "," || p.Thousands != "." || p.Rows != 30 {
		t.Fatalf("profile %+v", p)
	}
	cols := map[string]kernel.Column{}
	for _, c := range p.Columns {
		cols[c.Name] = c
	}
	if cols["Betrag"].Dtype != "float64" || cols["Menge"].Dtype != "int64" ||
		cols["Datum"].Dtype != "datetime64[ns]" || cols["Datum"].DateFormat != "%d.%m.%Y" {
		t.Fatalf("columns %+v", p.Columns)
	}
	// The call the prompt suggests, from the profile's fields alone.
	code := fmt.Sprintf(`import pandas as pd
df = pd.read_csv(%q, sep=%q, decimal=%q, thousands=%q, encoding=%q, parse_dates=['Datum'], date_format={'Datum': %q})
(float(df['Betrag'].iloc[1]), str(df['Datum'].iloc[1].date()), df.dtypes.astype(str).tolist())`,
		p.Path, p.Delimiter, p.Decimal, p.Thousands, p.Encoding, cols["Datum"].DateFormat)
	res := cell(t, s, code)
	cellOK(t, res)
	want := "(2037.01, '2024-02-02', ['object', 'float64', 'datetime64[ns]', 'int64'])"
	if res.Value == nil || res.Value.Repr != want {
		t.Fatalf("got  %v\nwant %s", res.Value, want)
	}
}

// A number that contradicts the separator keeps it unset: thousands='.'
// would read "3.5" as 35.
func TestProfileThousandsNeedsConsistentNumbers(t *testing.T) {
	s := sharedSession(t)
	host := filepath.Join(t.TempDir(), "mixed.csv")
	os.WriteFile(host, []byte("a;b\n1.234,5;7,5\n2.345,0;3.5\n"), 0o644)
	p, err := s.AddFile(context.Background(), host)
	if err != nil {
		t.Fatal(err)
	}
	if p.Decimal != "," || p.Thousands != "" {
		t.Fatalf("profile %+v", p)
	}
	host = filepath.Join(t.TempDir(), "us.tsv")
	os.WriteFile(host, []byte("item\tprice\nx\t1,234.50\ny\t12,000.25\n"), 0o644)
	if p, err = s.AddFile(context.Background(), host); err != nil {
		t.Fatal(err)
	}
	if p.Decimal != "." || p.Thousands != "," || p.Columns[1].Dtype != "float64" {
		t.Fatalf("profile %+v", p)
	}
}

// A file above the sampling threshold is profiled from its first rows and
// the profile says so; the row count is the line count.
func TestProfileSampledFileCarriesNote(t *testing.T) {
	s := sharedSession(t)
	defer sandbox.SetProfileSampling(64<<10, 1000)()
	var b bytes.Buffer
	b.WriteString("id,value\n")
	for i := 0; b.Len() < 200<<10; i++ {
		fmt.Fprintf(&b, "%d,%d.5\n", i, i)
	}
	lines := strings.Count(b.String(), "\n") - 1
	host := filepath.Join(t.TempDir(), "big.csv")
	os.WriteFile(host, b.Bytes(), 0o644)
	p, err := s.AddFile(context.Background(), host)
	if err != nil {
		t.Fatal(err)
	}
	if p.Error != "" || p.Rows != lines || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "first 1000 rows") ||
		!strings.Contains(p.Notes[0], "estimate") {
		t.Fatalf("rows %d (want %d), notes %q, error %q", p.Rows, lines, p.Notes, p.Error)
	}
	// The model reads the size in the unit the host writes everywhere else.
	if size := kernel.FormatSize(int64(b.Len())); !strings.Contains(p.Notes[0], "the file is "+size+",") {
		t.Errorf("note %q does not give the size as %s", p.Notes[0], size)
	}
	// Below the threshold: no note.
	small := filepath.Join(t.TempDir(), "small.csv")
	os.WriteFile(small, []byte("id,value\n1,2.5\n"), 0o644)
	if p, err = s.AddFile(context.Background(), small); err != nil || len(p.Notes) != 0 || p.Rows != 1 {
		t.Fatalf("small profile %+v, %v", p, err)
	}
}

// cp1252 is guessed from the first 256 KB; a byte it leaves undefined (0x81)
// further down must not fail the profile: latin-1 reads every byte.
func TestProfileFallsBackToLatin1(t *testing.T) {
	s := sharedSession(t)
	var b bytes.Buffer
	b.WriteString("Ort;Wert\n")
	for b.Len() < 300<<10 {
		b.WriteString("K\xf6ln;1,5\n")
	}
	b.WriteString("X\x81Y;2,5\n")
	host := filepath.Join(t.TempDir(), "late.csv")
	os.WriteFile(host, b.Bytes(), 0o644)
	p, err := s.AddFile(context.Background(), host)
	if err != nil {
		t.Fatal(err)
	}
	if p.Error != "" || p.Encoding != "latin-1" || len(p.Columns) != 2 || p.Columns[1].Dtype != "float64" {
		t.Fatalf("profile %+v", p.Columns)
	}
}

// A file whose DataFrame would take more than half of the sandbox's memory
// is flagged large, with the estimate and the limit; a small one is not.
func TestProfileFlagsLargeFile(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{Limits: sandbox.Limits{Memory: 384 << 20}})
	var b bytes.Buffer
	b.WriteString("posting_date,document_no,vendor,description,amount\n")
	for i := 0; b.Len() < 80<<20; i++ {
		fmt.Fprintf(&b, "2024-%02d-%02d,DOC%09d,Vendor %d GmbH,Invoice %d for services,%d.%02d\n", i%12+1, i%28+1, i, i%500, i, i%9000, i%100)
	}
	host := filepath.Join(t.TempDir(), "ledger.csv")
	if err := os.WriteFile(host, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := s.AddFile(context.Background(), host)
	if err != nil {
		t.Fatal(err)
	}
	if p.Error != "" || !p.Large || p.MemoryLimit != 384<<20 || p.MemoryEstimate <= p.MemoryLimit/2 ||
		len(p.Notes) == 0 || !strings.HasPrefix(p.Notes[0], "large:") {
		t.Fatalf("large %v, estimate %d, limit %d, notes %q, error %q", p.Large, p.MemoryEstimate, p.MemoryLimit, p.Notes, p.Error)
	}
	small := filepath.Join(t.TempDir(), "small.csv")
	os.WriteFile(small, []byte("a,b\n1,2\n"), 0o644)
	if p, err = s.AddFile(context.Background(), small); err != nil || p.Large || p.MemoryEstimate <= 0 {
		t.Fatalf("small file: large %v, estimate %d, err %v", p.Large, p.MemoryEstimate, err)
	}
}

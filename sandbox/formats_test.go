package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
)

// formatTable is the table every generated format file holds: 5 rows whose
// amounts add up to 1234.5, a date column and text with non-ASCII letters.
const formatTable = `import pandas as pd, datetime
df = pd.DataFrame({'region': ['Nord', 'Süd', 'Ost', 'West', 'Mitte'],
                   'amount': [100.25, 200.5, 300.75, 400.0, 233.0],
                   'booked': pd.to_datetime(['2024-01-31', '2024-02-29', '2024-03-31', '2024-04-30', '2024-05-31'])})
`

// makeInSandbox writes files with the image's own libraries into /output
// and returns their host paths, by name: Go cannot write Parquet or Stata.
func makeInSandbox(t *testing.T, s *sandbox.Session, code string) map[string]string {
	t.Helper()
	res := cell(t, s, code)
	cellOK(t, res)
	out := map[string]string{}
	for _, f := range res.Files {
		out[f.Name] = f.Path
	}
	return out
}

// loadWithProfile attaches path, checks the profile and runs its read call,
// returning the probe's value: rows, columns and the sum of column sumCol.
func loadWithProfile(t *testing.T, s *sandbox.Session, path, kind, sumCol string) (kernel.Profile, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := s.AddFile(ctx, path)
	if err != nil {
		t.Fatalf("attach %s: %v", path, err)
	}
	if p.Error != "" || p.Kind != kind {
		t.Fatalf("%s: kind %q (want %q), error %q", filepath.Base(path), p.Kind, kind, p.Error)
	}
	call := p.Read.Python(p.Path)
	if call == "" {
		t.Fatalf("%s: no read call in %+v", filepath.Base(path), p)
	}
	res := cell(t, s, "_df = "+call+"\n(len(_df), _df.shape[1], round(float(_df["+kernel.PyString(sumCol)+"].sum()), 4))")
	cellOK(t, res)
	return p, res.Value.Repr
}

// Each format the image can write is made by the test, attached, profiled
// and loaded with the profile's read call.
func TestFormatsMadeInSandbox(t *testing.T) {
	s := sharedSession(t)
	files := makeInSandbox(t, s, formatTable+`import pyreadstat, os
os.makedirs('/output/fmt', exist_ok=True)
df.to_parquet('/output/fmt/sales.parquet')
df.to_feather('/output/fmt/sales.feather')
df.to_json('/output/fmt/sales.jsonl', orient='records', lines=True, date_format='iso')
df.to_json('/output/fmt/sales.json', orient='records', date_format='iso')
df.to_stata('/output/fmt/sales.dta', write_index=False)
pyreadstat.write_sav(df, '/output/fmt/sales.sav')
pyreadstat.write_sav(df, '/output/fmt/sales.zsav', compress=True)
with pd.ExcelWriter('/output/fmt/sales.ods', engine='odf') as w:
    df.to_excel(w, sheet_name='Umsatz', index=False)
    df.head(2).to_excel(w, sheet_name='Kurz', index=False)
for ext in ('gz', 'bz2', 'xz'):
    df.to_csv('/output/fmt/sales.csv.' + ext, index=False, sep=';', decimal=',')
df.to_csv('/output/fmt/sales_zip.zip', index=False, compression={'method': 'zip', 'archive_name': 'sales.csv'})
df.to_json('/output/fmt/sales.jsonl.gz', orient='records', lines=True, date_format='iso')
`)
	cases := []struct{ name, kind string }{
		{"fmt/sales.parquet", "parquet"}, {"fmt/sales.feather", "feather"},
		{"fmt/sales.jsonl", "json"}, {"fmt/sales.json", "json"}, {"fmt/sales.jsonl.gz", "json"},
		{"fmt/sales.dta", "stata"}, {"fmt/sales.sav", "spss"}, {"fmt/sales.zsav", "spss"},
		{"fmt/sales.ods", "excel"},
		{"fmt/sales.csv.gz", "csv"}, {"fmt/sales.csv.bz2", "csv"}, {"fmt/sales.csv.xz", "csv"}, {"fmt/sales_zip.zip", "csv"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			host, ok := files[c.name]
			if !ok {
				t.Fatalf("%s was not made: %v", c.name, files)
			}
			p, got := loadWithProfile(t, s, host, c.kind, "amount")
			if got != "(5, 3, 1234.5)" || p.Rows != 5 {
				t.Errorf("%s: read call %s gives %s, profile rows %d", c.name, p.Read.Python(p.Path), got, p.Rows)
			}
		})
	}
}

// The statistical-package files from pyreadstat's own tests, each holding
// the table in sample.csv (mynum sums to 0.9); and legacy .xls.
func TestFormatsFromCorpus(t *testing.T) {
	dir := sharedCorpus(t, "formats")
	s := sharedSession(t)
	cases := []struct{ file, kind, col string }{
		{"sample.dta", "stata", "mynum"}, {"sample.sav", "spss", "mynum"}, {"sample.zsav", "spss", "mynum"},
		{"sample.por", "spss", "MYNUM"}, {"sample.sas7bdat", "sas", "mynum"},
		{"sample_bincompressed.sas7bdat", "sas", "mynum"}, {"sample.xpt", "sas", "MYNUM"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			p, got := loadWithProfile(t, s, filepath.Join(dir, c.file), c.kind, c.col)
			if got != "(5, 7, 0.9)" || p.Rows != 5 {
				t.Errorf("%s: read call %s gives %s, profile rows %d", c.file, p.Read.Python(p.Path), got, p.Rows)
			}
		})
	}
	xls := filepath.Join(sharedCorpus(t, "csv"), "files", "mt_simple.xls")
	p, got := loadWithProfile(t, s, xls, "excel", "temperature")
	if got != "(6, 3, 19.0)" || p.Rows != 6 || len(p.Sheets) != 1 {
		t.Errorf("xls: read call %s gives %s, profile %+v", p.Read.Python(p.Path), got, p)
	}
}

// Files that pass the attach check by name but cannot be read get a profile
// error saying so; the file stays attached and the session goes on.
func TestFormatsBrokenInsideGetProfileErrors(t *testing.T) {
	s := sharedSession(t)
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct{ path, want string }{
		{write("cut.csv.gz", []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 'x'}), "damaged or incomplete"},
		{write("bad.parquet", []byte("PAR1not-thrift-metadata\x08\x00\x00\x00PAR1")), "damaged or incomplete"},
		{write("bad.sav", []byte("$FL2 and then nothing a reader can use")), "could not be read"},
	}
	for _, c := range cases {
		p, err := s.AddFile(context.Background(), c.path)
		if err != nil {
			t.Fatalf("attach %s: %v", c.path, err)
		}
		if !strings.Contains(p.Error, c.want) || p.Read != nil {
			t.Errorf("%s: profile error %q, want %q and no read call", filepath.Base(c.path), p.Error, c.want)
		}
	}
	cellOK(t, cell(t, s, "1 + 1"))
}

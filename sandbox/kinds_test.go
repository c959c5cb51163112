package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/filekind"
	"github.com/quarry-cli/quarry/kernel"
)

// The kernel's readers are the table's: a row whose reader the kernel
// lacks, or a reader no row names, fails here. The kernel reports the
// names it registered (READERS in profile/front.py) when it is ready.
func TestKernelReadersMatchTable(t *testing.T) {
	s := sharedSession(t)
	kernel := slices.Sorted(slices.Values(s.KernelReaders()))
	var table []string
	for _, k := range filekind.Kinds {
		if k.Reader != "" && !slices.Contains(table, k.Reader) {
			table = append(table, k.Reader)
		}
	}
	slices.Sort(table)
	if !slices.Equal(kernel, table) {
		t.Fatalf("the kernel has profile readers %v, the table of file kinds (filekind/kinds.go) names %v: add the missing reader or row", kernel, table)
	}
}

// A file whose name says another kind is read as what it is: each real
// file, made by the image's own writers, is attached under a wrong name
// (another kind's, one quarry does not know, none), profiled by its
// content's reader, and its read call loads the table; the profile's note
// names both kinds.
func TestProfileByContentNotName(t *testing.T) {
	s := sharedSession(t)
	files := makeInSandbox(t, s, formatTable+`import os, sqlite3, gzip, zipfile, pyreadstat
import pyarrow as pa
o = '/output/kinds/'
os.makedirs(o, exist_ok=True)
df.to_parquet(o + 'sales.parquet')
df.to_feather(o + 'sales.feather')
df.to_stata(o + 'sales.dta', write_index=False)
pyreadstat.write_sav(df, o + 'sales.sav')
df.to_json(o + 'sales.json', orient='records', date_format='iso')
df.to_json(o + 'sales.jsonl', orient='records', lines=True, date_format='iso')
with pd.ExcelWriter(o + 'sales.xlsx', engine='openpyxl') as w:
    df.to_excel(w, sheet_name='data', index=False)
with pd.ExcelWriter(o + 'sales.ods', engine='odf') as w:
    df.to_excel(w, sheet_name='data', index=False)
with gzip.open(o + 'sales.csv.gz', 'wt') as f:
    f.write(df.to_csv(index=False))
with zipfile.ZipFile(o + 'sales.zip', 'w') as z:
    z.writestr('sales.csv', df.to_csv(index=False))
df.to_csv(o + 'sales.csv', index=False)
con = sqlite3.connect(o + 'sales.sqlite')
df.to_sql('sales', con, index=False)
con.close()
t = pa.Table.from_pandas(df, preserve_index=False)
with pa.ipc.new_stream(o + 'sales.arrows', t.schema) as w:
    w.write_table(t)
sql("ATTACH '" + o + "sales.duckdb' AS w; CREATE TABLE w.sales AS SELECT * FROM (VALUES ('Nord', 100.25), "
    "('Süd', 200.5), ('Ost', 300.75), ('West', 400.0), ('Mitte', 233.0)) t(region, amount); DETACH w")
`)
	xls := filepath.Join(sharedCorpus(t, "csv"), "files", "mt_simple.xls")
	dir := t.TempDir()
	cases := []struct {
		made, as, reader, note string
	}{
		{"kinds/sales.parquet", "kinds_parquet.csv", "parquet", "named .csv, but it is a Parquet file"},
		{"kinds/sales.feather", "kinds_feather.parquet", "feather", "named .parquet, but it is a Feather or Arrow file"},
		{"kinds/sales.dta", "kinds_stata.sav", "stata", "named .sav, but it is a Stata data file"},
		{"kinds/sales.sav", "kinds_spss.dta", "spss", "named .dta, but it is an SPSS data file"},
		{"kinds/sales.json", "kinds_json.csv", "json", "named .csv, but it is a JSON file"},
		{"kinds/sales.jsonl", "kinds_jsonl.txt", "json", "named .txt, but it is a JSON lines file"},
		{"kinds/sales.xlsx", "kinds_xlsx.zip", "excel", "named .zip, but it is an Excel workbook"},
		{"kinds/sales.ods", "kinds_ods.xlsx", "excel", ""},
		{"kinds/sales.csv.gz", "kinds_gzip.csv", "csv", "named .csv, but it is compressed with gzip"},
		{"kinds/sales.zip", "kinds_zipped.xlsx", "csv", "named .xlsx, but it is a CSV file compressed with zip"},
		{"kinds/sales.csv", "kinds_text.parquet", "csv", "named .parquet, but it is a CSV file"},
		{"kinds/sales.csv", "kinds_text.dat", "csv", "named .dat, a kind quarry does not know: read by its content, a CSV file"},
		{"kinds/sales.parquet", "kinds_parquet", "parquet", ""},
		{"kinds/sales.sqlite", "kinds_sqlite.bin", "sqlite", "named .bin, a kind quarry does not know: read by its content, an SQLite database"},
		{"kinds/sales.sqlite", "kinds_sqlite.csv", "sqlite", "named .csv, but it is an SQLite database"},
		{"kinds/sales.duckdb", "kinds_duck.db", "duckdb", "named .db, but it is a DuckDB database"},
		{"kinds/sales.sqlite", "kinds_sqlite.duckdb", "sqlite", "named .duckdb, but it is an SQLite database"},
		{"kinds/sales.arrows", "kinds_stream.arrow", "arrow_stream", "named .arrow, but it is an Arrow IPC stream"},
		{xls, "kinds_xls.csv", "excel", "named .csv, but it is an old-style Excel workbook (.xls)"},
	}
	for _, c := range cases {
		t.Run(c.as, func(t *testing.T) {
			src, ok := files[c.made]
			if !ok {
				src = c.made
			}
			data, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, c.as)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			p, err := s.AddFile(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if p.Error != "" || p.Kind != c.reader || p.KindNote != c.note {
				t.Fatalf("kind %q note %q error %q; want %q %q", p.Kind, p.KindNote, p.Error, c.reader, c.note)
			}
			load := p.Read.Python(p.Path)
			switch c.reader {
			case "sqlite":
				load = "import sqlite3\n_df = pd.read_sql_query('SELECT * FROM sales', sqlite3.connect('file:' + " + kernel.PyString(p.Path) + " + '?immutable=1', uri=True))"
				if len(p.Sheets) != 1 || p.Sheets[0].Name != "sales" || p.Sheets[0].Rows != 5 {
					t.Errorf("sheets %+v, want the table sales of 5 rows", p.Sheets)
				}
			case "duckdb":
				load = "_df = sql('SELECT * FROM sales', db='kinds_duck')"
				if len(p.Sheets) != 1 || p.Sheets[0].Name != "sales" || p.Sheets[0].Rows != 5 {
					t.Errorf("sheets %+v, want the table sales of 5 rows", p.Sheets)
				}
			case "arrow_stream":
				if load != "" || len(p.Notes) == 0 || !strings.Contains(p.Notes[0], "pa.ipc.open_stream(") {
					t.Fatalf("read call %q, notes %q: want pyarrow's line in a note", load, p.Notes)
				}
				load = "import pyarrow as pa\n_df = pa.ipc.open_stream(" + kernel.PyString(p.Path) + ").read_pandas()"
			default:
				if load == "" {
					t.Fatalf("no read call: %+v", p)
				}
				load = "_df = " + load
			}
			col, want, rows := "amount", "(5, 1234.5)", 5 // formatTable's
			if c.made == xls {
				col, want, rows = "temperature", "(6, 19.0)", 6
			}
			res := cell(t, s, load+"\n(len(_df), round(float(_df["+kernel.PyString(col)+"].sum()), 4))")
			cellOK(t, res)
			if res.Value.Repr != want || p.Rows != rows {
				t.Errorf("%s gives %s (profile rows %d), want %s", load, res.Value.Repr, p.Rows, want)
			}
		})
	}
}

// A file of a kind quarry does not read (a notebook's code may open it as
// it likes) is copied in all the same, with a profile error naming both
// kinds and no read call; the kernel is not asked to profile it.
func TestAddFileOfARefusedKind(t *testing.T) {
	s := sharedSession(t)
	path := filepath.Join(t.TempDir(), "kinds_report.csv")
	if err := os.WriteFile(path, []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := s.AddFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Error, "kinds_report.csv is a PDF document, not a CSV file") || p.Read != nil || strings.Contains(p.Error, filepath.Dir(path)) {
		t.Fatalf("profile %+v: want the error to name both kinds, and not the host's folder", p)
	}
	res := cell(t, s, "open('/data/kinds_report.csv', 'rb').read(4)")
	cellOK(t, res)
	if res.Value.Repr != "b'%PDF'" {
		t.Errorf("the file in /data starts with %s", res.Value.Repr)
	}
}

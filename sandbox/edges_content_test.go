package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
)

// profileText attaches text as a file named name and returns its profile.
func profileText(t *testing.T, name, text string) kernel.Profile {
	t.Helper()
	s := sharedSession(t)
	host := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(host, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := s.AddFile(ctx, host)
	if err != nil {
		t.Fatal(err)
	}
	if p.Error != "" || p.Read.Python(p.Path) == "" {
		t.Fatalf("%s: profile error %q, read %+v", name, p.Error, p.Read)
	}
	return p
}

// readBack runs the profile's read call and then probe on _df.
func readBack(t *testing.T, p kernel.Profile, probe string) string {
	t.Helper()
	res := cell(t, sharedSession(t), "_df = "+p.Read.Python(p.Path)+"\n"+probe)
	cellOK(t, res)
	return res.Value.Repr
}

// Files without an extension are read by their content: binary formats by
// their magic numbers, compressed text by what it unpacks to, text as a
// table with its delimiter sniffed. Each profile's read call must load the
// table it describes.
func TestProfileFilesWithoutExtension(t *testing.T) {
	s := sharedSession(t)
	files := makeInSandbox(t, s, formatTable+`import os, gzip, sqlite3
os.makedirs('/output/noext', exist_ok=True)
o = '/output/noext/'
df.to_parquet(o + 'parquet')
df.to_feather(o + 'arrow')
df.to_stata(o + 'stata', write_index=False)
with pd.ExcelWriter(o + 'workbook', engine='openpyxl') as w:
    df.to_excel(w, sheet_name='data', index=False)
    df.head(1).to_excel(w, sheet_name='old', index=False)
    w.book['old'].sheet_state = 'hidden'
with gzip.open(o + 'gzipped', 'wt') as f:
    f.write(df.to_csv(index=False, sep=';'))
with gzip.open(o + 'events', 'wt') as f:
    f.write(df.to_json(orient='records', lines=True, date_format='iso'))
with open(o + 'export.2024', 'w') as f:
    f.write(df.to_csv(index=False, sep='|'))
`)
	cases := []struct{ name, kind string }{
		{"noext/parquet", "parquet"}, {"noext/arrow", "feather"}, {"noext/stata", "stata"},
		{"noext/workbook", "excel"}, {"noext/gzipped", "csv"}, {"noext/events", "json"}, {"noext/export.2024", "csv"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, got := loadWithProfile(t, s, files[c.name], c.kind, "amount")
			if got != "(5, 3, 1234.5)" || p.Rows != 5 {
				t.Errorf("read call %s gives %s, profile rows %d", p.Read.Python(p.Path), got, p.Rows)
			}
			if c.kind == "excel" && (len(p.Sheets) != 2 || p.Sheets[1].State != "hidden") {
				t.Errorf("sheets %+v: want the hidden one flagged", p.Sheets)
			}
		})
	}
}

// A space-aligned report without an extension (popcon's format): comment
// lines above a commented header, names with spaces in the last column,
// a rule line under the table. It reads as a table of 8 columns.
func TestProfileAlignedTextWithoutExtension(t *testing.T) {
	s := sharedSession(t)
	var b strings.Builder
	b.WriteString("#Format\n#\n#<name> is the package name;\n#<inst> is the number of people who installed this package;\n#\n")
	b.WriteString("#rank name                            inst  vote   old recent no-files (maintainer)\n")
	maint := []string{"(Dpkg Developers)", "(Debian QA Group)", "(Debian Install System Team)"}
	inst := 0
	for i := 0; i < 120; i++ {
		n := 198813 - i*1500
		inst += n
		b.WriteString(padRight(itoa(i+1), 5) + " " + padRight("package-"+itoa(i*7), 30) + " " + padLeft(itoa(n), 6) + " " +
			padLeft(itoa(n/2), 6) + " " + padLeft(itoa(i*3), 5) + " " + padLeft(itoa(i), 5) + " " + padLeft(itoa(i%9), 5) +
			" " + maint[i%3] + "\n")
	}
	b.WriteString(strings.Repeat("-", 100) + "\n")
	host := filepath.Join(t.TempDir(), "popcon")
	if err := os.WriteFile(host, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := s.AddFile(ctx, host)
	if err != nil {
		t.Fatal(err)
	}
	call := p.Read.Python(p.Path)
	if p.Error != "" || call == "" || p.Kind != "csv" || p.Rows != 120 || len(p.Columns) != 8 {
		t.Fatalf("profile %+v", p)
	}
	res := cell(t, s, "_df = "+call+"\n(_df.shape, list(_df.columns[:3]), int(_df['inst'].sum()), _df.iloc[2, 7], int(_df.iloc[119, 0]))")
	cellOK(t, res)
	want := "((120, 8), ['#rank', 'name', 'inst'], " + itoa(inst) + ", '(Debian Install System Team)', 120)"
	if res.Value.Repr != want {
		t.Errorf("%s\n got  %s\n want %s", call, res.Value.Repr, want)
	}
}

// An SQLite database without an extension: each table is listed with its
// row count and columns, and the profile says how to read it.
func TestProfileSQLiteByContent(t *testing.T) {
	s := sharedSession(t)
	files := makeInSandbox(t, s, formatTable+`import os, sqlite3
os.makedirs('/output/sqlite', exist_ok=True)
con = sqlite3.connect('/output/sqlite/shop')
df.to_sql('sales', con, index=False)
pd.DataFrame({'sku': range(40), 'name': ['item %d' % i for i in range(40)]}).to_sql('items', con, index=False)
con.close()
`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := s.AddFile(ctx, files["sqlite/shop"])
	if err != nil {
		t.Fatal(err)
	}
	if p.Error != "" || p.Kind != "sqlite" || len(p.Sheets) != 2 || p.Sheets[0].Name != "sales" || p.Sheets[0].Rows != 5 ||
		p.Sheets[1].Rows != 40 || len(p.Sheets[1].Columns) != 2 || len(p.Notes) == 0 {
		t.Fatalf("profile %+v", p)
	}
	// The profile's own lines, run as given.
	connect := p.Notes[0][strings.Index(p.Notes[0], "import sqlite3"):strings.Index(p.Notes[0], "; then")]
	read := strings.TrimPrefix(p.Sheets[0].Notes[0], "read with: ")
	res := cell(t, s, connect+"\n_df = "+read+"\n(_df.shape, round(float(_df['amount'].sum()), 4))")
	cellOK(t, res)
	if res.Value.Repr != "((5, 3), 1234.5)" {
		t.Errorf("%s; %s gives %s", connect, read, res.Value.Repr)
	}
}

func itoa(n int) string {
	neg := n < 0
	if neg {
		n = -n
	}
	b := []byte{}
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			break
		}
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

func padRight(s string, n int) string { return s + strings.Repeat(" ", max(0, n-len(s))) }
func padLeft(s string, n int) string  { return strings.Repeat(" ", max(0, n-len(s))) + s }

// A log with one blank between fields of varying width, times and dashes
// inside them, reads as its columns with sep=r'\s+'.
func TestProfileSpaceSeparatedLog(t *testing.T) {
	var b strings.Builder
	b.WriteString("time host status bytes\n")
	total := 0
	for i := 0; i < 50; i++ {
		n := i * i * 37
		total += n
		b.WriteString("12:" + itoa(i) + ":00 web-" + itoa(i*7) + " " + itoa(200+i%2*204) + " " + itoa(n) + "\n")
	}
	p := profileText(t, "access", b.String())
	if p.Delimiter != `\s+` || len(p.Columns) != 4 || p.Rows != 50 {
		t.Fatalf("delimiter %q, %d columns, %d rows", p.Delimiter, len(p.Columns), p.Rows)
	}
	if got, want := readBack(t, p, "(list(_df.columns), _df.iloc[7, 1], int(_df['bytes'].sum()))"),
		"(['time', 'host', 'status', 'bytes'], 'web-49', "+itoa(total)+")"; got != want {
		t.Errorf("%s\n got  %s\n want %s", p.Read.Python(p.Path), got, want)
	}
}

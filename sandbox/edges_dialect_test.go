package sandbox_test

import (
	"context"
	"fmt"
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

// Values full of '-', '/', ':' and '.' (dates, times, IDs, versions, IP
// addresses) must not be taken for the delimiter: the one that separates
// fields consistently, once quotes and skipinitialspace are respected, wins.
func TestProfileDialectPunctuationInsideValues(t *testing.T) {
	gen := func(header string, row func(i int) string) string {
		var b strings.Builder
		b.WriteString(header + "\n")
		for i := 0; i < 40; i++ {
			b.WriteString(row(i) + "\n")
		}
		return b.String()
	}
	cases := []struct {
		name, text, delim string
		cols              int
		probe, want       string
	}{
		{"iso-dates-comma-space.csv", gen(`"Date", "Account", "Description", "Amount", "Currency"`, func(i int) string {
			return fmt.Sprintf(`2024-03-%02d, %d, "Sales, domestic", "12,%03d.00", EUR`, i%28+1, 4400+i%3, i)
		}), ",", 5, "(_df.iloc[3, 2], float(_df['Amount'].sum()), str(_df['Currency'].iloc[0]))",
			fmt.Sprintf("('Sales, domestic', %.1f, 'EUR')", 40*12000.0+780)},
		{"slashed-dates-times.csv", gen(`"When", "At", "Host", "Value"`, func(i int) string {
			return fmt.Sprintf(`03/%02d/2024, 12:%02d:33, "srv-%d.example.org", "1,%03d.5"`, i%28+1, i, i, i)
		}), ",", 4, "(_df.iloc[1, 2], float(_df['Value'].sum()))", fmt.Sprintf("('srv-1.example.org', %.1f)", 40*1000.5+780)},
		{"ids-and-times.txt", gen("id;started;version;ip;ms", func(i int) string {
			return fmt.Sprintf("AB-%d-%03d/7;2024-01-01T10:%02d:00.250;1.%d.3;10.0.%d.%d;%d", i, i, i, i, i%7, i, i*10)
		}), ";", 5, "(_df.iloc[2, 0], int(_df['ms'].sum()))", "('AB-2-002/7', 7800)"},
		{"times-tab.tsv", gen("from\tto\tlabel", func(i int) string {
			return fmt.Sprintf("08:%02d:00\t17:%02d:30\tshift-%d/a", i, i, i)
		}), "\t", 3, "(_df.iloc[5, 2], _df.shape)", "('shift-5/a', (40, 3))"},
		// No header to tell the widths apart: '-', ':' and '.' split every
		// line into as many fields as ',' does.
		{"headerless-dates.csv", gen("2024-02-29,7", func(i int) string { return fmt.Sprintf("2024-03-%02d,%d", i%28+1, i) }),
			",", 2, "(_df.shape, int(_df[1].sum()))", "((41, 2), 787)"}, // 7 + 0 + … + 39
		{"headerless-times.csv", gen("11:59:00,7", func(i int) string { return fmt.Sprintf("12:%02d:00,%d", i, i) }),
			",", 2, "(_df.shape, int(_df[1].sum()))", "((41, 2), 787)"},
		{"headerless-dotted-dates.csv", gen("29.02.2024,7", func(i int) string { return fmt.Sprintf("%02d.03.2024,%d", i%28+1, i) }),
			",", 2, "(_df.shape, int(_df[1].sum()))", "((41, 2), 787)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := profileText(t, c.name, c.text)
			rows := 40
			if strings.HasPrefix(c.name, "headerless") {
				rows = 41
			}
			if p.Delimiter != c.delim || len(p.Columns) != c.cols || p.Rows != rows {
				t.Fatalf("delimiter %q (want %q), %d columns (want %d), %d rows; read %s", p.Delimiter, c.delim,
					len(p.Columns), c.cols, p.Rows, p.Read.Python(p.Path))
			}
			if got := readBack(t, p, c.probe); got != c.want {
				t.Errorf("%s\n got  %s\n want %s", p.Read.Python(p.Path), got, c.want)
			}
		})
	}
}

// '#' comment lines above the header and between groups of rows, some
// holding the delimiter: the header is the real one and no row is lost.
func TestProfileCommentLines(t *testing.T) {
	rows := func(from, n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "%d,Region %c,%d.5,2024-01-%02d\n", from+i, 'A'+i%3, i*10, i+1)
		}
		return b.String()
	}
	cases := []struct {
		name, text string
		rows       int
		probe      string
		want       string
	}{
		{"comments-with-commas.csv", "# exported by LedgerTool 4.2, build 17\n# period: 2024-01-01 to 2024-01-31, all, regions, here\n#\n" +
			"id,region,amount,day\n" + rows(0, 10) + "# group B, second half, of, the, month\n" + rows(100, 10) + "\n# group C\n" + rows(200, 5),
			25, "(list(_df.columns), int(_df['id'].sum()), _df['amount'].dtype.name)",
			"(['id', 'region', 'amount', 'day'], 2100, 'float64')"}, // ids 0-9, 100-109, 200-204
		{"hash-codes-in-data.csv", "id;tag;v\n" + strings.Repeat("1;#7;2\n", 10) + "# a comment; with; semicolons\n" + strings.Repeat("3;#9;4\n", 10),
			20, "(list(_df.columns), int(_df['v'].sum()), _df['tag'].iloc[0])", "(['id', 'tag', 'v'], 60, '#7')"},
		{"commented-header.csv", "#id,region,amount,day\n" + rows(0, 12), 12,
			"(list(_df.columns), int(_df['#id'].sum()))", "(['#id', 'region', 'amount', 'day'], 66)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := profileText(t, c.name, c.text)
			if p.Rows != c.rows {
				t.Errorf("profile rows %d, want %d", p.Rows, c.rows)
			}
			if got := readBack(t, p, c.probe); got != c.want {
				t.Errorf("%s\n got  %s\n want %s\n notes %q", p.Read.Python(p.Path), got, c.want, p.Notes)
			}
		})
	}
}

// Two years beside a name are column labels ('Region, 2023, 2024'), in a
// CSV and in a sheet; years over columns of years are data.
func TestProfileYearHeaders(t *testing.T) {
	regions := "Region,2023,2024\nNorth,100,200\nSouth,101,201\nEast,102,202\nWest,103,203\n"
	p := profileText(t, "regions.csv", regions)
	if p.HeaderRow != 0 || p.Rows != 4 {
		t.Errorf("regions: header row %d, %d rows", p.HeaderRow, p.Rows)
	}
	if got := readBack(t, p, "(list(_df.columns), int(_df['2024'].sum()))"); got != "(['Region', '2023', '2024'], 806)" {
		t.Errorf("regions: %s", got)
	}
	p = profileText(t, "composers.csv", "Bach,1685,1750\nMozart,1756,1791\nHaydn,1732,1809\nBrahms,1833,1897\n")
	if p.HeaderRow != -1 || p.Rows != 4 {
		t.Errorf("composers: header row %d, %d rows: years over years are data", p.HeaderRow, p.Rows)
	}
	s := sharedSession(t)
	files := makeInSandbox(t, s, `import os, openpyxl
os.makedirs('/output/years', exist_ok=True)
wb = openpyxl.Workbook()
ws = wb.active
ws['A1'] = 'Sales by region'
for j, h in enumerate(['Region', 2023, 2024]):
    ws.cell(3, 2 + j, h)
for i, r in enumerate(['North', 'South', 'East', 'West']):
    for j, v in enumerate([r, 100 + i, 200 + i]):
        ws.cell(4 + i, 2 + j, v)
wb.save('/output/years/regions.xlsx')
`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := s.AddFile(ctx, files["years/regions.xlsx"])
	if err != nil {
		t.Fatal(err)
	}
	if p.Error != "" || p.HeaderRow != 2 || p.Rows != 4 {
		t.Fatalf("sheet: error %q, header row %d, %d rows", p.Error, p.HeaderRow, p.Rows)
	}
	if got := readBack(t, p, "(list(_df.columns), int(_df[2024].sum()))"); got != "(['Region', 2023, 2024], 806)" {
		t.Errorf("sheet: %s", got)
	}
}

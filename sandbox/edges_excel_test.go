package sandbox_test

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// workbooks are made with openpyxl, as Excel lays them out: title blocks
// over the table (with and without a blank row under them, key-value rows as
// wide as the table), tables that start mid-sheet, and a workbook whose
// first sheet summarises the second.
const workbooks = `import os, openpyxl, datetime
os.makedirs('/output/books', exist_ok=True)
def table(ws, r0, c0, n=12):
    for j, h in enumerate(['Date', 'Account', 'Amount', 'Currency']):
        ws.cell(r0, c0 + j, h)
    for i in range(n):
        for j, v in enumerate([datetime.date(2024, 3, 1 + i), 4400 + i, 100.5 * (i + 1), 'EUR']):
            ws.cell(r0 + 1 + i, c0 + j, v)
def book(name, fill):
    wb = openpyxl.Workbook()
    fill(wb.active)
    wb.save('/output/books/' + name)
def title_blank(ws):
    ws['A1'] = 'ACME GmbH'; ws['A2'] = 'Period:'; ws['B2'] = '2024-03'; ws['A3'] = 'Created:'; ws['B3'] = datetime.date(2024, 4, 2)
    table(ws, 5, 1)
def title_wide(ws):
    ws['A1'] = 'Bank statement'
    for j, v in enumerate(['Account', 'DE12 3456', 'Currency', 'EUR']):
        ws.cell(2, 1 + j, v)
    table(ws, 4, 1)
def title_tight(ws):
    ws['A1'] = 'Report'; ws['A2'] = 'Period:'; ws['B2'] = 2024
    table(ws, 3, 1)
def mid_sheet(ws):
    ws['B2'] = 'Sales by day'; ws['B3'] = 'Period:'; ws['C3'] = '2024-03'
    table(ws, 5, 3)
def row_labels(ws):
    ws['A1'] = 'Sales by region'
    for j, q in enumerate(['Q1', 'Q2', 'Q3']):
        ws.cell(3, 4 + j, q)
    for i, r in enumerate(['North', 'South', 'East', 'West']):
        ws.cell(4 + i, 3, r)
        for j in range(3):
            ws.cell(4 + i, 4 + j, 10 * (j + 1) + i)
for name, fill in (('title_blank.xlsx', title_blank), ('title_wide.xlsx', title_wide), ('title_tight.xlsx', title_tight),
                   ('mid_sheet.xlsx', mid_sheet), ('row_labels.xlsx', row_labels)):
    book(name, fill)
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Summary'
for r in (['Region', 'Total'], ['North', 1200.5], ['South', 800.25], ['Total', 2000.75]):
    ws.append(r)
tx = wb.create_sheet('Transactions')
tx.append(['Date', 'Region', 'Customer', 'Amount'])
for i in range(60):
    tx.append([datetime.date(2024, 1 + i % 12, 1 + i % 28), ['North', 'South'][i % 2], 'Customer %d' % i, 10.0 + i])
wb.save('/output/books/summary_first.xlsx')
`

// A title block above the table is not read as rows, and a table that
// starts mid-sheet keeps all its columns: each read call gives the table.
func TestProfileExcelTitleBlocksAndOffsets(t *testing.T) {
	s := sharedSession(t)
	files := makeInSandbox(t, s, workbooks)
	table := "((12, 4), ['Date', 'Account', 'Amount', 'Currency'], 'datetime64[ns]', 7839.0)" // 100.5 × (1 + … + 12)
	cases := []struct{ name, want string }{
		{"books/title_blank.xlsx", table},
		{"books/title_wide.xlsx", table},
		{"books/title_tight.xlsx", table},
		{"books/mid_sheet.xlsx", table},
		{"books/row_labels.xlsx", "((4, 4), ['Unnamed: 2', 'Q1', 'Q2', 'Q3'], 'object', 86.0)"}, // Q2: 20 + 21 + 22 + 23
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			p, err := s.AddFile(ctx, files[c.name])
			if err != nil {
				t.Fatal(err)
			}
			call := p.Read.Python(p.Path)
			if p.Error != "" || call == "" {
				t.Fatalf("profile error %q, call %q", p.Error, call)
			}
			res := cell(t, s, "_df = "+call+"\n(_df.shape, list(_df.columns), _df.iloc[:, 0].dtype.name, float(_df.iloc[:, 2].sum()))")
			cellOK(t, res)
			if res.Value.Repr != c.want {
				t.Errorf("%s\n got  %s\n want %s", call, res.Value.Repr, c.want)
			}
		})
	}
}

// A workbook whose first sheet summarises the second: the profile's read
// call loads the 60-row table, says which sheet holds which table, and each
// sheet's own read call loads that sheet's table.
func TestProfileExcelSummaryFirst(t *testing.T) {
	s := sharedSession(t)
	files := makeInSandbox(t, s, workbooks)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := s.AddFile(ctx, files["books/summary_first.xlsx"])
	if err != nil {
		t.Fatal(err)
	}
	if p.Error != "" || p.Rows != 60 || len(p.Sheets) != 2 || !hasNote(p, "'Summary' 3 × 2, 'Transactions' 60 × 4") {
		t.Fatalf("rows %d, sheets %d, notes %q, error %q", p.Rows, len(p.Sheets), p.Notes, p.Error)
	}
	want := map[string]string{"": "(60, 4)", "Summary": "(3, 2)", "Transactions": "(60, 4)"}
	calls := map[string]string{"": p.Read.Python(p.Path)}
	for _, sh := range p.Sheets {
		calls[sh.Name] = sh.Read.Python(p.Path)
	}
	for name, call := range calls {
		res := cell(t, s, fmt.Sprintf("%s.shape", call))
		cellOK(t, res)
		if res.Value.Repr != want[name] {
			t.Errorf("sheet %q: %s gives %s, want %s", name, call, res.Value.Repr, want[name])
		}
	}
}

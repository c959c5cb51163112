package ground

import (
	"fmt"
	"slices"
	"testing"
)

// The tables the demo's cells return, as the kernel sends them: cell 1's
// rows by department and category (a department on several rows), cell
// 2's by department, a "change" column beside a "change %" one.
var (
	demoDetail = tableSrc(1, table("", []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"},
		[]string{"department", "category", "q1", "q2", "change", "change %"}, []string{obj, obj, i64, i64, i64, f64},
		[]string{"Engineering", "Salaries", "240000", "252000", "12000", "5.0"},
		[]string{"Engineering", "Cloud", "36000", "44500", "8500", "23.6"},
		[]string{"Engineering", "Software", "12000", "12500", "500", "4.2"},
		[]string{"Marketing", "Salaries", "90000", "90000", "0", "0.0"},
		[]string{"Marketing", "Events", "30000", "21000", "-9000", "-30.0"},
		[]string{"Marketing", "Ads", "45000", "52000", "7000", "15.6"},
		[]string{"Sales", "Salaries", "120000", "126000", "6000", "5.0"},
		[]string{"Sales", "Travel", "18000", "21000", "3000", "16.7"},
		[]string{"Operations", "Facilities", "40000", "40000", "0", "0.0"},
		[]string{"Operations", "Software", "8000", "6500", "-1500", "-18.8"}))
	demoByDept = tableSrc(2, table("department", []string{"Marketing", "Operations", "Sales", "Engineering"},
		[]string{"q1", "q2", "change", "change %"}, []string{i64, i64, i64, f64},
		[]string{"165000", "163000", "-2000", "-1.2"},
		[]string{"48000", "46500", "-1500", "-3.1"},
		[]string{"138000", "147000", "9000", "6.5"},
		[]string{"288000", "309000", "21000", "7.3"}))
	demoPrinted = printed(2, "Total: Q1 639,000 to Q2 665,500, +26,500 (+4.1%)\nLargest increase: Engineering, Salaries +12,000\nLargest cut: Marketing, Events -9,000\n")
	demoSources = []Source{demoByDept, demoPrinted, demoDetail}

	// a share held as a fraction, a margin as percent units, money with
	// cents: the answer rounds each column its own way
	regionShares = tableSrc(3, table("region", []string{"North", "South", "West", "East"},
		[]string{"revenue", "share", "margin_pct", "cost"}, []string{f64, f64, f64, f64},
		[]string{"1234567.891", "0.41234", "12.3456", "-4321.5"},
		[]string{"987654.3", "0.32891", "9.8765", "-1200.25"},
		[]string{"543210.0", "0.18102", "-2.5", "-310.0"},
		[]string{"234567.8", "0.07773", "0.04", "-55.55"}))
)

var (
	// by.change, a Series: one column named after it
	changeSeries = tableSrc(4, table("department", []string{"Marketing", "Operations", "Sales", "Engineering"},
		[]string{"change"}, []string{i64}, []string{"-2000"}, []string{"-1500"}, []string{"9000"}, []string{"21000"}))
	// v.set_index(["department", "category"]): a MultiIndex
	multiIndex = tableSrc(5, table("", []string{"('Engineering', 'Salaries')", "('Engineering', 'Cloud')", "('Marketing', 'Salaries')", "('Marketing', 'Events')"},
		[]string{"q1", "q2"}, []string{i64, i64},
		[]string{"240000", "252000"}, []string{"36000", "44500"}, []string{"90000", "90000"}, []string{"30000", "21000"}))
	// headcount by department, another cell's table on the same index
	headcount = tableSrc(6, table("department", []string{"Engineering", "Marketing", "Sales", "Operations"},
		[]string{"staff"}, []string{i64}, []string{"41"}, []string{"17"}, []string{"22"}, []string{"6"}))
	// months, a year index, numbers formatted as text by the code
	monthly = tableSrc(7, table("month", []string{"Jan", "Feb", "Mar"},
		[]string{"revenue", "growth"}, []string{obj, obj},
		[]string{"48,211.75", "n/a"}, []string{"45,102.20", "-6.4%"}, []string{"57,233.00", "26.9%"}))
	yearly = tableSrc(8, table("year", []string{"2023", "2024", "2025"},
		[]string{"revenue"}, []string{f64}, []string{"1234.5"}, []string{"1410.25"}, []string{"1502.0"}))
)

// Tables a cell printed, as pandas 2.3 prints them in the sandbox.
var (
	printedFrame = printed(9, "    department     category      q1  change %    s\n"+
		"0  Engineering     Salaries  240000      5.00  a b\n1        Sales  Travel bits   18000    -16.70    c\n2           HR            x       5      0.25    d\n")
	printedIndexed = printed(10, "                 q1  change %\ndepartment                   \n"+
		"Engineering  240000      5.00\nHR                5      0.25\nSales         18000    -16.70\n")
	printedSeries = printed(11, "department\nEngineering    240000\nSales           18000\nHR                  5\nName: q1, dtype: int64\n")
	printedMulti  = printed(12, "                             q1  change %    s\ndepartment  category                          \n"+
		"Engineering Salaries     240000      5.00  a b\nSales       Travel bits   18000    -16.70    c\nHR          x                 5      0.25    d\n")
	printedMarkdown = printed(13, "|    | department   | category    |     q1 |   change % |\n|---:|:-------------|:------------|-------:|-----------:|\n"+
		"|  0 | Engineering  | Salaries    | 240000 |       5    |\n|  1 | Sales        | Travel bits |  18000 |     -16.7  |\n|  2 | HR           | x           |      5 |       0.25 |\n")
	printedDescribe = printed(14, "                  q1   change %\ncount       3.000000   3.000000\nmean    86001.666667  -3.816667\n"+
		"std    133669.630090  11.407271\nmin         5.000000 -16.700000\n25%      9002.500000  -8.225000\nmax    240000.000000   5.000000\n")
)

// answerTables are answers whose tables present a cell's table the ways
// models write them. Every marked number must ground, every planted one
// (a digit changed, a value of the next row or column) must not.
var answerTables = []struct {
	name    string
	sources []Source
	tmpl    string
}{
	{"demo: change beside change %", demoSources,
		"| department | q1 | q2 | change | change % |\n| --- | ---: | ---: | ---: | ---: |\n" +
			"| Marketing | ⟨165,000⟩ | ⟨163,000|163,100|digit⟩ | ⟨-2,000|-2,100|digit⟩ | ⟨-1.2|-3.1|neighbour⟩ |\n" +
			"| Operations | ⟨48,000⟩ | ⟨46,500⟩ | ⟨-1,500|-1,600|digit⟩ | ⟨-3.1|-3.2|digit⟩ |\n" +
			"| Sales | ⟨138,000⟩ | ⟨147,000⟩ | ⟨9,000|8,000|digit⟩ | ⟨6.5|6.6|digit⟩ |\n" +
			"| Engineering | ⟨288,000|288,000|none⟩ | ⟨309,000⟩ | ⟨21,000|31,000|digit⟩ | ⟨7.3|6.5|neighbour⟩ |\n"},
	{"a label on several rows", demoSources,
		"| Department | Category | Q1 | Q2 | Change |\n|---|---|--:|--:|--:|\n" +
			"| Engineering | Salaries | ⟨240,000⟩ | ⟨252,000⟩ | ⟨+12,000|+8,500|neighbour⟩ |\n" +
			"| Engineering | Cloud | ⟨36,000|12,000|neighbour⟩ | ⟨44,500⟩ | ⟨+8,500|+500|neighbour⟩ |\n" +
			"| Marketing | Events | ⟨30,000⟩ | ⟨21,000|21,100|digit⟩ | ⟨-9,000|-7,000|neighbour⟩ |\n" +
			"| Operations | Software | ⟨8,000⟩ | ⟨6,500|6,400|digit⟩ | ⟨-1,500⟩ |\n"},
	{"index shown as the first column", demoSources,
		"| | department | category | change |\n|---|---|---|---|\n" +
			"| 0 | Engineering | Salaries | ⟨12000|12001|digit⟩ |\n| 4 | Marketing | Events | ⟨-9000⟩ |\n| 9 | Operations | Software | ⟨-1500|-1550|digit⟩ |\n"},
	{"reordered rows, a subset of columns, renamed headers", demoSources,
		"| Dept. | Budget Q2 | Δ |\n|:--|--:|--:|\n| Sales | ⟨147,000⟩ | ⟨+9,000|+9,500|digit⟩ |\n| Engineering | ⟨309,000|390,000|transposed⟩ | ⟨+21,000⟩ |\n| Marketing | ⟨163,000⟩ | ⟨−2,000|+2,000|sign⟩ |\n"},
	{"a totals row the model computed", demoSources,
		"| department | Q1 | Q2 |\n|---|---:|---:|\n| Marketing | ⟨165,000⟩ | ⟨163,000⟩ |\n| Sales | ⟨138,000⟩ | ⟨147,000|147,001|digit⟩ |\n| **Total** | ⟨303,000||own⟩ | ⟨310,000||own⟩ |\n"},
	{"a transposed table", demoSources,
		"| | Marketing | Operations | Sales |\n|---|---:|---:|---:|\n| Q1 | ⟨165,000⟩ | ⟨48,000|46,500|neighbour⟩ | ⟨138,000⟩ |\n| Change | ⟨-2,000⟩ | ⟨-1,500|-1,000|digit⟩ | ⟨+9,000⟩ |\n| Change % | ⟨-1.2%⟩ | ⟨-3.1%|-1.5%|digit⟩ | ⟨+6.5%⟩ |\n"},
	{"units in the header, currency, parentheses", demoSources,
		"| Department | Q1 ($k) | Q2 ($k) | Change ($) |\n|---|--:|--:|--:|\n| Marketing | ⟨165⟩ | ⟨163|164|digit⟩ | ⟨($2,000)|$2,000|sign⟩ |\n| Operations | ⟨48⟩ | ⟨46.5|46.6|digit⟩ | ⟨($1,500)⟩ |\n| Engineering | ⟨288⟩ | ⟨309⟩ | ⟨$21,000|$21,001|digit⟩ |\n"},
	{"rounding per column, fractions as percent", []Source{regionShares},
		"| Region | Revenue | Share | Margin | Cost |\n|---|---:|---:|---:|---:|\n" +
			"| North | ⟨1.23M|1.24M|digit⟩ | ⟨41.2%|41.3%|digit⟩ | ⟨12.3%|12.4%|digit⟩ | ⟨(4,321.50)|(4,321.40)|digit⟩ |\n" +
			"| South | ⟨987.7k|987.6k|digit⟩ | ⟨32.9%⟩ | ⟨9.9%|-9.9%|sign⟩ | ⟨(1,200.25)⟩ |\n" +
			"| West | ⟨543,210⟩ | ⟨18.1%|18.2%|digit⟩ | ⟨-2.5%|-2.6%|digit⟩ | ⟨(310.00)|(310.01)|digit⟩ |\n" +
			"| East | ⟨234,568|234,567|rounding⟩ | ⟨7.8%|8.8%|digit⟩ | ⟨0.04%|0.05%|digit⟩ | ⟨-55.55|-55.56|digit⟩ |\n"},
	{"percent units without a sign, a share header", []Source{regionShares},
		"| region | share (%) | margin_pct |\n|---|---|---|\n| North | ⟨41.23|41.24|digit⟩ | ⟨12.35|12.34|rounding⟩ |\n| East | ⟨7.77⟩ | ⟨0.04⟩ |\n"},
	{"a Series, bold cells, capitals, a status column", append([]Source{changeSeries}, demoSources...),
		"| Department | Change | Status |\n|---|---:|---|\n| **MARKETING** | **⟨−2,000|−2,001|digit⟩** | under |\n| operations | ⟨−1,500|−1,500|none⟩ | under |\n| Sales | ⟨+9,000|+9,000|none⟩ | over |\n| Engineering | **⟨+21,000|+12,000|transposed⟩** | over |\n"},
	{"a MultiIndex", []Source{multiIndex},
		"| department | category | Q1 | Q2 |\n|---|---|---|---|\n| Engineering | Cloud | ⟨36,000|36,500|digit⟩ | ⟨44,500|36,000|neighbour⟩ |\n| Marketing | Events | ⟨30,000⟩ | ⟨21,000|90,000|neighbour⟩ |\n"},
	{"columns from two cells' tables", append([]Source{headcount}, demoSources...),
		"| Department | Q1 | Q2 | Staff |\n|---|--:|--:|--:|\n| Engineering | ⟨288,000⟩ | ⟨309,000⟩ | ⟨41|14|transposed⟩ |\n| Marketing | ⟨165,000|165,500|digit⟩ | ⟨163,000⟩ | ⟨17|22|neighbour⟩ |\n| Sales | ⟨138,000⟩ | ⟨147,000⟩ | ⟨22⟩ |\n"},
	{"two tables from two cells", append([]Source{headcount}, demoSources...),
		"By department:\n\n| department | change |\n|---|---|\n| Sales | ⟨9,000|9,900|digit⟩ |\n| Engineering | ⟨21,000⟩ |\n\nStaff:\n\n| department | staff |\n|---|---|\n| Sales | ⟨22|23|digit⟩ |\n| Operations | ⟨6|17|neighbour⟩ |\n"},
	{"months written out, numbers the code formatted", []Source{monthly, yearly},
		"| Month | Revenue | Growth |\n|---|---|---|\n| January | ⟨$48,211.75|$48,211.57|transposed⟩ | – |\n| February | ⟨$45,102.20⟩ | ⟨-6.4%|+6.4%|sign⟩ |\n| March | ⟨$57.2k|$57.3k|digit⟩ | ⟨+26.9%|+29.6%|transposed⟩ |\n\n| Year | Revenue |\n|---|---|\n| 2023 | ⟨1,234.50|1,243.50|transposed⟩ |\n| 2025 | ⟨1,502|1,410|neighbour⟩ |\n"},
	{"a German table", demoSources,
		"| Abteilung | Q1 | Q2 | Veränderung | Veränderung % |\n|---|--:|--:|--:|--:|\n| Marketing | ⟨165.000⟩ | ⟨163.000⟩ | ⟨−2.000|−2.100|digit⟩ | ⟨−1,2 %|−1,3 %|digit⟩ |\n| Sales | ⟨138.000⟩ | ⟨147.000|174.000|transposed⟩ | ⟨+9.000⟩ | ⟨+6,5 %⟩ |\n"},
	{"a column and a cell the model worked out", demoSources,
		"| department | Q2 | per month |\n|---|--:|--:|\n| Marketing | ⟨163,000⟩ (⟨−1.2%|−1.3%|digit⟩) | ⟨54,333||own⟩ |\n| Sales | ⟨147,000⟩ | ⟨49,000||own⟩ |\n"},
	{"print(df)", []Source{printedFrame},
		"| department | Q1 | change % |\n|---|---|---|\n| Engineering | ⟨240,000|18,000|neighbour⟩ | ⟨5.0%|5.1%|digit⟩ |\n| Sales | ⟨18,000⟩ | ⟨−16.7%|−16.7|none⟩ |\n| HR | ⟨5|0.25|neighbour⟩ | ⟨0.25%|5%|neighbour⟩ |\n"},
	{"print(df) with a named index", []Source{printedIndexed},
		"| Department | Q1 | Change % |\n|---|---|---|\n| HR | ⟨5⟩ | ⟨0.25|5|neighbour⟩ |\n| Sales | ⟨18,000|18,001|digit⟩ | ⟨-16.70|-16.07|transposed⟩ |\n"},
	{"print(series)", []Source{printedSeries},
		"| department | q1 |\n|---|---|\n| Engineering | ⟨240,000|24,000|digit⟩ |\n| Sales | ⟨18,000|5|neighbour⟩ |\n"},
	{"print(df) with a MultiIndex", []Source{printedMulti},
		"| department | category | Q1 | change |\n|---|---|---|---|\n| Sales | Travel bits | ⟨18,000|240,000|neighbour⟩ | ⟨-16.7%|-16.6%|digit⟩ |\n| HR | x | ⟨5⟩ | ⟨0.25%⟩ |\n"},
	{"print(df.to_markdown())", []Source{printedMarkdown},
		"| department | category | q1 | change % |\n|---|---|---|---|\n| Engineering | Salaries | ⟨240,000⟩ | ⟨5.0⟩ |\n| Sales | Travel bits | ⟨18,000|5|neighbour⟩ | ⟨-16.7|-16.8|digit⟩ |\n"},
	{"print(df.describe())", []Source{printedDescribe},
		"| | Q1 | change % |\n|---|---|---|\n| mean | ⟨86,001.67|86,001.76|transposed⟩ | ⟨-3.82|-8.23|neighbour⟩ |\n| max | ⟨240,000⟩ | ⟨5.00|3.00|digit⟩ |\n"},
	{"one-row table", demoSources,
		"| department | change | change % |\n|---|---|---|\n| Sales | ⟨9,000|9,100|digit⟩ | ⟨6.5|6.4|digit⟩ |\n"},
}

func TestAnswerTables(t *testing.T) {
	var right, rightOK, planted, plantedOK, own int
	for _, c := range answerTables {
		for _, v := range variants(c.tmpl) {
			if v.kind == "none" {
				continue
			}
			cs := Check(Input{Answer: v.answer, Question: "Budget Q2 against Q1 by department", Sources: c.sources, Thousands: true})
			name := fmt.Sprintf("%s/%s", c.name, v.kind)
			if got := claimTexts(cs); !slices.Equal(got, v.claims) {
				t.Errorf("%s: claims %q, want %q\n%s", name, got, v.claims, show(cs))
				continue
			}
			for k, cl := range cs {
				switch {
				case k == v.planted:
					planted++
					if cl.Grounded {
						t.Errorf("%s: planted %q grounded in %s\n%s", name, cl.Text, *cl.Source, v.answer)
					} else {
						plantedOK++
					}
				case v.planted < 0:
					if !v.own[k] {
						right++
					}
					switch {
					case v.own[k] && cl.Grounded:
						t.Errorf("%s: %q, the model's own, grounded in %s", name, cl.Text, *cl.Source)
					case v.own[k]:
						own++
					case cl.Grounded:
						rightOK++
					default:
						t.Errorf("%s: %q not grounded\n%s", name, cl.Text, show(cs))
					}
				}
			}
		}
	}
	t.Logf("answer tables: right %d, grounded %d; the model's own %d, unverified; planted %d, flagged %d", right, rightOK, own, planted, plantedOK)
}

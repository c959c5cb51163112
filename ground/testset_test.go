package ground

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/kernel"
)

// scenario is the outputs of a question's cells and answers written over
// them.
type scenario struct {
	name      string
	question  string
	sources   []Source
	thousands bool
	answers   []string
}

var (
	i64, f64, obj = "int64", "float64", "object"

	variance = []Source{
		tableSrc(1, table("region", []string{"North", "South", "West"},
			[]string{"q1", "q2", "change", "pct"}, []string{i64, i64, i64, f64},
			[]string{"80000", "90000", "10000", "0.125"},
			[]string{"100000", "90000", "-10000", "-0.1"},
			[]string{"90000", "100000", "10000", "0.1111111111111111"})),
		printed(2, "Total Q1: 270,000\nTotal Q2: 280,000\nGrowth: 3.70%\n"),
	}
	budget = []Source{
		tableSrc(1, table("department", []string{"Engineering", "Marketing", "Sales", "HR"},
			[]string{"budget", "actual", "variance", "variance_pct"}, []string{f64, f64, f64, f64},
			[]string{"120000.0", "131000.0", "11000.0", "0.09166666666666666"},
			[]string{"80000.0", "77000.0", "-3000.0", "-0.0375"},
			[]string{"95000.0", "99800.0", "4800.0", "0.05052631578947368"},
			[]string{"40000.0", "38250.5", "-1749.5", "-0.0437375"})),
		printed(2, "Total budget 335,000.00, actual 346,050.50, variance 11,050.50 (3.30%)\nover budget: 2 of 4 departments\n"),
	}
	ledger = []Source{
		FromProfile(kernel.Profile{Name: "ledger.csv", Rows: 120000, Columns: make([]kernel.Column, 7)}),
		tableSrc(1, table("", []string{"0", "1", "2", "3"},
			[]string{"account", "total_eur", "postings"}, []string{i64, f64, i64},
			[]string{"400000", "1234567.89", "3011"},
			[]string{"410000", "98765.4", "2987"},
			[]string{"420000", "-4321.5", "3102"},
			[]string{"430000", "56789.01", "2950"})),
		tableSrc(2, table("cost_centre", []string{"4400", "4410", "4420"},
			[]string{"amount_eur", "share"}, []string{f64, f64},
			[]string{"250123.45", "0.5012"},
			[]string{"180000.0", "0.3607"},
			[]string{"68876.55", "0.1381"})),
		printed(3, "2,500,000,000 EUR planned for 2026\nlargest posting 19,999.99\nmean 11.53\n"),
	}
	stores = []Source{
		tableSrc(1, table("", []string{"0", "1", "2"},
			[]string{"store", "visitors", "share"}, []string{obj, i64, f64},
			[]string{"Berri 1", "1204", "0.4012"},
			[]string{"Maisonneuve 2", "987", "0.3289"},
			[]string{"Rachel 3", "810", "0.2699"})),
		{Cell: 1, Kind: Value, Text: "np.float64(3001.0)"},
	}
)

var scenarios = []scenario{
	{name: "variance", question: "Compare revenue by region between the 2 quarters", sources: variance, thousands: true, answers: []string{
		"Revenue grew in North (⟨+12.5%|+15.2%|transposed⟩) and West (⟨+11.1%|+12.5%|neighbour⟩) and fell in South (⟨-10.0%|+10.0%|sign⟩).",
		"## 1. Summary\n\n- North: ⟨80,000⟩ in Q1, ⟨90,000|98,000|transposed⟩ in Q2, a change of ⟨10,000⟩.\n- South dropped by ⟨10,000|1,000|invented⟩ to ⟨90,000⟩.\n- West rose ⟨11.1%|11.2%|rounding⟩.\n",
		"Total revenue went from ⟨270,000⟩ to ⟨280,000|290,000|invented⟩, growth of ⟨3.7%|3.8%|rounding⟩ across ⟨3⟩ regions.",
		"| region | Q1 | Q2 | change |\n|---|---|---|---|\n| North | ⟨80,000⟩ | ⟨90,000⟩ | ⟨+10,000|-10,000|sign⟩ |\n| South | ⟨100,000|90,000|neighbour⟩ | ⟨90,000⟩ | ⟨-10,000⟩ |\n| West | ⟨90,000⟩ | ⟨100,000|10,000|invented⟩ | ⟨+10,000⟩ |\n",
		"North's revenue rose from ⟨$80k⟩ to ⟨$90k|$100k|neighbour⟩, i.e. ⟨12.50%|12.05%|transposed⟩; South fell ⟨10%|1%|invented⟩ (Q1 2025 vs Q2 2025, as of 2025-06-30).",
		"In FY2025 the West region grew by ⟨10,000⟩ (⟨11.11%|11.12%|rounding⟩), the second-best of the ⟨3⟩ regions after North's ⟨12.5 percent|12.6 percent|rounding⟩.",
		"## Variance report: Q1 vs Q2 2025\n\nTotal revenue rose from ⟨270,000⟩ in Q1 to ⟨280,000|280,500|invented⟩ in Q2 (⟨+3.7%|+3.6%|rounding⟩).\n\n| Region | Q1 | Q2 | Change | % |\n|---|---:|---:|---:|---:|\n| North | ⟨80,000⟩ | ⟨90,000⟩ | ⟨+10,000⟩ | ⟨+12.5%|+12.5%|none⟩ |\n| South | ⟨100,000⟩ | ⟨90,000⟩ | ⟨−10,000|+10,000|sign⟩ | ⟨−10.0%|−11.1%|neighbour⟩ |\n\n### Key points\n1. **North** grew the most, by ⟨12.5%⟩.\n2. South declined by ⟨10.0%|1.0%|invented⟩ (⟨−10,000⟩).\n",
		"Überblick: Nord stieg um ⟨12,5 %|21,5 %|transposed⟩, Süd fiel um ⟨10,0 %⟩; der Umsatz stieg auf ⟨280.000|208.000|transposed⟩.",
	}},
	{name: "budget", question: "Which departments are over budget? Show budget vs actual for 2025", sources: budget, answers: []string{
		"Engineering is over budget by ⟨11,000|11,100|invented⟩ (⟨9.2%|9.1%|rounding⟩) and Sales by ⟨4,800|4,080|transposed⟩ (⟨5.1%⟩); Marketing is under by ⟨3,000⟩ and HR by ⟨1,749.50|1,794.50|transposed⟩.",
		"| Department | Budget | Actual | Variance | Var % |\n|---|---:|---:|---:|---:|\n| Engineering | ⟨120,000.00⟩ | ⟨131,000.00⟩ | ⟨11,000.00⟩ | ⟨9.17%⟩ |\n| Marketing | ⟨80,000.00⟩ | ⟨77,000.00⟩ | ⟨(3,000.00)|3,000.00|sign⟩ | ⟨-3.75%|-3.57%|transposed⟩ |\n| HR | ⟨40,000.00⟩ | ⟨38,250.50⟩ | ⟨(1,749.50)⟩ | ⟨-4.37%|-4.38%|rounding⟩ |\n| **Total** | ⟨335,000.00⟩ | ⟨346,050.50|346,050.05|transposed⟩ | ⟨11,050.50⟩ | ⟨3.30%⟩ |\n",
		"Overall the company spent ⟨€346,050.50⟩ against a budget of ⟨€335,000|€353,000|transposed⟩, ⟨3.3%|33%|invented⟩ over. ⟨2⟩ of ⟨4⟩ departments overspent.",
		"1. Engineering: actual ⟨131,000⟩ vs budget ⟨120,000|95,000|neighbour⟩.\n2. Sales: actual ⟨99,800⟩ vs budget ⟨95,000⟩ (variance ⟨+4,800|-4,800|sign⟩).\n3. HR came in ⟨1.7k⟩ under, about ⟨4.4%⟩.\n",
		"Die Abteilung Marketing lag ⟨3.000,00 €|3.000,00 €|none⟩ unter Plan, HR ⟨1.749,50 €|1.749,05 €|transposed⟩; Engineering überschritt das Budget um ⟨11.000 €|1.100 €|invented⟩.",
		"Engineering spent ⟨CHF 131'000.00⟩ against ⟨CHF 120'000.00|CHF 102'000.00|transposed⟩; the variance of ⟨CHF 11'000⟩ is ⟨9.17 %⟩ of budget.",
		"Engineering dépasse le budget de ⟨11 000,00 €|11 000,00 €|none⟩, soit ⟨9,17 %|9,71 %|transposed⟩ ; Marketing reste ⟨3 000,00 €⟩ en dessous.",
		"Engineering over by ⟨11\u202f000,00 EUR|11\u202f000,01 EUR|invented⟩ on a budget of ⟨120\u00a0000 EUR|120\u00a0001 EUR|invented⟩.",
	}},
	{name: "ledger", question: "Total the ledger by account and by cost centre", sources: ledger, answers: []string{
		"Account 400000 carries the most: ⟨€1,234,567.89|€1,234,576.89|transposed⟩ over ⟨3,011⟩ postings, about ⟨€1.23M|€1.32M|transposed⟩. Account 420000 is a credit of ⟨(4,321.50)|+4,321.50|sign⟩.",
		"Account 410000 totals ⟨98,765.40|98,765.04|transposed⟩; account 430000 ⟨56,789.01|98,765.40|neighbour⟩. The file has ⟨120,000⟩ rows and ⟨7⟩ columns.",
		"Cost centre 4400 holds ⟨250,123.45⟩ (⟨50.1%|51.0%|transposed⟩ of the total), cost centre 4410 ⟨180,000.00|250,123.45|neighbour⟩ (⟨36.1%|36.0%|rounding⟩) and 4420 ⟨68,876.55⟩.",
		"| account | total (EUR) |\n|---|---:|\n| 400000 | ⟨1,234,567.89⟩ |\n| 410000 | ⟨98,765.40⟩ |\n| 420000 | ⟨(4,321.50)|(4,312.50)|transposed⟩ |\n| 430000 | ⟨56,789.01|56,789.10|transposed⟩ |\n",
		"Konto 400000: ⟨1.234.567,89 €|1.234.567,98 €|transposed⟩, Kostenstelle 4400: ⟨250.123,45 €⟩; geplant sind ⟨2,5 Mrd. EUR|2,6 Mrd. EUR|rounding⟩ für 2026.",
		"The plan for 2026 is ⟨2.5bn EUR|2.5m EUR|invented⟩ (⟨2.5 billion⟩). The largest single posting was ⟨19,999.99⟩; the mean posting ⟨11.53|11.35|transposed⟩.",
		"On 31.12.2025 at 23:59 the books closed with ⟨1.2 million|1.3 million|rounding⟩ on account 400000 and ⟨1,23 Mio.⟩ in total for it; see row 3 of the table and `df.groupby('account')` (cell 1).",
		"```python\ndf.amount_eur.sum()  # 1385800.8\n```\nAccount 420000 is negative at ⟨−4,321.50|+4,321.50|sign⟩, account 410000 positive at ⟨98,765.40|-98,765.40|sign⟩.",
	}},
	{name: "stores", question: "Visitors per store last week", sources: stores, answers: []string{
		"Berri 1 had the most visitors (⟨1,204|1,024|transposed⟩, ⟨40.1%⟩), Maisonneuve 2 had ⟨987|810|neighbour⟩ and Rachel 3 ⟨810⟩, ⟨27.0%|27.1%|rounding⟩ of the total of ⟨3,001|3,100|invented⟩.",
		"The ⟨3⟩ stores saw ⟨3001⟩ visitors between 01/03/2026 and 07/03/2026; Berri 1 alone ⟨1.2k|2.1k|transposed⟩.",
		"Berri 1 grew? Its share is ⟨40%⟩, Rachel 3's ⟨27%|72%|transposed⟩ — a 2nd place for Maisonneuve 2 at ⟨33%⟩ on March 3, 2026.",
	}},
}

// formats are one value written in the ways an answer may write it, each
// with a wrong neighbour of it.
var formats = []struct {
	source string
	tmpl   string
}{
	{"1234.56", "⟨1,234.56|1,243.56|transposed⟩ and ⟨1.234,56|1.234,65|transposed⟩ and ⟨1 234,56|1 234,57|rounding⟩"},
	{"1234.56", "⟨$1,234.56|$1,234.65|transposed⟩, ⟨€1.234,56|€1.235,56|invented⟩, ⟨1.234,56 €|1.243,56 €|transposed⟩"},
	{"1234.56", "⟨CHF 1'234.56|CHF 1'234.50|rounding⟩, ⟨USD 1,234.56|USD 1,234.55|rounding⟩, ⟨1,234.56 EUR|1,234.56 USD|none⟩"},
	{"1234.56", "⟨1.23k|1.32k|transposed⟩ or ⟨1.2K|1.3K|rounding⟩ or ⟨1,235|1,234|rounding⟩"},
	{"-1234.56", "⟨-1,234.56|1,234.56 more|none⟩ or ⟨(1,234.56)|+1,234.56|sign⟩ or ⟨−1,234.56|−1,234.65|transposed⟩"},
	{"0.12503", "⟨12.5%|12.6%|rounding⟩, ⟨12.50 %|12.05 %|transposed⟩, ⟨13%|12%|rounding⟩, ⟨12,5 %|15,2 %|transposed⟩, ⟨12.5 percent|21.5 percent|transposed⟩"},
	{"12.503", "a rate of ⟨12.5%|12.4%|rounding⟩ (the column holds percent)"},
	{"1234567.89", "⟨1.23M|1.24M|rounding⟩, ⟨1.2 million|2.1 million|transposed⟩, ⟨1,23 Mio.|1,32 Mio.|transposed⟩, ⟨$1.2m|$12m|invented⟩, ⟨€1.235 Mio|€1.236 Mio|rounding⟩"},
	{"2500000000", "⟨2.5bn|5.2bn|transposed⟩, ⟨2,5 Mrd.|2,4 Mrd.|rounding⟩, ⟨2.5 billion|2.5 million|invented⟩, ⟨$2.5B|$2.6B|rounding⟩"},
	{"98765.4", "⟨98,765.40|98,765.04|transposed⟩ and ⟨98,765.4|98,756.4|transposed⟩ and ⟨98765.4|89765.4|transposed⟩"},
	{"-0.1", "sales fell ⟨10%|11%|invented⟩ and profit fell by ⟨10.0%|1.0%|invented⟩, a decline of ⟨10 percent|10 percent|none⟩, down ⟨10%|10%|none⟩"},
	{"0.1", "sales rose ⟨10%|10%|none⟩, profit grew by ⟨10%|10%|none⟩, an increase of ⟨10.0%|100%|invented⟩"},
	{"0.1 0.12", "between ⟨10|11|invented⟩ and ⟨12%|13%|invented⟩"},
	{"-4321.5", "a credit of ⟨(4,321.50)|(4,321.05)|transposed⟩, written ⟨-4,321.5|-4,312.5|transposed⟩"},
	{"0.1 0.12", "a range of ⟨10|10|none⟩–⟨12%|21%|transposed⟩ or ⟨10⟩-⟨12%⟩ or ⟨0.1⟩ to ⟨0.12⟩"},
}

// The wrong version of "rose 10%" against a source of 0.1 with the word
// flipped, and of a right number put next to a sign word it does not have.
var signPlants = []struct{ source, text, kind string }{
	{"0.1", "sales fell ⟨10%⟩", "sign"},
	{"-0.1", "sales rose ⟨10%⟩", "sign"},
	{"-0.1", "sales increased by ⟨10%⟩", "sign"},
	{"4321.5", "a credit of ⟨(4,321.50)⟩", "sign"},
	{"-10000", "up ⟨10,000⟩", "sign"},
	{"10000", "down ⟨10,000⟩", "sign"},
	{"10000", "⟨-10,000⟩", "sign"},
}

// inventions are numbers no cell printed: totals and differences the model
// worked out itself, in answers that otherwise quote the outputs.
var inventions = []struct {
	sources []Source
	text    string
}{
	{ledger, "| account | total |\n|---|---:|\n| 400000 | ⟨1,234,567.89⟩ |\n| **Total** | ⟨1,385,800.80⟩ |\n"},
	{ledger, "Together the four accounts total ⟨€1.39M⟩."},
	{ledger, "Account 400000 is ⟨1,135,802.49⟩ ahead of account 410000."},
	{variance, "North and West together added ⟨20,000⟩."},
	{variance, "North's growth beat West's by ⟨1.4 percentage points⟩."},
	{budget, "Engineering and Sales together overspent by ⟨15,800⟩."},
	{budget, "The average variance per department is ⟨2,762.63⟩."},
	{stores, "Berri 1 had ⟨217⟩ more visitors than Maisonneuve 2."},
}

// notClaims are texts whose numbers are all labels, identifiers, dates,
// numbering, code or the question's.
var notClaims = []struct{ question, text string }{
	{"", "In Q2 and H1 of FY2025, in 2024 and 2025."},
	{"", "Berri 1 and Maisonneuve 2 are the busiest counters."},
	{"", "Cost centre 4400 and account 400000 and Konto 410000 and Kostenstelle 4410."},
	{"", "As of 2025-06-30, 30.06.2025, 06/30/2025 and 2025-06-30T12:00:00Z."},
	{"", "At 10:30, at 10:30:15, at 3pm and at 3:45 pm."},
	{"", "On March 3, 2026, on 3 March 2026, in March 2026, on 12. März 2026."},
	{"", "1. First\n2. Second\n10) Tenth\n"},
	{"", "## 1. Overview\n### 2.3 Details\n# Step 4: run\n"},
	{"", "Run `df.head(5)` or\n```\nx = 12345.6\nprint(x * 100)\n```\n"},
	{"", "See the 2nd and 3rd rows and the 10th column, a 12-month view, COVID-19, x86 and 3D."},
	{"", "Version 1.2.3 and #42 and ref 12345678 and invoice 7788 and document 5100000001."},
	{"Show the top 5 accounts and the 3 largest cost centres", "Here are the top 5 accounts and the 3 largest cost centres."},
	{"What changed by more than 10%?", "Regions that changed by more than 10%:"},
	{"", "See [the docs](https://example.com/v2/page?id=123) and <https://example.org/2025/07>."},
	{"", "| year | quarter | store |\n|---|---|---|\n| 2025 | 2 | 14 |\n"},
	{"", "Week 12 and page 3 and row 5 and cell 2 and line 40."},
	{"", "Saved figures/cell1-1.png, /output/v2.csv and tables/cell3.csv (sheet 2 of budget_2025.xlsx)."},
	{"", "Values are in EUR for FY 2025 (Jan–Dec), due by 15 January 2026, from Q1 2025 to Q4 2025."},
}

// TestGroundingRates is the test set: right claims grounded (false flags
// at most 2%), planted wrong numbers flagged (at least 95%), labels and
// dates never listed. It prints the rates that docs/usage.md records.
func TestGroundingRates(t *testing.T) {
	var right, rightOK, planted, plantedOK, extra int
	check := func(name string, in Input, v variant) {
		cs := Check(in)
		if got := claimTexts(cs); !slices.Equal(got, v.claims) {
			t.Errorf("%s: claims %q, want %q\nanswer: %s\n%s", name, got, v.claims, in.Answer, show(cs))
			extra += max(0, len(got)-len(v.claims))
			return
		}
		for k, c := range cs {
			if k == v.planted {
				planted++
				if !c.Grounded {
					plantedOK++
				} else {
					t.Errorf("%s: planted %s %q grounded in %s\nanswer: %s", name, v.kind, c.Text, *c.Source, in.Answer)
				}
				continue
			}
			if v.planted >= 0 {
				continue // counted once, in the right answer
			}
			right++
			if c.Grounded {
				rightOK++
			} else {
				t.Errorf("%s: right claim %q not grounded\nanswer: %s\n%s", name, c.Text, in.Answer, show(cs))
			}
		}
	}
	for _, sc := range scenarios {
		for i, tmpl := range sc.answers {
			for _, v := range variants(tmpl) {
				if v.kind == "none" {
					continue
				}
				check(fmt.Sprintf("%s/%d/%s", sc.name, i, v.kind), Input{Answer: v.answer, Question: sc.question, Sources: sc.sources, Thousands: sc.thousands}, v)
			}
		}
	}
	for i, f := range formats {
		var rows [][]string
		for _, v := range strings.Fields(f.source) {
			rows = append(rows, []string{v})
		}
		src := []Source{tableSrc(1, table("", nil, []string{"x"}, []string{f64}, rows...))}
		for _, v := range variants(f.tmpl) {
			if v.kind == "none" {
				continue
			}
			check(fmt.Sprintf("format/%d/%s", i, v.kind), Input{Answer: v.answer, Sources: src}, v)
		}
	}
	for i, p := range signPlants {
		src := []Source{tableSrc(1, table("", []string{"0"}, []string{"x"}, []string{f64}, []string{p.source}))}
		v := variants(p.text)[0]
		v.planted, v.kind = 0, p.kind
		check(fmt.Sprintf("sign/%d", i), Input{Answer: v.answer, Sources: src}, v)
	}
	for i, p := range inventions {
		v := variants(p.text)[0]
		v.planted, v.kind = len(v.claims)-1, "invented" // the last marked number
		check(fmt.Sprintf("invented/%d", i), Input{Answer: v.answer, Sources: p.sources}, v)
	}
	for i, n := range notClaims {
		srcs := append(append([]Source{}, ledger...), stores...)
		cs := Check(Input{Answer: n.text, Question: n.question, Sources: srcs})
		if len(cs) > 0 {
			extra += len(cs)
			t.Errorf("not claims %d: listed %q in %q", i, claimTexts(cs), n.text)
		}
	}
	pairs := right + planted + len(notClaims) // each right claim once, each plant, each text of labels
	falseFlags := 100 * float64(right-rightOK) / float64(right)
	caught := 100 * float64(plantedOK) / float64(planted)
	t.Logf("test set: %d pairs; right claims %d, grounded %d (false flags %.1f%%); planted %d, flagged %d (%.1f%%); labels and dates listed: %d",
		pairs, right, rightOK, falseFlags, planted, plantedOK, caught, extra)
	if pairs < 200 {
		t.Errorf("the test set has %d pairs, want at least 200", pairs)
	}
	if falseFlags > 2 || caught < 95 || extra > 0 {
		t.Errorf("false flags %.1f%% (want ≤ 2%%), planted flagged %.1f%% (want ≥ 95%%), labels listed %d (want 0)", falseFlags, caught, extra)
	}
}

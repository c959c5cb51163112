package ground

import (
	"fmt"
	"slices"
	"testing"

	"github.com/quarry-cli/quarry/kernel"
)

// heldOut is a second test set, written after the rules of this package
// were settled: other phrasings, other tables. Its first run missed one
// planted number (a row "Feb" named "February" in the answer), which led to
// month names and comparison words in the row rules; docs/usage.md records
// both runs.
var heldOutSources = []Source{
	tableSrc(1, table("month", []string{"Jan", "Feb", "Mar", "Apr"},
		[]string{"orders", "revenue", "avg_order", "mom"}, []string{i64, f64, f64, f64},
		[]string{"1520", "48211.75", "31.718256578947367", "nan"},
		[]string{"1388", "45102.2", "32.494380403458215", "-0.06449"},
		[]string{"1710", "57233.0", "33.469590643274856", "0.26897"},
		[]string{"1655", "55980.4", "33.82501510574018", "-0.02189"})),
	printed(2, "total orders 6273\ntotal revenue 206527.35\nbest month: Mar (57,233.00)\nchurn rate 4.81%\n"),
	tableSrc(3, table("", []string{"0", "1", "2"},
		[]string{"customer_id", "segment", "lifetime_value"}, []string{i64, obj, f64},
		[]string{"10017", "Enterprise", "125400.0"},
		[]string{"10342", "SMB", "8350.5"},
		[]string{"20991", "Consumer", "612.25"})),
	FromProfile(kernel.Profile{Name: "orders_2025.csv", Rows: 6273, Columns: make([]kernel.Column, 9)}),
}

var heldOut = []string{
	"Revenue peaked in **March** at ⟨57,233.00|57,323.00|transposed⟩ from ⟨1,710|1,701|transposed⟩ orders, a jump of ⟨26.9%|29.6%|transposed⟩ over February.",
	"February was the weakest month: ⟨45,102.20|48,211.75|neighbour⟩ in revenue, down ⟨6.4%|6.5%|rounding⟩ on January.",
	"Across the quarter-and-a-bit the shop took ⟨$206.5k|$206.6k|rounding⟩ on ⟨6,273⟩ orders; the average order grew from ⟨$31.72⟩ in January to ⟨$33.83|$33.38|transposed⟩ in April.",
	"April dipped ⟨2.2%|2.2%|none⟩ against March, with revenue of ⟨55,980.40|55,980.40|none⟩.",
	"Churn stands at ⟨4.8%|8.4%|transposed⟩.",
	"| Month | Orders | Revenue |\n|:--|--:|--:|\n| Jan | ⟨1,520⟩ | ⟨48,211.75⟩ |\n| Feb | ⟨1,388|1,520|neighbour⟩ | ⟨45,102.20⟩ |\n| Mar | ⟨1,710⟩ | ⟨57,233.00|57,233.00|none⟩ |\n| **Sum** | ⟨6,273⟩ | ⟨206,527.35|206,572.35|transposed⟩ |\n",
	"Customer 10017 (Enterprise) has a lifetime value of ⟨€125,400|€125,040|transposed⟩, customer 10342 ⟨€8,350.50⟩.",
	"The file `orders_2025.csv` has ⟨6,273⟩ rows and ⟨9⟩ columns; the report covers 2025-01-01 to 2025-04-30.",
	"Month-over-month revenue changed by ⟨−6.45%|+6.45%|sign⟩, ⟨+26.90%⟩ and ⟨−2.19%|−2.91%|transposed⟩.",
}

// inventedHeldOut are numbers no cell printed, in the same setting.
var inventedHeldOut = []string{
	"Together January and March brought in ⟨105,444.75⟩.",
	"The average monthly revenue was ⟨51,631.84⟩.",
	"March beat February by ⟨12,130.80⟩.",
	"Enterprise customers are worth ⟨15.0⟩ times SMB ones.",
	"Customer 10017 is worth about ⟨15⟩ times customer 10342.",
}

func TestHeldOutRates(t *testing.T) {
	var right, rightOK, planted, plantedOK, wrongList int
	for i, tmpl := range append(heldOut, inventedHeldOut...) {
		for _, v := range variants(tmpl) {
			if v.kind == "none" {
				continue
			}
			if i >= len(heldOut) {
				v.planted, v.kind = len(v.claims)-1, "invented"
			}
			cs := Check(Input{Answer: v.answer, Question: "How did orders and revenue develop this year?", Sources: heldOutSources, Thousands: true})
			if got := claimTexts(cs); !slices.Equal(got, v.claims) {
				wrongList++
				t.Logf("held-out %d/%s: claims %q, want %q", i, v.kind, got, v.claims)
				continue
			}
			for k, c := range cs {
				switch {
				case k == v.planted:
					planted++
					if !c.Grounded {
						plantedOK++
					} else {
						t.Logf("held-out %d: planted %s %q grounded in %s", i, v.kind, c.Text, *c.Source)
					}
				case v.planted < 0:
					right++
					if c.Grounded {
						rightOK++
					} else {
						t.Logf("held-out %d: right claim %q not grounded", i, c.Text)
					}
				}
			}
		}
	}
	msg := fmt.Sprintf("held-out set: right claims grounded %d of %d, planted flagged %d of %d, answers whose claims were misread %d",
		rightOK, right, plantedOK, planted, wrongList)
	t.Log(msg)
	if right == 0 || planted == 0 || 100*(right-rightOK) > 2*right || 100*plantedOK < 95*planted || wrongList > 0 {
		t.Error(msg + ": want false flags ≤ 2%, planted flagged ≥ 95%, none misread")
	}
}

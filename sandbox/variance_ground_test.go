package sandbox_test

import (
	"testing"

	"github.com/quarry-cli/quarry/ground"
)

// The commentary on a variance table grounds in the cells that showed it,
// as the system prompt has the model show it: the whole table printed, the
// material lines as the cell's value. A number no cell showed does not.
func TestVarianceCommentaryGrounds(t *testing.T) {
	s := sharedSession(t)
	path := pyStr(attach(t, "quickbooks_budget_vs_actuals.csv"))
	first := cell(t, s, "v = variance("+path+")\nprint(v.to_string())")
	cellOK(t, first)
	second := cell(t, s, "v[v.material]")
	cellOK(t, second)
	if second.Value == nil || second.Value.Table == nil {
		t.Fatalf("the material lines are no table: %+v", second.Value)
	}
	answer := `Net income came in at **$1,242,626.94** against a budget of $1,221,650.00: **$20,976.94 better** (+1.7%).

Material lines (5% of budget or more):

| Line | Actual | Budget | Variance | % |
|---|---:|---:|---:|---:|
| Cost of Goods Sold | 240,505.00 | 228,000.00 | +12,505.00 | +5.5% |
| Maintenance and Repair (Labor) | 59,500.00 | 71,000.00 | −11,500.00 | −16.2% |
| Interest Earned | 1,245.30 | 900.00 | +345.30 | +38.4% |

- Cost of Goods Sold ran 12,505.00 over budget (5.48%), worse: it grew faster than sales.
- Miscellaneous had no budget and came to 816.00.
- Rent or Lease was exactly on budget at 36,000.00.`
	claims := ground.Check(ground.Input{Answer: answer, Sources: append(ground.FromResult(1, first), ground.FromResult(2, second)...), Thousands: true})
	if len(claims) < 15 {
		t.Fatalf("only %d claims found in the commentary", len(claims))
	}
	for _, c := range ground.Unverified(claims) {
		t.Errorf("%q is not grounded in the cells that showed the table", c.Text)
	}

	// A number no cell showed stays unverified: the check can fail.
	wrong := ground.Check(ground.Input{Answer: "Cost of Goods Sold ran 12,605.00 over budget.", Sources: ground.FromResult(1, first), Thousands: true})
	if len(wrong) != 1 || wrong[0].Grounded {
		t.Errorf("a made-up variance grounded: %+v", wrong)
	}
}

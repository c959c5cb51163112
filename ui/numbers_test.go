package ui

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/ground"
	"github.com/quarry-cli/quarry/kernel"
)

const numbersAnswer = "**East** leads with 15,000.00, then North with 1,200.50; together they make 16,500 (94.2% of the total)."

// checkedTurn is a turn whose answer quotes two values of its table and
// works out two more, checked as the session checks them.
func checkedTurn(m *Model) {
	typeText(m, "Which region leads?")
	m.Update(press("enter"))
	res := &kernel.Result{Duration: 900 * time.Millisecond, Value: &kernel.Value{Repr: "table", Table: sampleTable()}}
	nums := ground.Check(ground.Input{Answer: numbersAnswer, Question: "Which region leads?", Sources: ground.FromResult(1, *res), Thousands: true})
	feed(m,
		agent.Event{Kind: agent.EventCellStart, Cell: 1, Code: "df.groupby('region')['revenue'].sum()", Time: fixedNow.Add(-time.Second)},
		agent.Event{Kind: agent.EventCellDone, Cell: 1, Result: res},
		agent.Event{Kind: agent.EventText, Text: numbersAnswer},
		agent.Event{Kind: agent.EventTurnDone, Text: numbersAnswer, Numbers: nums},
	)
	m.Update(inboxMsg{turnEndMsg{turn: m.turn}})
}

// noColorEnv is the test environment with NO_COLOR set.
func noColorEnv(dark bool) func(string) string {
	return func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return testEnv(dark)(k)
	}
}

// answeredTurn is a question whose cell returned sampleTable and whose
// answer's numbers are checked against it as the session checks them.
func answeredTurn(m *Model, question, answer string) []ground.Claim {
	typeText(m, question)
	m.Update(press("enter"))
	res := &kernel.Result{Value: &kernel.Value{Repr: "table", Table: sampleTable()}}
	nums := ground.Check(ground.Input{Answer: answer, Question: question, Sources: ground.FromResult(1, *res)})
	feed(m, agent.Event{Kind: agent.EventCellDone, Cell: 1, Result: res}, agent.Event{Kind: agent.EventTurnDone, Text: answer, Numbers: nums})
	m.Update(inboxMsg{turnEndMsg{turn: m.turn}})
	return nums
}

// numbersWidths are the widths the numbers' goldens are drawn at.
var numbersWidths = []int{40, 80, 120, 200}

// The unverified numbers are marked in the answer and listed under it;
// ctrl+g steps through all numbers with their sources, the one it is on
// highlighted in the answer; with NO_COLOR the marks and the highlight
// stay (brackets, underline, reverse video), only colours go.
func TestNumbersGolden(t *testing.T) {
	for _, w := range numbersWidths {
		for _, dark := range []bool{false, true} {
			bg := "light"
			if dark {
				bg = "dark"
			}
			for _, nc := range []bool{false, true} {
				env, prefix := testEnv(dark), ""
				if nc {
					env, prefix = noColorEnv(dark), "nocolor_"
				}
				for _, view := range []bool{false, true} {
					kind := "marks"
					if view {
						kind = "view"
					}
					t.Run(fmt.Sprintf("%s%s_%dx24_%s", prefix, kind, w, bg), func(t *testing.T) {
						m, _ := newTestModelEnv(t, w, 24, dark, env)
						checkedTurn(m)
						if view {
							m.Update(press("ctrl+g"))
							m.Update(press("ctrl+g"))
							m.Update(press("ctrl+g"))
						}
						var b bytes.Buffer
						out := &colorprofile.Writer{Forward: &b, Profile: colorProfile(env)}
						out.WriteString(screen(m))
						golden.RequireEqual(t, b.String())
					})
				}
			}
		}
	}
}

func TestNumbersMarksAndView(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, false)
	checkedTurn(m)
	plain := ansi.Strip(screen(m))
	for _, want := range []string{"⟦16,500⟧", "⟦94.2%⟧", "⟦⟧ 2 numbers are in no cell's output: 16,500, 94.2% · ctrl+g: sources"} {
		if !strings.Contains(plain, want) {
			t.Errorf("the screen lacks %q:\n%s", want, plain)
		}
	}
	if strings.Contains(plain, "⟦15,000.00") || strings.Contains(plain, "⟦1,200.50") || strings.Contains(plain, "16,500?") || strings.Contains(plain, "94.2%?") {
		t.Errorf("a grounded number is marked, or a mark reads as a question:\n%s", plain)
	}
	if !strings.Contains(screen(m), underlineOn+unverifiedOpen+"16,500") {
		t.Errorf("16,500 is not underlined: %q", screen(m))
	}
	steps := []string{
		"▸ 15,000.00  ✓ cell 1 · table row 2, column revenue: 15000.0",
		"▸ 1,200.50  ✓ cell 1 · table row 0, column revenue: 1200.5",
		"▸ 16,500  ⟦⟧ unverified: in no cell's output",
		"▸ 94.2%  ⟦⟧ unverified: in no cell's output",
		"▸ 15,000.00  ✓ cell 1",
	}
	for i, want := range steps {
		m.Update(press("ctrl+g"))
		if got := ansi.Strip(screen(m)); !strings.Contains(got, want) {
			t.Errorf("step %d: the view lacks %q:\n%s", i+1, want, got)
		}
	}
	m.Update(press("esc"))
	if strings.Contains(ansi.Strip(screen(m)), "Numbers: ") {
		t.Error("esc did not close the numbers view")
	}
}

// highlighted is the text drawn in reverse video in the answer (the status
// bar aside), "" when none is.
func highlighted(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for {
			i := strings.Index(l, reverseOn)
			if i < 0 {
				break
			}
			j := strings.Index(l[i:], reverseOff)
			if j < 0 {
				break
			}
			out = append(out, ansi.Strip(l[i:i+j]))
			l = l[i+j:]
		}
	}
	return strings.Join(out, "|")
}

// Ctrl+G highlights in the answer the number the view is on, also under
// NO_COLOR; closing the view takes the highlight away.
func TestCtrlGHighlightsTheNumber(t *testing.T) {
	for _, env := range []func(string) string{testEnv(false), noColorEnv(false)} {
		m, _ := newTestModelEnv(t, 80, 24, false, env)
		checkedTurn(m)
		if got := highlighted(screen(m)); got != "" {
			t.Fatalf("highlighted before ctrl+g: %q", got)
		}
		for _, want := range []string{" 15,000.00 ", " 1,200.50 ", "⟦16,500⟧", "⟦94.2%⟧", " 15,000.00 "} {
			m.Update(press("ctrl+g"))
			var b bytes.Buffer
			w := &colorprofile.Writer{Forward: &b, Profile: colorProfile(env)}
			w.WriteString(screen(m))
			if got := highlighted(b.String()); got != want {
				t.Errorf("highlighted %q, want %q:\n%s", got, want, ansi.Strip(b.String()))
			}
		}
		m.Update(press("esc"))
		if got := highlighted(screen(m)); got != "" {
			t.Errorf("highlighted after esc: %q", got)
		}
	}
}

// A long answer: ctrl+g scrolls the number it is on into view, up to the
// first one, down to the last, and from a view scrolled elsewhere.
func TestCtrlGScrollsToTheNumber(t *testing.T) {
	m, _ := newTestModel(t, 80, 20, false)
	var b strings.Builder
	b.WriteString("East leads with 15,000.00.\n\n")
	for i := 0; i < 30; i++ {
		b.WriteString("A paragraph of words with no numbers in it at all.\n\n")
	}
	b.WriteString("North follows with 1,200.50; both make 16,200.50.\n")
	answeredTurn(m, "Which region leads?", b.String())
	visible := func(n string) bool {
		for _, l := range strings.Split(screen(m), "\n") {
			if strings.Contains(l, reverseOn) && strings.Contains(ansi.Strip(l), n) {
				return true
			}
		}
		return false
	}
	if strings.Contains(ansi.Strip(screen(m)), "15,000.00") {
		t.Fatalf("the first number is on screen before ctrl+g: the test needs a longer answer")
	}
	m.Update(press("ctrl+g"))
	if !visible("15,000.00") {
		t.Errorf("ctrl+g did not bring 15,000.00 into view:\n%s", ansi.Strip(screen(m)))
	}
	m.Update(press("ctrl+g"))
	if !visible("1,200.50") {
		t.Errorf("ctrl+g did not bring 1,200.50 into view:\n%s", ansi.Strip(screen(m)))
	}
	m.Update(press("esc"))
	m.Update(press("pgup"))
	m.Update(press("pgup"))
	m.Update(press("ctrl+g"))
	m.Update(press("up"))
	if !visible("16,200.50") {
		t.Errorf("↑ from the first number did not bring the last one into view:\n%s", ansi.Strip(screen(m)))
	}
}

// The footer keeps its hint to ctrl+g whole at every width, listing as
// many numbers as fit.
func TestUnverifiedFooterKeepsItsHint(t *testing.T) {
	var un []ground.Claim
	for _, n := range []string{"270,000", "1,234,567.89", "33.3%", "12.5%", "98,765.40", "4,321.50", "7,000"} {
		un = append(un, ground.Claim{Text: n})
	}
	for _, w := range numbersWidths {
		for _, k := range []int{1, 2, len(un)} {
			got := unverifiedFooter(un[:k], w)
			if ansi.StringWidth(got) > w || !strings.HasSuffix(got, "ctrl+g: sources") || !strings.Contains(got, unverifiedOpen+unverifiedClose) {
				t.Errorf("width %d, %d numbers: %q", w, k, got)
			}
			if (w >= 200 || w >= 80 && k <= 2) && !strings.Contains(got, un[k-1].Text) {
				t.Errorf("width %d, %d numbers: %q leaves numbers out", w, k, got)
			}
		}
	}
}

// A mark inside a Markdown table keeps the table's columns aligned.
func TestMarksKeepTablesAligned(t *testing.T) {
	m, _ := newTestModel(t, 80, 30, false)
	nums := answeredTurn(m, "Revenue by region?", "| region | revenue |\n|---|---:|\n| North | 1,200.50 |\n| East | 15,000.00 |\n| **Total** | 16,200.50 |\n")
	if len(ground.Unverified(nums)) != 1 {
		t.Fatalf("numbers %+v, want the total unverified", nums)
	}
	for _, press2 := range []string{"", "ctrl+g"} {
		if press2 != "" {
			m.Update(press(press2))
		}
		widths := map[int]bool{}
		var rows []string
		for _, l := range strings.Split(ansi.Strip(screen(m)), "\n") {
			if strings.Contains(l, "│") && !strings.HasPrefix(strings.TrimSpace(l), "│") { // the answer's table, not the cell's
				widths[ansi.StringWidth(l)] = true
				rows = append(rows, l)
			}
		}
		if len(rows) != 4 || len(widths) != 1 || !strings.Contains(strings.Join(rows, "\n"), "⟦16,200.50⟧") {
			t.Errorf("after %q the table's rows are not aligned:\n%s", press2, strings.Join(rows, "\n"))
		}
	}
}

// verify = ask: the draft is dropped when the session asks again, and the
// revised answer stands alone.
func TestReviseDropsTheDraft(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, false)
	typeText(m, "Which region leads?")
	m.Update(press("enter"))
	feed(m,
		agent.Event{Kind: agent.EventText, Text: "Draft: the total is 99,999."},
		agent.Event{Kind: agent.EventRevise, Text: "1 number of the answer is in no cell's output (99,999): the model is asked once to compute them in a cell or drop them"},
		agent.Event{Kind: agent.EventText, Text: "Revised answer."},
		agent.Event{Kind: agent.EventTurnDone, Text: "Revised answer.", Numbers: []ground.Claim{}},
	)
	m.Update(inboxMsg{turnEndMsg{turn: m.turn}})
	got := ansi.Strip(screen(m))
	if strings.Contains(got, "Draft:") || !strings.Contains(got, "Revised answer.") || !strings.Contains(got, "the model is asked") {
		t.Errorf("screen:\n%s", got)
	}
}

func TestMarkedAnswerKeepsOffsetsAndDropsForgedMarks(t *testing.T) {
	md := "a \ue000x\ue001 12.5% and 7"
	cs := ground.Check(ground.Input{Answer: md})
	got := markedAnswer(md, cs, -1)
	want := "a x \ue00012.5%\ue001 and \ue0007\ue001"
	if got != want {
		t.Errorf("markedAnswer = %q, want %q (claims %+v)", got, want, cs)
	}
	lines, cur := applyMarks([]string{"x \ue000" + "12\x1b[0m.5%\ue001 y"}, "W")
	if lines[0] != "x W"+underlineOn+"⟦12\x1b[0mW"+underlineOn+".5%⟧"+markOff+" y" || cur != -1 {
		t.Errorf("applyMarks = %q, %d", lines[0], cur)
	}
}

// A resumed session's answers keep the marks they had: the record holds
// the numbers as checked then.
func TestResumedAnswerKeepsItsMarks(t *testing.T) {
	turns := pastTurns(t)
	turns[0].Answer = "North leads with **90,000**, about 93% of it."
	turns[0].Numbers = ground.Check(ground.Input{Answer: turns[0].Answer, Sources: []ground.Source{{Cell: 1, Kind: ground.Stdout, Text: "north 90000\n"}}})
	m, _ := resumedModel(t, &Resume{ID: "20261129-173235-3761b5", Turns: turns, Restore: (&restoreLog{}).restore})
	got := ansi.Strip(screen(m))
	if !strings.Contains(got, "⟦93%⟧") || strings.Contains(got, "⟦90,000") || !strings.Contains(got, "⟦⟧ 1 number is in no cell's output: 93%") {
		t.Errorf("the resumed answer is not marked as checked:\n%s", got)
	}
	m.Update(press("ctrl+g"))
	if got := ansi.Strip(screen(m)); !strings.Contains(got, "▸ 90,000  ✓ cell 1 · stdout line 1: north 90000") {
		t.Errorf("the numbers view of a resumed answer:\n%s", got)
	}
}

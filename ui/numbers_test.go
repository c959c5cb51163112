package ui

import (
	"bytes"
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

// The unverified numbers are marked in the answer and listed under it;
// ctrl+g steps through all numbers with their sources.
func TestNumbersGolden(t *testing.T) {
	for _, dark := range []bool{false, true} {
		name := "light"
		if dark {
			name = "dark"
		}
		t.Run("marks_80x24_"+name, func(t *testing.T) {
			m, _ := newTestModel(t, 80, 24, dark)
			checkedTurn(m)
			golden.RequireEqual(t, screen(m))
		})
		t.Run("view_80x24_"+name, func(t *testing.T) {
			m, _ := newTestModel(t, 80, 24, dark)
			checkedTurn(m)
			m.Update(press("ctrl+g"))
			m.Update(press("ctrl+g"))
			golden.RequireEqual(t, screen(m))
		})
		// NO_COLOR: what the renderer writes keeps the marks (underline
		// and "?") and the footer; only colours go.
		t.Run("nocolor_80x24_"+name, func(t *testing.T) {
			env := func(k string) string {
				if k == "NO_COLOR" {
					return "1"
				}
				return testEnv(dark)(k)
			}
			m, _ := newTestModelEnv(t, 80, 24, dark, env)
			checkedTurn(m)
			var b bytes.Buffer
			w := &colorprofile.Writer{Forward: &b, Profile: colorProfile(env)}
			w.WriteString(screen(m))
			golden.RequireEqual(t, b.String())
		})
	}
}

func TestNumbersMarksAndView(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, false)
	checkedTurn(m)
	plain := ansi.Strip(screen(m))
	for _, want := range []string{"16,500?", "94.2%?", "? 2 numbers are in no cell's output: 16,500, 94.2%"} {
		if !strings.Contains(plain, want) {
			t.Errorf("the screen lacks %q:\n%s", want, plain)
		}
	}
	if strings.Contains(plain, "15,000.00?") || strings.Contains(plain, "1,200.50?") {
		t.Errorf("a grounded number is marked:\n%s", plain)
	}
	if !strings.Contains(screen(m), underlineOn+"16,500"+underlineOff) {
		t.Errorf("16,500 is not underlined: %q", screen(m))
	}
	steps := []string{
		"▸ 15,000.00  ✓ cell 1 · table row 2, column revenue: 15000.0",
		"▸ 1,200.50  ✓ cell 1 · table row 0, column revenue: 1200.5",
		"▸ 16,500  ? unverified: in no cell's output",
		"▸ 94.2%  ? unverified: in no cell's output",
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
	got := markedAnswer(md, cs)
	want := "a x \ue00012.5%\ue001 and \ue0007\ue001"
	if got != want {
		t.Errorf("markedAnswer = %q, want %q (claims %+v)", got, want, cs)
	}
	lines := applyMarks([]string{"x \ue000" + "12\x1b[0m.5%\ue001 y"})
	if lines[0] != "x "+underlineOn+"12\x1b[0m"+underlineOn+".5%"+underlineOff+"? y" {
		t.Errorf("applyMarks = %q", lines[0])
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
	if !strings.Contains(got, "93%?") || strings.Contains(got, "90,000?") || !strings.Contains(got, "? 1 number is in no cell's output: 93%") {
		t.Errorf("the resumed answer is not marked as checked:\n%s", got)
	}
	m.Update(press("ctrl+g"))
	if got := ansi.Strip(screen(m)); !strings.Contains(got, "▸ 90,000  ✓ cell 1 · stdout line 1: north 90000") {
		t.Errorf("the numbers view of a resumed answer:\n%s", got)
	}
}

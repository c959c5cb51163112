package ui

import (
	"errors"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
)

// TestUntrustedSinksAreSanitized covers the places the first sanitizer test
// does not: file names in chips and /files, profile text, column names and
// cells (transcript and full-screen table), figure paths in OSC 8 links,
// notices built from error strings, start-up progress, the model name and
// the completion hint.
func TestUntrustedSinksAreSanitized(t *testing.T) {
	const evil = "\x1b]0;pwned\x07\x1b[2J\u202e\x1b]8;;http://evil\x1b\\"
	bad := []string{"\x1b]0;", "\x1b[2J", "\u202e", "\x07", "http://evil"}
	check := func(where, s string) {
		t.Helper()
		for _, b := range bad {
			if strings.Contains(s, b) {
				t.Errorf("%s: untrusted %q reached the screen", where, b)
			}
		}
	}
	m, _ := newTestModel(t, 100, 60, true)
	m.status.sandbox, m.status.progress, m.status.model = "starting", "pulling "+evil, "gpt"+evil
	m.status.hint = "a.csv " + evil
	check("status", screen(m))
	m.status.sandbox, m.status.hint = "ready", ""

	m.chips.adding("/d/" + evil + ".csv")
	attachedAs(m, "/d/"+evil+".csv", kernel.Profile{Name: evil, Path: "/d/" + evil, Kind: evil, Columns: []kernel.Column{{Name: evil}}})
	m.Update(attachedMsg{path: "/d/x.csv", err: errors.New("cannot read " + evil)})
	m.slash("/files")
	tbl := &kernel.Table{Columns: []string{evil}, IndexName: evil, Index: []string{evil}, Head: [][]string{{evil}}, Rows: 1, Cols: 1}
	typeText(m, "q")
	m.Update(press("enter"))
	feed(m, agent.Event{Kind: agent.EventCellStart, Cell: 1, Code: "x"},
		agent.Event{Kind: agent.EventCellDone, Cell: 1, Result: &kernel.Result{
			Value:   &kernel.Value{Table: tbl},
			Figures: []kernel.File{{Name: evil, Path: "/out/" + evil + ".png"}},
			Files:   []kernel.File{{Name: evil, Path: "/out/" + evil + ".csv"}},
			Notes:   []string{evil}}})
	m.Update(inboxMsg{turnEndMsg{turn: m.turn, err: errors.New("model said " + evil)}})
	s := screen(m)
	check("transcript", s)
	for _, want := range []string{"figure /out/", "file /out/", "cannot read", "Attached files:", "model said", "1 row × 1 column"} {
		if !strings.Contains(plain(m), want) {
			t.Errorf("the screen lacks %q, so the check above proves little:\n%s", want, plain(m))
		}
	}
	m.Update(press("ctrl+t"))
	check("table viewer", m.View().Content)
}

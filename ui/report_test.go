package ui

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// fakeReport plans as the session's does: words checked first, the
// files named before they are written.
type fakeReport struct {
	args    []string
	written int
}

func (r *fakeReport) plan(arg string) (ReportPlan, error) {
	r.args = append(r.args, arg)
	files := map[string][]string{"": {"/s/report-2.xlsx", "/s/report-2.pdf"}, "html": {"/s/report.html"}, "q2 report.pdf": {"/elsewhere/q2 report.pdf"}}[arg]
	if files == nil {
		return ReportPlan{}, errors.New(arg + ": name xlsx, pdf or html, or a .xlsx, .pdf or .html file")
	}
	built := arg != "html"
	return ReportPlan{Files: files, Built: built, Write: func(context.Context) ([]string, error) {
		r.written++
		return files, nil
	}}, nil
}

// /report hands its words to Options.Report (paths unquoted), says what
// it writes only once they are checked, names only what it writes (html
// alone: no workbook, no PDF), and a refused argument announces nothing
// and writes nothing; while an answer runs it waits.
func TestReportCommand(t *testing.T) {
	r := &fakeReport{}
	m := New(context.Background(), Options{Backend: &fakeBackend{}, Theme: "dark", Getenv: testEnv(true), OutputDir: "/s", Report: r.plan})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(startedMsg{})
	run(t, m, "/report nonsense")
	if s := plain(m); strings.Contains(s, "Writing") || !strings.Contains(s, "/report: nonsense: name xlsx, pdf or html") || r.written != 0 {
		t.Fatalf("a refused argument was announced or written:\n%s", s)
	}
	run(t, m, "/report html")
	s := plain(m)
	if !strings.Contains(s, "Writing the report: report.html…") || strings.Contains(s, "workbook") || strings.Contains(s, "sandbox of its own") {
		t.Errorf("/report html announces other files:\n%s", s)
	}
	for _, in := range []string{"/report", "/report 'q2 report.pdf'"} {
		run(t, m, in)
	}
	if strings.Join(r.args, "|") != "nonsense|html||q2 report.pdf" {
		t.Errorf("report args %q", r.args)
	}
	s = plain(m)
	for _, want := range []string{
		"Writing the report: report-2.xlsx and report-2.pdf, built in a sandbox of its own…",
		"Writing the report: /elsewhere/q2 report.pdf, built in a sandbox of its own…",
		"Report written:", "/s/report-2.xlsx", "/s/report-2.pdf",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	if r.written != 3 {
		t.Errorf("%d reports written, want 3", r.written)
	}
	m.running = true
	run(t, m, "/report")
	if len(r.args) != 4 || !strings.Contains(m.status.hint, "An answer is running") {
		t.Errorf("a report while an answer ran: %q, hint %q", r.args, m.status.hint)
	}
}

// The demo's chat writes the report by itself once its question is
// answered, once, and not after a failed answer.
func TestReportAfterOpening(t *testing.T) {
	for _, failed := range []bool{false, true} {
		r := &fakeReport{}
		fb := &fakeBackend{}
		m := New(context.Background(), Options{Backend: fb, Theme: "dark", Getenv: testEnv(true), Ask: "the demo's question",
			ReportAfterAsk: true, Report: r.plan})
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
		_, cmd := m.Update(startedMsg{})
		drain(t, m, cmd)
		var err error
		if failed {
			err = errors.New("model down")
		}
		_, cmd = m.Update(inboxMsg{turnEndMsg{turn: m.turn, err: err}})
		drain(t, m, cmd)
		_, cmd = m.Update(inboxMsg{turnEndMsg{turn: m.turn}})
		drain(t, m, cmd)
		if want := map[bool]int{false: 1, true: 0}[failed]; r.written != want {
			t.Errorf("failed %v: the report was written %d times, want %d", failed, r.written, want)
		}
	}
}

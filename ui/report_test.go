package ui

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// /report hands its words to Options.Report (paths unquoted) and names
// the files written, or the error; while an answer runs it waits.
func TestReportCommand(t *testing.T) {
	var got []string
	m := New(context.Background(), Options{Backend: &fakeBackend{}, Theme: "dark", Getenv: testEnv(true),
		Report: func(_ context.Context, arg string) ([]string, error) {
			got = append(got, arg)
			if arg == "docx" {
				return nil, errors.New("docx: name xlsx, pdf or html")
			}
			return []string{"/s/report.xlsx", "/s/report.pdf"}, nil
		}})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	m.Update(startedMsg{})
	for _, in := range []string{"/report", "/report xlsx html", "/report 'q2 report.pdf'", "/report docx"} {
		typeText(m, in)
		_, cmd := m.Update(press("enter"))
		drain(t, m, cmd)
	}
	if strings.Join(got, "|") != "|xlsx html|q2 report.pdf|docx" {
		t.Errorf("report args %q", got)
	}
	s := plain(m)
	for _, want := range []string{"Report written:", "/s/report.xlsx", "/s/report.pdf", "/report: docx: name xlsx, pdf or html"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	m.running = true
	typeText(m, "/report")
	_, cmd := m.Update(press("enter"))
	drain(t, m, cmd)
	if len(got) != 4 || !strings.Contains(m.status.hint, "An answer is running") {
		t.Errorf("a report while an answer ran: %q, hint %q", got, m.status.hint)
	}
}

// The demo's chat writes the report by itself once its question is
// answered, once, and not after a failed answer.
func TestReportAfterOpening(t *testing.T) {
	for _, failed := range []bool{false, true} {
		calls := 0
		fb := &fakeBackend{}
		m := New(context.Background(), Options{Backend: fb, Theme: "dark", Getenv: testEnv(true), Ask: "the demo's question",
			ReportAfterAsk: true, Report: func(context.Context, string) ([]string, error) {
				calls++
				return []string{"/s/report.xlsx"}, nil
			}})
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
		if want := map[bool]int{false: 1, true: 0}[failed]; calls != want {
			t.Errorf("failed %v: the report was written %d times, want %d", failed, calls, want)
		}
	}
}

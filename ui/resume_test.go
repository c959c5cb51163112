package ui

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
)

type restoreLog struct {
	mu     sync.Mutex
	calls  []map[string]string
	inputs []RestoredInput
	err    error
	fb     *fakeBackend // the session the inputs are attached in, as Restore does
}

func (r *restoreLog) restore(_ context.Context, paths map[string]string) ([]RestoredInput, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, paths)
	if r.fb != nil {
		r.fb.mu.Lock()
		for _, in := range r.inputs {
			r.fb.files = append(r.fb.files, in.Profile)
		}
		r.fb.mu.Unlock()
	}
	return r.inputs, r.err
}

func (r *restoreLog) n() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

func pastTurns(t *testing.T) []agent.PastTurn {
	var b bytes.Buffer
	png.Encode(&b, gradient(40, 20))
	return []agent.PastTurn{{
		Question: "revenue by region?",
		Cells: []agent.PastCell{{Num: 1, Code: "v = df.groupby('region').revenue.sum()", Result: kernel.Result{
			Duration: 300 * time.Millisecond, Value: &kernel.Value{Repr: "t", Table: sampleTable()},
			Figures: []kernel.File{{Name: "figures/cell1-1.png", Path: "/s/figures/cell1-1.png", PNG: b.Bytes()}}}},
			{Num: 2, Code: "v['x']", Result: kernel.Result{Error: &kernel.Error{Kind: kernel.ErrException, Type: "KeyError", Message: "'x'"}}}},
		Answer: "North leads with **90,000**.",
	}}
}

func resumedModel(t *testing.T, r *Resume) (*Model, tea.Cmd) {
	m := New(context.Background(), Options{Backend: &fakeBackend{}, Theme: "dark", Images: "blocks", Getenv: testEnv(true),
		Now: func() time.Time { return fixedNow }, Resume: r,
		CheckFile: func(p string) error {
			if strings.Contains(p, "nope") {
				return errors.New(p + ": no such file")
			}
			return nil
		}})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 60})
	drain(t, m, tea.Batch(m.pastCmds...))
	m.pastCmds = nil
	_, cmd := m.Update(startedMsg{})
	return m, cmd
}

// The resumed conversation is on screen as it was, figures included; the
// kernel is rebuilt after the start, and questions wait for it.
func TestResumeShowsPastAndRestores(t *testing.T) {
	log := &restoreLog{}
	m, cmd := resumedModel(t, &Resume{ID: "20261129-173235-3761b5", Turns: pastTurns(t), Restore: log.restore})
	s := plain(m)
	for _, want := range []string{"revenue by region?", "cell 1", "North", "1200.5", "✗ cell 2", "KeyError", "North leads with 90,000",
		"figure", "Resumed session 20261129-173235-3761b5: 1 question, 2 cells"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if b := m.cells[1]; b == nil || len(b.cell.figures) != 1 || b.cell.figures[0].img == nil {
		t.Error("the past figure was not decoded")
	}
	typeText(m, "and by month?")
	m.Update(press("enter"))
	if m.running || !strings.Contains(m.status.hint, "being resumed") {
		t.Errorf("a question went out before the kernel was rebuilt (hint %q)", m.status.hint)
	}
	drain(t, m, cmd)
	if log.n() != 1 || len(log.calls[0]) != 0 {
		t.Fatalf("restore calls %+v", log.calls)
	}
	if !strings.Contains(plain(m), "Kernel rebuilt") || m.resuming != nil {
		t.Errorf("no end of the restore:\n%s", plain(m))
	}
	m.input.setValue("and by month?")
	m.Update(press("enter"))
	if !m.running {
		t.Error("the question did not go out after the restore")
	}
	m.Update(press("esc"))
	m.input.reset()
	m.Update(press("up"))
	if m.input.value() != "and by month?" {
		t.Errorf("history: %q", m.input.value())
	}
}

// A changed input is asked about before anything runs: Enter keeps the
// file as it is now, a path names another, a bad path is said and asked
// again; a vanished file needs a path.
func TestResumeAsksAboutChangedInputs(t *testing.T) {
	log := &restoreLog{err: errors.New("rebuilding the kernel stopped: cell 1 (1 of 1) failed: KeyError: 'revenue'; the cells before it ran")}
	m, cmd := resumedModel(t, &Resume{ID: "s", Turns: pastTurns(t), Restore: log.restore, Changed: []ChangedInput{
		{Name: "q1.csv", Path: "/srv/q1.csv", Problem: "has changed since the session (122 B then, 130 B now)"},
		{Name: "q2.csv", Path: "/srv/q2.csv", Problem: "is gone", Gone: true},
	}})
	drain(t, m, cmd)
	if !strings.Contains(plain(m), "q1.csv: /srv/q1.csv has changed since the session") || log.n() != 0 {
		t.Fatalf("not asked about q1.csv:\n%s", plain(m))
	}
	// The keys are said where the eye is: the hint line and the input.
	if s := plain(m); !strings.Contains(s, "enter: use q1.csv as it is now · or type a path, then enter") ||
		!strings.Contains(s, "› Enter uses q1.csv as it is now; or type the path of another file") {
		t.Fatalf("the keys are not said:\n%s", s)
	}
	_, cmd = m.Update(press("enter"))
	drain(t, m, cmd)
	if !strings.Contains(plain(m), "q2.csv: /srv/q2.csv is gone.") || !strings.Contains(plain(m), "Type the path of the file to use instead") {
		t.Fatalf("not asked about q2.csv:\n%s", plain(m))
	}
	_, cmd = m.Update(press("enter"))
	drain(t, m, cmd)
	if !strings.Contains(plain(m), "there is no file to use as it is now") || log.n() != 0 {
		t.Fatalf("an empty answer for a vanished file was taken:\n%s", plain(m))
	}
	typeText(m, "/srv/nope.csv")
	_, cmd = m.Update(press("enter"))
	drain(t, m, cmd)
	if !strings.Contains(plain(m), "/srv/nope.csv: no such file Type another path.") || log.n() != 0 {
		t.Fatalf("a bad path was taken:\n%s", plain(m))
	}
	typeText(m, "/srv/q2-moved.csv")
	_, cmd = m.Update(press("enter"))
	drain(t, m, cmd)
	if log.n() != 1 || log.calls[0]["q1.csv"] != "/srv/q1.csv" || log.calls[0]["q2.csv"] != "/srv/q2-moved.csv" {
		t.Fatalf("restore calls %+v", log.calls)
	}
	if s := plain(m); !strings.Contains(s, "rebuilding the kernel stopped: cell 1") || !strings.Contains(s, "The chat goes on") {
		t.Errorf("the replay failure is not shown:\n%s", s)
	}
	if s := plain(m); !strings.Contains(s, "› Ask about your data") {
		t.Errorf("the input does not take questions again:\n%s", s)
	}
	typeText(m, "what now?")
	m.Update(press("enter"))
	if !m.running {
		t.Error("the chat is not usable after a failed replay")
	}
}

func TestExportCommand(t *testing.T) {
	var got []string
	m := New(context.Background(), Options{Backend: &fakeBackend{}, Theme: "dark", Getenv: testEnv(true),
		Export: func(_ context.Context, path string) ([]string, error) {
			got = append(got, path)
			if path == "bad" {
				return nil, errors.New("bad: name a .ipynb, .md or .html file")
			}
			return []string{"/s/analysis.ipynb", "/s/report.md"}, nil
		}})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	m.Update(startedMsg{})
	for _, in := range []string{"/export", "/export 'my report.html'", "/export bad", "/export a.md b.html"} {
		typeText(m, in)
		_, cmd := m.Update(press("enter"))
		drain(t, m, cmd)
	}
	if strings.Join(got, "|") != "|my report.html|bad" { // two paths are refused before Export
		t.Errorf("export paths %q", got)
	}
	s := plain(m)
	if !strings.Contains(s, "Exported:") || !strings.Contains(s, "/s/report.md") || !strings.Contains(s, "/export: bad: name a") ||
		!strings.Contains(s, "/export takes one PATH: quote a name with spaces") {
		t.Errorf("screen:\n%s", s)
	}
}

// The resumed inputs are chips like attached ones: uploading while the
// restore runs, then with their shape, a changed one marked, and /files
// lists them.
func TestResumeShowsItsFiles(t *testing.T) {
	q1 := kernel.Profile{Name: "budget_q1.csv", Path: "/data/budget_q1.csv", Kind: "CSV", Size: 1740, Rows: 49, Columns: make([]kernel.Column, 4)}
	q2 := kernel.Profile{Name: "budget_q2.csv", Path: "/data/budget_q2.csv", Kind: "CSV", Size: 1700, Rows: 48, Columns: make([]kernel.Column, 4)}
	log := &restoreLog{inputs: []RestoredInput{{Path: "/srv/budget_q1.csv", Profile: q1, Changed: true}, {Path: "/srv/budget_q2.csv", Profile: q2}}}
	m, cmd := resumedModel(t, &Resume{ID: "s", Turns: pastTurns(t), Restore: log.restore,
		Inputs: []string{"/srv/budget_q1.csv", "/srv/budget_q2.csv"}})
	log.fb = m.opts.Backend.(*fakeBackend)
	if s := plain(m); !strings.Contains(s, "budget_q1.csv …") || !strings.Contains(s, "budget_q2.csv …") {
		t.Errorf("no uploading chips while the restore runs:\n%s", s)
	}
	drain(t, m, cmd)
	run(t, m, "/files")
	s := plain(m)
	for _, want := range []string{"budget_q1.csv 1.7 KiB · 49 × 4 · changed", "budget_q2.csv 1.7 KiB · 48 × 4",
		"Attached files:", "budget_q1.csv 1.7 KiB · 49 × 4 · changed — /data/budget_q1.csv (CSV)",
		"· 2 files (1 changed)"} { // the status bar
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "No files attached") || strings.Contains(s, "budget_q2.csv 1.7 KiB · 48 × 4 · changed") {
		t.Errorf("screen:\n%s", s)
	}
}

// A restore that attached nothing leaves no chip uploading forever.
func TestResumeDropsChipsItDidNotAttach(t *testing.T) {
	log := &restoreLog{err: errors.New("rebuilding the kernel stopped")}
	m, cmd := resumedModel(t, &Resume{ID: "s", Turns: pastTurns(t), Restore: log.restore, Inputs: []string{"/srv/gone.csv"}})
	drain(t, m, cmd)
	if s := plain(m); strings.Contains(s, "gone.csv") {
		t.Errorf("a chip of an input the restore did not attach:\n%s", s)
	}
}

// After the restore, a changed input's new shape is confirmed.
func TestResumeConfirmsAChangedInput(t *testing.T) {
	before := &kernel.Profile{Rows: 48, Columns: make([]kernel.Column, 4)}
	now := kernel.Profile{Name: "budget_q1.csv", Path: "/data/budget_q1.csv", Size: 862, Rows: 49, Columns: make([]kernel.Column, 4)}
	same := kernel.Profile{Name: "budget_q2.csv", Path: "/data/budget_q2.csv", Size: 845, Rows: 48, Columns: make([]kernel.Column, 4)}
	log := &restoreLog{inputs: []RestoredInput{{Path: "/srv/budget_q1.csv", Profile: now, Changed: true, Before: before},
		{Path: "/srv/budget_q2.csv", Profile: same, Before: before}}}
	m, cmd := resumedModel(t, &Resume{ID: "s", Turns: pastTurns(t), Restore: log.restore,
		Changed: []ChangedInput{{Name: "budget_q1.csv", Path: "/srv/budget_q1.csv", Problem: "has changed since the session: size 845 B then, 862 B now"}}})
	drain(t, m, cmd)
	_, cmd = m.Update(press("enter"))
	drain(t, m, cmd)
	s := plain(m)
	if !strings.Contains(s, "budget_q1.csv now 49 × 4 (48 × 4 in the earlier turns), read from /srv/budget_q1.csv.") {
		t.Errorf("no confirmation of the new shape:\n%s", s)
	}
	if strings.Contains(s, "budget_q2.csv now") {
		t.Errorf("an unchanged input confirmed as changed:\n%s", s)
	}
}

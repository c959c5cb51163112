package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// progressLog keeps the progress lines a session reported.
type progressLog struct {
	mu    sync.Mutex
	lines []string
}

func (p *progressLog) event(e agent.Event) {
	if e.Kind == agent.EventProgress {
		p.mu.Lock()
		p.lines = append(p.lines, e.Text)
		p.mu.Unlock()
	}
}

func (p *progressLog) text() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// recordTwoTurns runs a session of two turns on q1.csv: a cell that loads
// and plots, one that fails, one that builds on the first.
func recordTwoTurns(t *testing.T, ctx context.Context, data, index string) *Record {
	t.Helper()
	e := sandboxtest.Engine(t)
	srv := openaitest.New(t,
		openaitest.ToolCalls("df = pd.read_csv('/data/q1.csv')\ntotal = int(df.revenue.sum())\ndf.plot()\ndf.to_csv('copy.csv')\ntotal"),
		openaitest.ToolCalls("undefined_name"),
		openaitest.Text("The total is 270000."),
		openaitest.ToolCalls("doubled = total * 2\nprint(doubled)"),
		openaitest.Text("Doubled: 540000."),
	)
	s := New(Options{Config: testConfig(srv.URL, t.TempDir()), Engine: e, Index: index})
	defer s.Close()
	go s.Start(ctx)
	if _, err := s.Attach(ctx, data); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"total revenue?", "and doubled?"} {
		if _, err := s.Ask(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := FindSession(index, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// A resumed session has its files, its conversation in the model's
// context and its variables back; new cells and figures are numbered after
// the earlier ones, and the record goes on in the same folder.
func TestResumeRestoresKernelAndConversation(t *testing.T) {
	e := sandboxtest.Engine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	index := filepath.Join(t.TempDir(), "index")
	data := filepath.Join(t.TempDir(), "q1.csv")
	os.WriteFile(data, []byte("region,revenue\nNorth,90000\nSouth,80000\nWest,100000\n"), 0o644)
	rec := recordTwoTurns(t, ctx, data, index)
	if c := rec.CheckInputs(); len(c) != 1 || c[0].Problem != "" || c[0].Path != data {
		t.Fatalf("inputs %+v", c)
	}

	srv := openaitest.New(t, openaitest.ToolCalls("print(total, doubled, len(df))\ndf.plot()"), openaitest.Text("still here"))
	prog := &progressLog{}
	s := New(Options{Config: testConfig(srv.URL, t.TempDir()), Engine: e, Index: index, Resume: rec, Events: prog.event})
	defer s.Close()
	go s.Start(ctx)
	if err := s.Restore(ctx, nil); err != nil {
		t.Fatalf("Restore: %v\n%s", err, prog.text())
	}
	for _, want := range []string{"rebuilding the kernel: cell 1 of 2", "rebuilding the kernel: cell 2 of 2", "kernel rebuilt: 2 cells"} {
		if !strings.Contains(prog.text(), want) {
			t.Errorf("no progress %q in:\n%s", want, prog.text())
		}
	}
	if s.ID() != rec.ID || s.OutputDir() != rec.Dir {
		t.Errorf("resumed as %s in %s", s.ID(), s.OutputDir())
	}
	var done []agent.Event
	if _, err := s.Ask(ctx, "still there?", func(e agent.Event) {
		if e.Kind == agent.EventCellDone {
			done = append(done, e)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(done) != 1 || done[0].Cell != 4 || strings.TrimSpace(done[0].Result.Stdout) != "270000 540000 3" {
		t.Fatalf("cell after resume: %+v", done)
	}
	if f := done[0].Result.Figures; len(f) != 1 || f[0].Name != "figures/cell4-1.png" {
		t.Errorf("figure after resume %+v", f)
	}
	msgs := srv.ChatRequests()[0].Messages()
	if len(msgs) < 8 || msgs[1].Content != "total revenue?" || !strings.Contains(msgs[len(msgs)-2].Content, "Doubled") {
		t.Errorf("the model did not get the conversation back: %+v", msgs)
	}
	s.Close()
	again, err := LoadRecord(rec.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if turns := again.Turns(); len(turns) != 3 || turns[2].Answer != "still here" || len(again.Cells()) != 4 {
		t.Errorf("record after resume: %d turns %+v", len(turns), turns)
	}
	for _, name := range []string{"figures/cell1-1.png", "figures/cell4-1.png", "copy.csv"} {
		if _, err := os.Stat(filepath.Join(rec.Dir, name)); err != nil {
			t.Error(err)
		}
	}
}

// A cell that fails on replay (the file lost a column) stops the replay,
// says which cell, and the session stays usable; the model is told.
func TestResumeReplayFailureKeepsSessionUsable(t *testing.T) {
	e := sandboxtest.Engine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	index := filepath.Join(t.TempDir(), "index")
	data := filepath.Join(t.TempDir(), "q1.csv")
	os.WriteFile(data, []byte("region,revenue\nNorth,90000\n"), 0o644)
	rec := recordTwoTurns(t, ctx, data, index)

	other := filepath.Join(t.TempDir(), "q1-new.csv")
	os.WriteFile(other, []byte("region,sales\nNorth,1\n"), 0o644)
	if c := rec.CheckInputs(); c[0].Problem != "" {
		t.Fatalf("unchanged input flagged: %+v", c)
	}
	os.WriteFile(data, []byte("region,sales\nNorth,2\n"), 0o644)
	if c := rec.CheckInputs(); !strings.Contains(c[0].Problem, "has changed") || c[0].Gone {
		t.Fatalf("changed input not flagged: %+v", c)
	}
	srv := openaitest.New(t, openaitest.ToolCalls("print(pd.read_csv('/data/q1.csv').columns.tolist())"), openaitest.Text("ok"))
	s := New(Options{Config: testConfig(srv.URL, t.TempDir()), Engine: e, Index: index, Resume: rec})
	defer s.Close()
	go s.Start(ctx)
	err := s.Restore(ctx, map[string]string{"q1.csv": other})
	var re *ReplayError
	if !errors.As(err, &re) || re.Cell != 1 || re.Index != 1 || re.Total != 2 || !strings.Contains(err.Error(), "no attribute 'revenue'") {
		t.Fatalf("Restore: %v", err)
	}
	var stdout string
	if _, err := s.Ask(ctx, "columns?", func(e agent.Event) {
		if e.Kind == agent.EventCellDone {
			stdout = e.Result.Stdout
		}
	}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "'sales'") {
		t.Errorf("the mapped file is not at /data/q1.csv: %q", stdout)
	}
	notes := srv.ChatRequests()[0].Body
	if !strings.Contains(string(notes), "cell 1 (1 of 2) failed") || !strings.Contains(string(notes), "other data for q1.csv") {
		t.Errorf("the model was not told about the replay or the new data:\n%s", notes)
	}
	s.Close()
	again, _ := LoadRecord(rec.Dir)
	if in := again.Inputs(); len(in) != 1 || in[0].Path != other {
		t.Errorf("the record does not name the new file: %+v", in)
	}
}

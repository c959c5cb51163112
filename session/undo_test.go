package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// eventLog keeps the session's own events.
type eventLog struct {
	mu     sync.Mutex
	events []agent.Event
}

func (l *eventLog) event(e agent.Event) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

func (l *eventLog) texts(kind agent.EventKind) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, e := range l.events {
		if e.Kind == kind {
			out = append(out, e.Text)
		}
	}
	return out
}

func startedSession(t *testing.T, srv *openaitest.Server, log *eventLog, change ...func(*config.Config)) *Session {
	t.Helper()
	e := sandboxtest.Engine(t)
	cfg := testConfig(srv.URL, t.TempDir())
	for _, f := range change {
		f(&cfg)
	}
	s := New(Options{Config: cfg, Engine: e, Events: log.event})
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return s
}

func ask(t *testing.T, s *Session, q string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := s.Ask(ctx, q, nil); err != nil {
		t.Fatalf("Ask %q: %v", q, err)
	}
}

// askCode asks q and the model answers with one cell of code; it returns
// what the model was told of the cell.
func askCode(t *testing.T, s *Session, srv *openaitest.Server, q, code string) string {
	t.Helper()
	srv.Push(openaitest.ToolCalls(code), openaitest.Text("done"))
	ask(t, s, q)
	reqs := srv.ChatRequests()
	return reqs[len(reqs)-1].LastToolResult()
}

func undo(t *testing.T, s *Session) Undone {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	u, err := s.Undo(ctx)
	if err != nil {
		t.Fatalf("Undo: %v", err)
	}
	return u
}

func TestUndoRestoresKernelContextAndFiles(t *testing.T) {
	srv := openaitest.New(t,
		openaitest.ToolCalls("total = 100\nlabel = 'q1'"), openaitest.Text("set"),
		openaitest.ToolCalls("total = 250\nextra = [1, 2]\nopen('/output/q2.csv', 'w').write('a\\n1\\n')\nimport matplotlib.pyplot as plt\nplt.plot([1, 2])"),
		openaitest.Text("changed"),
		openaitest.ToolCalls("print(total, label, 'extra' in globals(), sorted(__import__('os').listdir('/output')))"),
		openaitest.Text("checked"),
	)
	log := &eventLog{}
	s := startedSession(t, srv, log)
	ask(t, s, "Set the total.")
	ask(t, s, "Change it and write q2.csv.")
	if _, err := os.Stat(filepath.Join(s.OutputDir(), "q2.csv")); err != nil {
		t.Fatalf("q2.csv not harvested: %v", err)
	}
	u := undo(t, s)
	if u.Question != "Change it and write q2.csv." || u.Replayed != 0 || u.Warning != "" {
		t.Fatalf("Undone = %+v", u)
	}
	if !slices.Equal(u.Removed, []string{"figures/cell2-1.png", "q2.csv"}) {
		t.Errorf("removed %q", u.Removed)
	}
	for _, name := range u.Removed {
		if _, err := os.Stat(filepath.Join(s.OutputDir(), name)); !os.IsNotExist(err) {
			t.Errorf("%s still in the output folder (%v)", name, err)
		}
	}
	ask(t, s, "Check.")
	reqs := srv.ChatRequests()
	if got := reqs[len(reqs)-1].LastToolResult(); !strings.Contains(got, "100 q1 False []") {
		t.Errorf("kernel after undo: %q, want the total from before the question, no extra, no q2.csv", got)
	}
	check := reqs[len(reqs)-2]
	if check.Contains("write q2.csv") || check.Contains("extra = [1, 2]") || !check.Contains("Set the total.") {
		t.Errorf("the model's context after undo still holds the undone question, or lost the one before:\n%s", check.Body)
	}
	if got := log.texts(agent.EventUndo); !slices.Equal(got, []string{"Change it and write q2.csv."}) {
		t.Errorf("undo events %q", got)
	}
	rec, err := LoadRecord(s.OutputDir())
	if err != nil {
		t.Fatalf("the record: %v", err)
	}
	if turns := rec.Turns(); len(turns) != 2 || turns[0].Question != "Set the total." || turns[1].Question != "Check." {
		t.Errorf("the record's turns after undo: %+v", turns)
	}

	// Twice more: back past the first question, then nothing left.
	if u := undo(t, s); u.Question != "Check." {
		t.Fatalf("second undo took back %q", u.Question)
	}
	if u := undo(t, s); u.Question != "Set the total." {
		t.Fatalf("third undo took back %q", u.Question)
	}
	if got := askCode(t, s, srv, "Anything there?", "print('total' in globals(), 'label' in globals())"); !strings.Contains(got, "False False") {
		t.Errorf("after undoing every question: %q", got)
	}
	undo(t, s)
	if _, err := s.Undo(context.Background()); !errors.Is(err, ErrNothingToUndo) {
		t.Errorf("undo with nothing left: %v", err)
	}
}

// When the checkpoints are lost (here the cell ends the copies, as the OOM
// killer may, and then ignores its timeout, which costs the container),
// undo rebuilds the state by running the earlier questions' cells again.
func TestUndoRebuildsWhenCheckpointLost(t *testing.T) {
	srv := openaitest.New(t,
		openaitest.ToolCalls("a = 1", "b = a + 1\nraise ValueError('skipped on replay')"), openaitest.Text("a set"),
		openaitest.ToolCalls("a = 2", sandboxtest.KillCopiesPy, "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"), openaitest.Text("stuck"),
		openaitest.ToolCalls("print(a, 'b' in globals())"), openaitest.Text("checked"),
	)
	log := &eventLog{}
	s := startedSession(t, srv, log, func(c *config.Config) { c.Timeout = 2 * time.Second })
	ask(t, s, "Set a.")
	ask(t, s, "Change a, then hang.")
	u := undo(t, s)
	if u.Question != "Change a, then hang." || u.Replayed != 1 || u.Warning != "" {
		t.Fatalf("Undone = %+v", u)
	}
	if got := log.texts(agent.EventProgress); !slices.Contains(got, "rebuilding the kernel: cell 1 of 1") {
		t.Errorf("no rebuild progress: %q", got)
	}
	ask(t, s, "Check.")
	reqs := srv.ChatRequests()
	if got := reqs[len(reqs)-1].LastToolResult(); !strings.Contains(got, "1 False") {
		t.Errorf("kernel after the rebuild: %q, want a = 1 and no b (its cell failed)", got)
	}
}

// A question whose kernel died and came back at its checkpoint: undo still
// finds the checkpoint, and a rebuild (copies lost) skips the cells the
// kernel went back past.
func TestUndoAfterTheKernelCameBack(t *testing.T) {
	srv := openaitest.New(t,
		openaitest.ToolCalls("a = 1"), openaitest.Text("a set"),
		openaitest.ToolCalls("b = 2", "import os\nos._exit(3)", "c = 3"), openaitest.Text("c set after a crash"),
		openaitest.ToolCalls("print(a, 'b' in globals(), c)"), openaitest.Text("checked"),
	)
	log := &eventLog{}
	s := startedSession(t, srv, log)
	ask(t, s, "Set a.")
	ask(t, s, "Set b, crash, set c.")
	reqs := srv.ChatRequests()
	if r := reqs[len(reqs)-1]; !r.Contains("went back to where it was when this question began") {
		t.Fatalf("the model was not told the kernel went back:\n%s", r.Body)
	}
	ask(t, s, "Check.")
	reqs = srv.ChatRequests()
	if got := reqs[len(reqs)-1].LastToolResult(); !strings.Contains(got, "1 False 3") {
		t.Fatalf("after the kernel came back: %q", got)
	}
	// Every copy lost: undoing "Check." rebuilds a = 1 and c = 3, not b.
	if res, err := s.sb.Replay(context.Background(), 0, sandboxtest.KillCopiesPy); err != nil || res.Error != nil {
		t.Fatalf("ending the copies: %v %+v", err, res.Error)
	}
	if u := undo(t, s); u.Question != "Check." || u.Replayed != 2 {
		t.Fatalf("Undone = %+v, want two cells replayed", u)
	}
	if got := askCode(t, s, srv, "Check again.", "print(a, 'b' in globals(), c)"); !strings.Contains(got, "1 False 3") {
		t.Errorf("after the rebuild: %q", got)
	}
	// The checkpoint of the question that came back is used for its undo.
	if u := undo(t, s); u.Question != "Check again." {
		t.Fatalf("undo took back %q", u.Question)
	}
	if u := undo(t, s); u.Question != "Set b, crash, set c." {
		t.Fatalf("undo took back %q", u.Question)
	}
	if got := askCode(t, s, srv, "And now?", "print(a, 'c' in globals())"); !strings.Contains(got, "1 False") {
		t.Errorf("after undoing the crashed question: %q", got)
	}
}

// After a resume, undo goes back through the new questions by checkpoint
// and then through the resumed ones by rebuilding the kernel from the
// record's cells; the record leaves every undone turn out.
func TestUndoAfterResume(t *testing.T) {
	e := sandboxtest.Engine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	index := filepath.Join(t.TempDir(), "index")
	data := filepath.Join(t.TempDir(), "q1.csv")
	os.WriteFile(data, []byte("region,revenue\nNorth,90000\nSouth,80000\nWest,100000\n"), 0o644)
	rec := recordTwoTurns(t, ctx, data, index)

	srv := openaitest.New(t, openaitest.ToolCalls("tripled = total * 3"), openaitest.Text("tripled"))
	s := New(Options{Config: testConfig(srv.URL, t.TempDir()), Engine: e, Index: index, Resume: rec})
	defer s.Close()
	go s.Start(ctx)
	if err := s.Restore(ctx, nil); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	ask(t, s, "and tripled?")
	if u := undo(t, s); u.Question != "and tripled?" || u.Replayed != 0 {
		t.Fatalf("undo of the new question: %+v", u)
	}
	// "and doubled?" was asked before the resume: rebuilt from "total revenue?".
	u := undo(t, s)
	if u.Question != "and doubled?" || u.Replayed != 1 || !strings.Contains(u.Warning, "before the session was resumed") {
		t.Fatalf("undo of a resumed question: %+v", u)
	}
	if got := askCode(t, s, srv, "what is left?", "print(total, 'doubled' in globals(), 'tripled' in globals())"); !strings.Contains(got, "270000 False False") {
		t.Errorf("kernel after undoing a resumed question: %q", got)
	}
	s.Close()
	again, err := LoadRecord(rec.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var qs []string
	for _, turn := range again.Turns() {
		qs = append(qs, turn.Question)
	}
	if !slices.Equal(qs, []string{"total revenue?", "what is left?"}) {
		t.Errorf("the record's turns: %q", qs)
	}
}

package session

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/image/apttest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// asker answers install questions and keeps them.
type asker struct {
	mu        sync.Mutex
	yes       bool
	questions []string
}

func (a *asker) ask(_ context.Context, q string) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.questions = append(a.questions, q)
	return a.yes, nil
}

// extrasSession is a started session whose packages come from a signed
// test archive on 127.0.0.1 into an image repository of the test's own.
func extrasSession(t *testing.T, srv *openaitest.Server, install func(context.Context, string) (bool, error)) (*Session, *image.Installer) {
	t.Helper()
	e := sandboxtest.Engine(t)
	repo := apttest.New(t, apttest.All()...)
	in := repo.Installer(e)
	s := New(Options{Config: testConfig(srv.URL, t.TempDir()), Engine: e, Extras: in, Install: install})
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return s, in
}

// A cell that imports a module the sandbox lacks asks first; on yes the
// package comes from the archive, the session moves to the image with it,
// the earlier variables are rebuilt, and the cell runs again: the model
// sees it succeed. The record and a later session know the extra.
func TestImportAsksAddsReplaysAndRunsAgain(t *testing.T) {
	srv := openaitest.New(t)
	ask := &asker{yes: true}
	s, in := extrasSession(t, srv, ask.ask)
	askCode(t, s, srv, "set", "a = 40")
	got := askCode(t, s, srv, "hello", "import quarry_hello\nprint(quarry_hello.hello(), a + 2)")
	if len(ask.questions) != 1 || !strings.HasPrefix(ask.questions[0], "quarry_hello is in Debian (python3-quarry-hello 1.2, 2 packages, ") ||
		!strings.HasSuffix(ask.questions[0], "): add it to the sandbox? [y/N]") {
		t.Fatalf("questions %q", ask.questions)
	}
	if !strings.Contains(got, "hello, world 42") || !strings.Contains(got, "python3-quarry-hello 1.2 added to the sandbox; the sandbox was rebuilt: 1 cell replayed") ||
		strings.Contains(got, "ModuleNotFoundError") {
		t.Fatalf("the model was told:\n%s", got)
	}
	if ex := s.Extras(); len(ex) != 1 || ex[0].Name != "python3-quarry-hello" {
		t.Fatalf("extras %+v", ex)
	}
	// Undo after the move: the checkpoints were the old sandbox's, so the
	// state is replayed, on the image with the extra.
	if u := undo(t, s); u.Replayed != 1 || !strings.Contains(u.Warning, "before the sandbox was rebuilt") {
		t.Fatalf("undo after the move: %+v", u)
	}
	if got := askCode(t, s, srv, "after undo", "import quarry_hello\nprint(quarry_hello.hello('undo'), a)"); !strings.Contains(got, "hello, undo 40") {
		t.Fatalf("after the undo:\n%s", got)
	}
	// The next session starts on the image with it.
	s2 := New(Options{Config: testConfig(srv.URL, t.TempDir()), Engine: in.Engine, Extras: in})
	defer s2.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s2.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if got := askCode(t, s2, srv, "again", "import quarry_hello\nprint(quarry_hello.hello('again'))"); !strings.Contains(got, "hello, again") {
		t.Fatalf("a later session:\n%s", got)
	}
	s.Close()
	rec, err := LoadRecord(s.OutputDir())
	if err != nil {
		t.Fatal(err)
	}
	if ex := rec.Extras(); len(ex) != 1 || ex[0] != (RecordedExtra{Name: "python3-quarry-hello", Version: "1.2-1"}) {
		t.Fatalf("recorded extras %+v", ex)
	}
}

// No, or no one to ask (-p without --allow-install), or a module no
// package ships: the cell's failure stands and says what to do.
func TestImportWithoutInstall(t *testing.T) {
	t.Run("declined", func(t *testing.T) {
		srv := openaitest.New(t)
		ask := &asker{}
		s, _ := extrasSession(t, srv, ask.ask)
		got := askCode(t, s, srv, "hello", "import quarry_hello")
		if len(ask.questions) != 1 || !strings.Contains(got, "ModuleNotFoundError") ||
			!strings.Contains(got, "the user chose not to add it (it can be added later with `quarry sandbox add python3-quarry-hello`)") {
			t.Fatalf("declined: %q\n%s", ask.questions, got)
		}
	})
	t.Run("no one to ask", func(t *testing.T) {
		srv := openaitest.New(t, openaitest.ToolCalls("import quarry_hello"))
		s, _ := extrasSession(t, srv, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		_, err := s.Ask(ctx, "hello", nil)
		var ae *agent.Error
		if !errors.As(err, &ae) || ae.Kind != agent.KindHalted || !strings.Contains(err.Error(), "`quarry sandbox add python3-quarry-hello`, or run with --allow-install") {
			t.Fatalf("Ask: %v", err)
		}
	})
	t.Run("not in Debian", func(t *testing.T) {
		srv := openaitest.New(t)
		ask := &asker{yes: true}
		s, _ := extrasSession(t, srv, ask.ask)
		got := askCode(t, s, srv, "x", "import no_such_quarry_module")
		if len(ask.questions) != 0 || !strings.Contains(got, "no package of Debian quarrytest provides the Python module no_such_quarry_module") {
			t.Fatalf("not in Debian: %q\n%s", ask.questions, got)
		}
	})
}

// A rerun of a session that had packages added, on a sandbox without
// them, says which to add before any cell runs, and its failing import
// names the command.
func TestRerunSaysWhichExtrasToAdd(t *testing.T) {
	e := sandboxtest.Engine(t)
	repo := apttest.New(t, apttest.Hello, apttest.Greet)
	in := repo.Installer(e)
	log := &eventLog{}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := Rerun(ctx, RerunOptions{
		Options: Options{Config: testConfig("", t.TempDir()), Engine: e, Extras: in, Events: log.event},
		Source:  "20260101-000000-abcdef",
		Turns:   []Turn{{Question: "hello", Cells: []Cell{{Num: 1, Code: "import quarry_hello"}}}},
		Extras:  []RecordedExtra{{Name: "python3-quarry-hello", Version: "1.2-1"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	warned := strings.Join(log.texts(agent.EventWarning), "\n")
	if !strings.Contains(warned, "the session had python3-quarry-hello 1.2-1 added to its sandbox, which this one lacks: add it with `quarry sandbox add python3-quarry-hello`") {
		t.Fatalf("warnings:\n%s", warned)
	}
	if len(res.Failed) != 1 || !strings.Contains(strings.Join(res.Failed[0].Result.Notes, "\n"), "add it with `quarry sandbox add python3-quarry-hello`, then rerun") {
		t.Fatalf("failed %+v", res.Failed)
	}
}

// The model is told the image's Python libraries, read from its manifest.
func TestPromptListsTheImagesLibraries(t *testing.T) {
	e := sandboxtest.Engine(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pkgs, err := image.Packages(ctx, e, image.Ref())
	if err != nil {
		t.Fatal(err)
	}
	libs := strings.Join(pythonLibraries(pkgs), ", ")
	for _, want := range []string{"pandas 2.3", "numpy 2.", "matplotlib 3.", "sklearn 1."} {
		if !strings.Contains(libs, want) {
			t.Errorf("libraries %s lack %s", libs, want)
		}
	}
	if strings.Contains(libs, "-lib ") || strings.Contains(libs, "minimal") {
		t.Errorf("build parts listed: %s", libs)
	}
}

package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// waitState waits for the session's state to become want.
func waitState(t *testing.T, s *Session, want State) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		st := s.state
		s.mu.Unlock()
		if st == want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the state did not become %s", want)
}

func attachCSV(t *testing.T, s *Session) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "q1.csv")
	os.WriteFile(path, []byte("department,budget\nSales,100\nHR,20\nIT,3\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := s.Attach(ctx, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// killContainer kills (or removes) the session's container through the
// engine, as an engine that stops or restarts does to it.
func killContainer(t *testing.T, e *engine.Engine, s *Session, remove bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s.mu.Lock()
	id := s.sb.ContainerID()
	s.mu.Unlock()
	var err error
	if remove {
		_, err = e.Client().ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true})
	} else {
		_, err = e.Client().ContainerKill(ctx, id, client.ContainerKillOptions{Signal: "SIGKILL"})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// A container killed or removed between questions is noticed while the
// chat is idle (the state says lost, not ready), and the next question's
// cell runs in a rebuilt sandbox with the earlier variables and the
// attached file, saying so in one line; a cell that fails now is named and
// the rest are replayed.
func TestLostSandboxIsRebuiltAtTheNextCell(t *testing.T) {
	for _, remove := range []bool{false, true} {
		t.Run(map[bool]string{false: "killed", true: "removed"}[remove], func(t *testing.T) {
			e := sandboxtest.Engine(t)
			srv := openaitest.New(t)
			log := &eventLog{}
			s := startedSession(t, srv, log)
			attachCSV(t, s)
			askCode(t, s, srv, "total", "import pandas as pd\ndf = pd.read_csv('/data/q1.csv')\ntotal = int(df.budget.sum())")
			deadline := time.Now().Add(2 * time.Second).Unix()
			askCode(t, s, srv, "late", fmt.Sprintf("import time\nassert time.time() < %d, 'too late now'\nlate = 1", deadline))
			askCode(t, s, srv, "more", "more = total * 2")
			time.Sleep(time.Until(time.Unix(deadline+1, 0)))

			killContainer(t, e, s, remove)
			waitState(t, s, StateLost)
			got := askCode(t, s, srv, "again", "print(total, more, len(df), 'late' in globals())")
			if !strings.Contains(got, "123 246 3 False") {
				t.Fatalf("the cell after the loss was told:\n%s", got)
			}
			want := "the sandbox was rebuilt: 3 cells replayed in "
			if !strings.Contains(got, want) || !strings.Contains(got, "cell 2 failed now (AssertionError: too late now)") {
				t.Fatalf("the cell's result lacks the rebuild line:\n%s", got)
			}
			var line bool
			for _, w := range log.texts("warning") {
				line = line || strings.HasPrefix(w, want)
			}
			if !line {
				t.Fatalf("no event says the sandbox was rebuilt: %q", log.texts("warning"))
			}
			waitState(t, s, StateReady)
		})
	}
}

// A container killed while a cell runs (the engine stays): the cell fails
// as the kernel's death, and the state the earlier cells made is back for
// the next one at once.
func TestContainerKilledMidCellRebuildsTheState(t *testing.T) {
	e := sandboxtest.Engine(t)
	srv := openaitest.New(t)
	log := &eventLog{}
	s := startedSession(t, srv, log)
	askCode(t, s, srv, "set", "kept = 7")
	time.AfterFunc(2*time.Second, func() { killContainer(t, e, s, false) })
	got := askCode(t, s, srv, "slow", "import time\ntime.sleep(60)")
	if !strings.Contains(got, "the sandbox was rebuilt: 1 cell replayed") || strings.Contains(got, "the variables are lost") {
		t.Fatalf("the killed cell was told:\n%s", got)
	}
	if got := askCode(t, s, srv, "check", "print(kept)"); !strings.Contains(got, "7") {
		t.Fatalf("after the kill:\n%s", got)
	}
}

// The engine goes away (its connections dropped and refused, the
// container killed, as a restart does); while it is away the next cell
// fails saying so, and once it is back the next cell rebuilds the sandbox.
// A proxy in front of the real engine plays the restart: the engine is
// shared with other tests and is never stopped.
func TestEngineRestartBetweenQuestions(t *testing.T) {
	local := sandboxtest.Engine(t)
	p := sandboxtest.NewEngineProxy(t)
	t.Setenv("DOCKER_HOST", p.Host())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	e, err := engine.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	srv := openaitest.New(t)
	log := &eventLog{}
	s := New(Options{Config: testConfig(srv.URL, t.TempDir()), Engine: e, Events: log.event})
	t.Cleanup(func() { s.Close() })
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	askCode(t, s, srv, "set", "kept = 'before the restart'")

	p.Cut()
	killContainer(t, local, s, false)
	waitState(t, s, StateLost)
	srv.Push(openaitest.ToolCalls("print(kept)")) // the turn ends at the failed cell
	if _, err := s.Ask(ctx, "while away", nil); err == nil || !strings.Contains(err.Error(), "the engine is not reachable") {
		t.Fatalf("a cell while the engine is away: %v", err)
	}
	p.Restore()
	got := askCode(t, s, srv, "back", "print(kept)")
	if !strings.Contains(got, "before the restart") || !strings.Contains(got, "the sandbox was rebuilt: 1 cell replayed") {
		t.Fatalf("after the engine came back:\n%s", got)
	}
}

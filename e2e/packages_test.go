package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image/apttest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// -p has no one to ask: a cell that imports a module the sandbox lacks
// ends the run with exit 1, naming the package and the command; with
// --allow-install the package is added from the signed archive (the
// test's own on 127.0.0.1) and the run answers.
func TestHeadlessMissingPackage(t *testing.T) {
	e := sandboxtest.Engine(t)
	repo := apttest.New(t, apttest.Hello, apttest.Greet)
	extras, _ := repo.Env(e)
	srv := openaitest.New(t)
	srv.Handle(cellPerQuestion(map[string]string{"hello": "import quarry_hello\nprint(quarry_hello.hello('headless'))"}))

	r := newRun(t, srv.URL, "-p", "say hello")
	r.env = append(r.env, extras...)
	if code := r.exec(3 * time.Minute); code != 1 {
		t.Fatalf("without --allow-install: exit %d, want 1", code)
	}
	for _, want := range []string{"python3-quarry-hello", "`quarry sandbox add python3-quarry-hello`", "--allow-install"} {
		if !strings.Contains(r.stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr.String())
		}
	}
	requireNoContainers(t, r.cmd.Process.Pid)

	r = newRun(t, srv.URL, "-p", "say hello", "--allow-install")
	r.env = append(r.env, extras...)
	if code := r.exec(5 * time.Minute); code != 0 {
		t.Fatalf("with --allow-install: exit %d", code)
	}
	if !strings.Contains(r.stdout.String(), "hello, headless") {
		t.Fatalf("the answer:\n%s", r.stdout.String())
	}
	requireNoContainers(t, r.cmd.Process.Pid)
}

// The engine goes away while a -p run's cell runs: the run exits 1 within
// seconds with words that say so, and what it could not remove (its two
// volumes, its container) the next run removes, found by their labels. A
// proxy in front of the real engine plays the engine going away (dropped
// and refused connections), and the container is killed through the real
// engine, as a stopped engine does to it; the shared engine keeps running.
func TestHeadlessEngineGoneMidCell(t *testing.T) {
	local := sandboxtest.Engine(t)
	p := sandboxtest.NewEngineProxy(t)
	t.Setenv("DOCKER_HOST", p.Host())
	srv := openaitest.New(t, openaitest.ToolCalls("import time\nopen('/output/started', 'w').close()\ntime.sleep(120)"))
	r := newRun(t, srv.URL, "-p", "wait")
	r.start()
	pid := r.cmd.Process.Pid
	waitForSandboxFile(t, pid, "/output/started", 3*time.Minute)
	t0 := time.Now()
	p.Cut()
	killSandbox(t, local, pid)
	code := r.wait(time.Minute)
	t.Logf("exit %d %s after the engine went away\nstderr:\n%s", code, time.Since(t0).Round(100*time.Millisecond), r.stderr.String())
	if code != 1 || !strings.Contains(r.stderr.String(), "the engine went away") {
		t.Fatalf("exit %d, want 1 saying the engine went away", code)
	}
	label := engine.LabelPID + "=" + strconv.Itoa(pid)
	if n := labelled(t, local, label); n == 0 {
		t.Fatal("the run left nothing behind: this test no longer sees the sweep work")
	}

	p.Restore()
	next := newRun(t, srv.URL, "-p", "anything")
	srv.Push(openaitest.Text("fine"))
	if code := next.exec(3 * time.Minute); code != 0 {
		t.Fatalf("the next run: exit %d", code)
	}
	if !strings.Contains(next.stderr.String(), "removed") || labelled(t, local, label) != 0 {
		t.Fatalf("the next run did not sweep what the first left (%d objects left)", labelled(t, local, label))
	}
}

// labelled counts the containers and volumes carrying label.
func labelled(t *testing.T, e *engine.Engine, label string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f := make(client.Filters).Add("label", label)
	cs, err := e.Client().ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := e.Client().VolumeList(ctx, client.VolumeListOptions{Filters: f})
	if err != nil {
		t.Fatal(err)
	}
	return len(cs.Items) + len(vs.Items)
}

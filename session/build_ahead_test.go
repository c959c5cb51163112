package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// warmMark is what the warm-up leaves in the builder's namespace: a build
// that prints it ran in the sandbox started ahead.
const warmMark = "mark = 'started ahead'"

const printMark = "print(globals().get('mark'))\nopen('/output/built.txt', 'w').write('x')"

// A builder started ahead: the build runs in it (the warm-up's namespace),
// its files arrive in out; the next build gets a fresh sandbox, and stop
// leaves neither container nor folder.
func TestBuildRunsInTheSandboxStartedAhead(t *testing.T) {
	e := sandboxtest.Engine(t)
	label := fmt.Sprintf("%s=%d", engine.LabelPID, os.Getpid())
	dir := t.TempDir()
	b, stop := Builder{Engine: e}.Ahead(dir, warmMark)
	defer stop()
	waitContainers(t, label, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := filepath.Join(dir, "one")
	res, err := b.Build(ctx, nil, printMark, out)
	if err != nil || res.Error != nil {
		t.Fatalf("build: %v %+v", err, res.Error)
	}
	if got := strings.TrimSpace(res.Stdout); got != "started ahead" {
		t.Errorf("the build printed %q: it did not run in the sandbox started ahead", got)
	}
	if _, err := os.Stat(filepath.Join(out, "built.txt")); err != nil {
		t.Errorf("the build's file is not in out: %v", err)
	}
	res, err = b.Build(ctx, nil, printMark, filepath.Join(dir, "two"))
	if err != nil || res.Error != nil {
		t.Fatalf("second build: %v %+v", err, res.Error)
	}
	if got := strings.TrimSpace(res.Stdout); got != "None" {
		t.Errorf("the second build printed %q: a sandbox started ahead served two builds", got)
	}
	stop()
	sandboxtest.RequireNothingLeft(t, label)
	requireNoAheadFolder(t, dir)
}

// -p --report: the session starts a builder as soon as it is ready, its
// Builder uses it, and Close removes one left unused.
func TestSessionStartsABuilderAhead(t *testing.T) {
	e := sandboxtest.Engine(t)
	label := fmt.Sprintf("%s=%d", engine.LabelPID, os.Getpid())
	s := New(Options{Config: testConfig("http://127.0.0.1:1/v1", t.TempDir()), Engine: e,
		ReportAhead: &ReportAhead{Warmup: warmMark, AtStart: true}})
	defer s.Close()
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitContainers(t, label, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := s.Builder().Build(ctx, nil, printMark, filepath.Join(t.TempDir(), "out"))
	if err != nil || res.Error != nil {
		t.Fatalf("build: %v %+v", err, res.Error)
	}
	if got := strings.TrimSpace(res.Stdout); got != "started ahead" {
		t.Errorf("the build printed %q: it did not run in the sandbox started ahead", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	sandboxtest.RequireNothingLeft(t, label)
	requireNoAheadFolder(t, s.OutputDir())
}

// The chat: no builder before a question; each answer starts one, and
// Close removes it unused.
func TestAnswerStartsABuilderAhead(t *testing.T) {
	e := sandboxtest.Engine(t)
	label := fmt.Sprintf("%s=%d", engine.LabelPID, os.Getpid())
	srv := openaitest.New(t, openaitest.Text("no cell needed"))
	s := New(Options{Config: testConfig(srv.URL, t.TempDir()), Engine: e, ReportAhead: &ReportAhead{Warmup: warmMark}})
	defer s.Close()
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // time enough to start one, were it started at once
	if n := countContainers(t, label); n != 1 {
		t.Fatalf("%d containers before any question, want the session's alone", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := s.Ask(ctx, "hello", func(agent.Event) {}); err != nil {
		t.Fatal(err)
	}
	waitContainers(t, label, 2)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	sandboxtest.RequireNothingLeft(t, label)
	requireNoAheadFolder(t, s.OutputDir())
}

func waitContainers(t *testing.T, label string, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); countContainers(t, label) < n; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d containers labelled %s after a minute", n, label)
		}
	}
}

func requireNoAheadFolder(t *testing.T, dir string) {
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(dir, ".report-ahead-*"))
	if len(left) > 0 {
		t.Errorf("folders left in %s: %v", dir, left)
	}
}

package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// A report being built when the session closes is stopped, and its
// sandbox removed before Close returns: none outlives the session (the
// chat quit during the demo's report once left its volumes behind).
func TestCloseStopsABuild(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := New(Options{Config: testConfig("http://127.0.0.1:1/v1", t.TempDir()), Engine: e})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	b := s.Builder()
	done := make(chan error, 1)
	go func() {
		_, err := b.Build(context.Background(), nil, "import time\ntime.sleep(300)", filepath.Join(t.TempDir(), "out"))
		done <- err
	}()
	label := fmt.Sprintf("%s=%d", engine.LabelPID, os.Getpid())
	for deadline := time.Now().Add(time.Minute); countContainers(t, label) < 2; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the build's sandbox did not start")
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("the build went on after the session closed")
		}
	default:
		t.Error("Close returned before the build had stopped")
	}
	sandboxtest.RequireNothingLeft(t, label)
	if _, err := b.Build(context.Background(), nil, "1", filepath.Join(t.TempDir(), "out")); err == nil {
		t.Error("a build started on a closed session")
	}
}

func countContainers(t *testing.T, label string) int {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	list, err := cli.ContainerList(context.Background(), client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", label)})
	if err != nil {
		t.Fatal(err)
	}
	return len(list.Items)
}

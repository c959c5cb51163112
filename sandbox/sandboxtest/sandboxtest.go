// Package sandboxtest gives Docker-backed tests a real engine and the sandbox
// image. Without an engine a test skips on a developer machine and fails in
// CI (CI=true), so CI can never pass by skipping.
package sandboxtest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/volume"
	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/sandbox"
)

// Engine connects to the engine DOCKER_HOST names (Docker or Podman) and
// checks that the sandbox image for the current recipe exists. The engine is
// closed when the test ends.
func Engine(t testing.TB) *engine.Engine {
	t.Helper()
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("Docker-backed test skipped in -short mode")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	e, err := engine.Connect(ctx)
	if err != nil {
		unavailable(t, err.Error())
	}
	t.Cleanup(func() { e.Close() })
	ok, err := image.Present(ctx, e)
	if err != nil {
		t.Fatalf("sandbox image check: %v", err)
	}
	if !ok {
		unavailable(t, "sandbox image "+image.Ref()+" is missing: run `make image` (go run . sandbox build)")
	}
	return e
}

// Session starts a sandbox session with an output folder in t.TempDir and
// closes it when the test ends.
func Session(t testing.TB, e *engine.Engine, opts sandbox.Options) *sandbox.Session {
	t.Helper()
	if opts.OutputDir == "" {
		opts.OutputDir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := sandbox.Start(ctx, e, opts)
	if err != nil {
		t.Fatalf("sandbox start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("sandbox close: %v", err)
		}
	})
	return s
}

func unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("Docker-backed test cannot run in CI: %s", why)
	}
	t.Skipf("Docker-backed test skipped: %s", why)
}

// RequireNothingLeft fails the test when the engine still has a container,
// volume or network carrying label (e.g. "io.quarry.pid=123" or
// "io.quarry.session=<id>"): quarry must leave nothing behind.
func RequireNothingLeft(t testing.TB, label string) {
	t.Helper()
	cs, vs, ns := labelled(t, label)
	for _, c := range cs {
		t.Errorf("container %.12s (%s) labelled %s left behind", c.ID, c.State, label)
	}
	for _, v := range vs {
		t.Errorf("volume %s labelled %s left behind", v.Name, label)
	}
	for _, n := range ns {
		t.Errorf("network %s labelled %s left behind", n, label)
	}
}

// Left counts the containers and volumes labelled label, for a test that
// waits for something else to remove them.
func Left(t testing.TB, label string) int {
	t.Helper()
	cs, vs, ns := labelled(t, label)
	return len(cs) + len(vs) + len(ns)
}

// labelled lists the containers (running or not), volumes and networks
// labelled label (quarry makes no network; the test cluster does).
func labelled(t testing.TB, label string) ([]container.Summary, []volume.Volume, []string) {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatalf("docker client: %v", err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f := make(client.Filters).Add("label", label)
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		t.Fatalf("container list: %v", err)
	}
	vols, err := cli.VolumeList(ctx, client.VolumeListOptions{Filters: f})
	if err != nil {
		t.Fatalf("volume list: %v", err)
	}
	nets, err := cli.NetworkList(ctx, client.NetworkListOptions{Filters: f})
	if err != nil {
		t.Fatalf("network list: %v", err)
	}
	var names []string
	for _, n := range nets.Items {
		names = append(names, n.Name)
	}
	return list.Items, vols.Items, names
}

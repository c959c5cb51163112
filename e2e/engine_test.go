package e2e

// What the tests ask the engine about a quarry process, by the labels the
// sandbox puts on everything it creates.

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// byPID is the label filter of what quarry process pid created on this host.
func byPID(pid int) client.Filters {
	return make(client.Filters).Add("label", engine.LabelPID+"="+strconv.Itoa(pid)).
		Add("label", engine.LabelHost+"="+engine.HostName())
}

// requireNoContainers fails when the engine still has a container or
// volume labelled with the process id of the finished quarry run.
func requireNoContainers(t testing.TB, pid int) {
	t.Helper()
	sandboxtest.RequireNothingLeft(t, engine.LabelPID+"="+strconv.Itoa(pid))
}

// containersOf counts the containers (running or not) quarry process pid
// created.
func containersOf(t *testing.T, pid int) int {
	t.Helper()
	return len(sessionsOf(t, pid))
}

// waitForSandboxFile polls the sandbox of the quarry process pid until
// path exists in it: the proof that a cell got that far ("cell 1 running"
// comes before the cell's code, which may wait for the kernel's imports).
func waitForSandboxFile(t *testing.T, pid int, path string, limit time.Duration) {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatalf("docker client: %v", err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for ctx.Err() == nil {
		if list, err := cli.ContainerList(ctx, client.ContainerListOptions{Filters: byPID(pid)}); err == nil {
			for _, c := range list.Items {
				if res, err := cli.CopyFromContainer(ctx, c.ID, client.CopyFromContainerOptions{SourcePath: path}); err == nil {
					res.Content.Close()
					return
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no %s in the sandbox of quarry %d after %s", path, pid, limit)
}

// removeLabelled removes what quarry process pid left in the engine after
// the test had to kill it (a process that exits by itself removes its own,
// and the tests check that): the shared engine keeps nothing of a failed
// test. An engine that cannot be reached has nothing of it either.
func removeLabelled(t testing.TB, pid int) {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if list, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: byPID(pid)}); err == nil {
		for _, c := range list.Items {
			_, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
			t.Logf("removed container %.12s of the killed quarry %d: %v", c.ID, pid, err)
		}
	}
	if vols, err := cli.VolumeList(ctx, client.VolumeListOptions{Filters: byPID(pid)}); err == nil {
		for _, v := range vols.Items {
			_, err := cli.VolumeRemove(ctx, v.Name, client.VolumeRemoveOptions{Force: true})
			t.Logf("removed volume %s of the killed quarry %d: %v", v.Name, pid, err)
		}
	}
}

// waitForCreate waits until the engine made a container of role for
// quarry process pid, started at since: the moment a create's request has
// reached the engine, whether or not quarry has its answer yet.
func waitForCreate(t *testing.T, pid int, role string, since time.Time, limit time.Duration) {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatalf("docker client: %v", err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	f := byPID(pid).Add("type", "container").Add("event", "create").Add("label", engine.LabelRole+"="+role)
	res := cli.Events(ctx, client.EventsListOptions{Since: strconv.FormatInt(since.Unix()-1, 10), Filters: f})
	select {
	case <-res.Messages:
	case err := <-res.Err:
		t.Fatalf("no %s container of quarry %d after %s: %v", role, pid, limit, err)
	}
}

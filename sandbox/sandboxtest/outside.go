package sandboxtest

// From outside quarry: what an operator does to its containers and what
// the engine says of them.

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// KillLabelled kills with SIGKILL, from outside quarry, every running
// container carrying label (e.g. "io.quarry.session=<id>"), as an operator
// or the kernel's OOM killer would; it fails the test when there is none.
func KillLabelled(t testing.TB, label string) {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatalf("docker client: %v", err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{Filters: make(client.Filters).Add("label", label)})
	if err != nil || len(list.Items) == 0 {
		t.Fatalf("containers labelled %s: %v (%d running)", label, err, len(list.Items))
	}
	for _, c := range list.Items {
		if _, err := cli.ContainerKill(ctx, c.ID, client.ContainerKillOptions{Signal: "SIGKILL"}); err != nil {
			t.Fatalf("kill %.12s: %v", c.ID, err)
		}
	}
}

// Memory is what the running containers carrying label use, summed, as
// the engine's stats say (the page cache left out, as docker stats does),
// and how many there are.
func Memory(t testing.TB, label string) (bytes uint64, n int) {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatalf("docker client: %v", err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{Filters: make(client.Filters).Add("label", label)})
	if err != nil {
		t.Fatalf("containers labelled %s: %v", label, err)
	}
	for _, c := range list.Items {
		res, err := cli.ContainerStats(ctx, c.ID, client.ContainerStatsOptions{})
		if err != nil {
			t.Fatalf("stats of %.12s: %v", c.ID, err)
		}
		var s container.StatsResponse
		err = json.NewDecoder(res.Body).Decode(&s)
		res.Body.Close()
		if err != nil {
			t.Fatalf("stats of %.12s: %v", c.ID, err)
		}
		used := s.MemoryStats.Usage
		for _, k := range []string{"total_inactive_file", "inactive_file"} { // cgroup v1, v2
			if x, ok := s.MemoryStats.Stats[k]; ok && x < used {
				used -= x
				break
			}
		}
		bytes += used
		n++
	}
	return bytes, n
}

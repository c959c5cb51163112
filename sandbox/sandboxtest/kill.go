package sandboxtest

import (
	"context"
	"testing"
	"time"

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

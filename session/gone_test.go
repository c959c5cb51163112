package session

import (
	"context"
	"testing"
	"time"

	"github.com/moby/moby/client"
)

// requireGone fails when a container or volume labelled with the session
// id still exists.
func requireGone(t *testing.T, id string) {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f := client.Filters{}.Add("label", "io.quarry.session="+id)
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		t.Fatalf("container list: %v", err)
	}
	for _, c := range list.Items {
		t.Errorf("container %s (%s) of session %s left behind", c.ID[:12], c.State, id)
	}
	vols, err := cli.VolumeList(ctx, client.VolumeListOptions{Filters: f})
	if err != nil {
		t.Fatalf("volume list: %v", err)
	}
	for _, v := range vols.Items {
		t.Errorf("volume %s of session %s left behind", v.Name, id)
	}
}

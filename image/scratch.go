package image

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
)

// helperObject names a container of one of image's own jobs (role
// manifest, status, extras-build): a fresh id each time, so two quarry
// processes never meet on a name.
func helperObject(role string) engine.Object {
	b := make([]byte, 6)
	rand.Read(b)
	id := role + "-" + hex.EncodeToString(b)
	return engine.Object{Name: "quarry-" + id, Session: id, Role: role, Recipe: RecipeHash()}
}

// readOnlyContainer creates a container of ref that is never started, to
// copy files out of: nothing in the image runs. remove ends it, with a
// context of its own, and is a no-op when the create failed.
func readOnlyContainer(ctx context.Context, e *engine.Engine, ref, role string) (id string, remove func(), err error) {
	id, err = e.CreateContainer(ctx, helperObject(role), client.ContainerCreateOptions{
		Config:     &container.Config{Image: ref, Entrypoint: []string{"/bin/true"}, NetworkDisabled: true},
		HostConfig: &container.HostConfig{NetworkMode: "none", LogConfig: container.LogConfig{Type: "none"}},
	})
	if err != nil {
		return "", func() {}, err
	}
	return id, func() { removeContainer(ctx, e, id) }, nil
}

// removeContainer removes a container image made, also after ctx ended.
func removeContainer(ctx context.Context, e *engine.Engine, id string) {
	rm, cancel := engine.CleanupContext(ctx)
	defer cancel()
	e.RemoveContainer(rm, id)
}

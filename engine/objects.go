package engine

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// Labels put on every container and volume quarry creates; the sandbox's
// sweep finds orphans by them, and tests remove only what carries them.
const (
	LabelSession = "io.quarry.session"
	LabelPID     = "io.quarry.pid"
	LabelHost    = "io.quarry.host"
	LabelCreated = "io.quarry.created"
	LabelRecipe  = "io.quarry.recipe"
	LabelRole    = "io.quarry.role"
)

// HostName names this machine in LabelHost.
func HostName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown"
	}
	return h
}

// Labels names the owner (this process on this host) so a sweep can tell
// live sessions from orphans; recipe is the image recipe the object is for.
func Labels(sessionID, role, recipe string) map[string]string {
	return map[string]string{
		LabelSession: sessionID,
		LabelPID:     strconv.Itoa(os.Getpid()),
		LabelHost:    HostName(),
		LabelCreated: time.Now().UTC().Format(time.RFC3339),
		LabelRecipe:  recipe,
		LabelRole:    role,
	}
}

// Gone reports errors that mean the object is already removed or being
// removed: cleanup treats them as success.
func Gone(err error) bool {
	if err == nil || cerrdefs.IsNotFound(err) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "already in progress") || strings.Contains(msg, "No such") ||
		strings.Contains(msg, "is being removed")
}

// RemoveContainer force-removes a container. Podman 4.3 refuses while a
// container that just died is "stopped" and not yet cleaned up (its kill
// fails with "container state improper"): that passes within moments.
func (e *Engine) RemoveContainer(ctx context.Context, id string) error {
	err := retryBriefly(ctx, 50, "container state improper", func() error {
		_, err := e.cli.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
		return err
	})
	if err != nil {
		e.owed.add(false, id)
		return fmt.Errorf("container remove: %w", err)
	}
	e.owed.forget(false, id)
	return nil
}

// RemoveVolume retries briefly: right after a forced container removal the
// engine may still count the volume as in use.
func (e *Engine) RemoveVolume(ctx context.Context, name string) error {
	err := retryBriefly(ctx, 20, "in use", func() error {
		_, err := e.cli.VolumeRemove(ctx, name, client.VolumeRemoveOptions{Force: true})
		return err
	})
	if err != nil {
		e.owed.add(true, name)
		return fmt.Errorf("volume remove %s: %w", name, err)
	}
	e.owed.forget(true, name)
	return nil
}

// retryBriefly runs a removal until it is done (gone counts as done), fails
// with an error that does not contain transient, or tries times 100 ms apart.
func retryBriefly(ctx context.Context, tries int, transient string, remove func() error) error {
	var err error
	for i := 0; i < tries; i++ {
		if err = remove(); Gone(err) {
			return nil
		}
		if !strings.Contains(err.Error(), transient) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
	return err
}

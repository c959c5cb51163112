package sandbox

import (
	"context"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/moby/moby/client"
)

// SetInterruptGrace shortens the grace for tests and returns a restore func.
func SetInterruptGrace(d time.Duration) func() {
	old := interruptGrace
	interruptGrace = d
	return func() { interruptGrace = old }
}

// SetImportsDelay holds the kernel's background imports back by d in the
// sessions started after it, and returns a restore func.
func SetImportsDelay(d time.Duration) func() {
	old := importsDelay.Swap(int64(d))
	return func() { importsDelay.Store(old) }
}

// CopyIn exposes the file transfer without the profile, for benchmarks.
func (s *Session) CopyIn(ctx context.Context, hostPath string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := filepath.Base(hostPath)
	_, err := s.copyIn(ctx, hostPath, name, time.Now(), func(Upload) {})
	return name, err
}

// SessionObjects counts the containers and volumes labelled with a session id.
func (e *Engine) SessionObjects(ctx context.Context, sessionID string) (containers, volumes int, err error) {
	f := make(client.Filters).Add("label", labelSession+"="+sessionID)
	cs, err := e.cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return 0, 0, err
	}
	vs, err := e.cli.VolumeList(ctx, client.VolumeListOptions{Filters: f})
	if err != nil {
		return 0, 0, err
	}
	return len(cs.Items), len(vs.Items), nil
}

// ImportSeconds is how long the kernel took to import its libraries.
func (s *Session) ImportSeconds() float64 { return s.info.Imports }

// RemoveSession removes a session's container and volumes by its id.
func (e *Engine) RemoveSession(ctx context.Context, sessionID string) error {
	return e.removeSessionObjects(ctx, "quarry-"+sessionID, sessionID)
}

// LastKernelTime is how long the last cell's code ran inside the kernel.
func (s *Session) LastKernelTime() time.Duration { return s.lastKernelTime }

// SessionVolume reports the driver, labels and driver options of one of a
// session's volumes ("data" or "output") as the engine created it.
func (e *Engine) SessionVolume(ctx context.Context, sessionID, role string) (driver string, labels, opts map[string]string, err error) {
	data, output := volumeNames(sessionID)
	name := data
	if role == "output" {
		name = output
	}
	v, err := e.cli.VolumeInspect(ctx, name, client.VolumeInspectOptions{})
	if err != nil {
		return "", nil, nil, err
	}
	return v.Volume.Driver, v.Volume.Labels, v.Volume.Options, nil
}

// StartupTimes splits the last start: volumes and container create, attach
// and ContainerStart, and kernel source sent until ready.
func (s *Session) StartupTimes() (create, engineStart, kernel time.Duration) {
	return s.startup.Create, s.startup.EngineStart, s.startup.Kernel
}

// EngineVersionAPI asks the engine's /version endpoint, which Connect skips.
func (e *Engine) EngineVersionAPI(ctx context.Context) (string, error) {
	v, err := e.cli.ServerVersion(ctx, client.ServerVersionOptions{})
	return v.Version, err
}

// ParsePackages exposes the manifest parser.
var ParsePackages = parsePackages

// LoadImageAs loads a sandbox archive under another tag, so a test can
// carry the image into an engine that has it already and remove only what
// it made.
func (e *Engine) LoadImageAs(ctx context.Context, r io.Reader, ref string) (bool, error) {
	_, loaded, err := e.loadImage(ctx, r, nil, ref)
	return loaded, err
}

// RemoveImageTag untags ref (the image itself goes only when untagged).
func (e *Engine) RemoveImageTag(ctx context.Context, ref string) error {
	_, err := e.cli.ImageRemove(ctx, ref, client.ImageRemoveOptions{})
	return err
}

// ImageLayers are the content digests of ref's layers and its recipe label.
func (e *Engine) ImageLayers(ctx context.Context, ref string) ([]string, string, error) {
	img, err := e.cli.ImageInspect(ctx, ref)
	if err != nil {
		return nil, "", err
	}
	return img.RootFS.Layers, img.Config.Labels[recipeLabel], nil
}

// ImportRootfs is build path (b)'s last step, the import with the recipe's
// changes, on a root file system of the test's own.
func (e *Engine) ImportRootfs(ctx context.Context, w io.Writer, rootfs, ref string) error {
	return e.importRootfs(ctx, w, rootfs, ref, currentRecipe.imageChanges())
}

// CreateRacedContainer leaves what a create that raced with Close leaves: a
// session's container, owned by pid, whose volumes the engine made itself
// (unlabelled on Podman, which ignores the mount's volume options).
func (e *Engine) CreateRacedContainer(ctx context.Context, sessionID string, pid int) error {
	o := e.containerOptions(sessionID, ImageRef(), DefaultLimits.withDefaults())
	o.Config.Labels[labelPID] = strconv.Itoa(pid)
	for _, m := range o.HostConfig.Mounts {
		if m.VolumeOptions != nil {
			m.VolumeOptions.Labels[labelPID] = strconv.Itoa(pid)
		}
	}
	_, err := e.cli.ContainerCreate(ctx, o)
	return err
}

// SessionVolumesLeft names the session's volumes the engine still has,
// found by name whatever their labels.
func (e *Engine) SessionVolumesLeft(ctx context.Context, sessionID string) []string {
	var left []string
	for _, name := range sessionVolumes(sessionID) {
		if _, err := e.cli.VolumeInspect(ctx, name, client.VolumeInspectOptions{}); err == nil {
			left = append(left, name)
		}
	}
	return left
}

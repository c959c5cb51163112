package sandbox

import (
	"context"
	"path/filepath"
	"strconv"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image"
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

// KernelReaders are the profile readers the kernel reported when ready.
func (s *Session) KernelReaders() []string { return s.info.Readers }

// SetImportsBroken makes the kernel's import of each module fail in the
// sessions started after it, and returns a restore func.
func SetImportsBroken(modules ...string) func() {
	importsTest.Lock()
	defer importsTest.Unlock()
	old := importsTest.broken
	importsTest.broken = modules
	return func() {
		importsTest.Lock()
		defer importsTest.Unlock()
		importsTest.broken = old
	}
}

// SetImportsSlow keeps module half made for d in the kernel's background
// imports (in sys.modules, its code not run yet, its import lock held), in
// the sessions started after it, and returns a restore func.
func SetImportsSlow(module string, d time.Duration) func() {
	importsTest.Lock()
	defer importsTest.Unlock()
	old := importsTest.slow
	importsTest.slow = map[string]float64{module: d.Seconds()}
	return func() {
		importsTest.Lock()
		defer importsTest.Unlock()
		importsTest.slow = old
	}
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
func SessionObjects(ctx context.Context, e *engine.Engine, sessionID string) (containers, volumes int, err error) {
	f := make(client.Filters).Add("label", engine.LabelSession+"="+sessionID)
	cs, err := e.Client().ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return 0, 0, err
	}
	vs, err := e.Client().VolumeList(ctx, client.VolumeListOptions{Filters: f})
	if err != nil {
		return 0, 0, err
	}
	return len(cs.Items), len(vs.Items), nil
}

// ImportSeconds is how long the kernel took to import its libraries.
func (s *Session) ImportSeconds() float64 { return s.info.Imports }

// LastKernelTime is how long the last cell's code ran inside the kernel.
func (s *Session) LastKernelTime() time.Duration { return s.lastKernelTime }

// SessionVolume reports the driver, labels and driver options of one of a
// session's volumes ("data" or "output") as the engine created it.
func SessionVolume(ctx context.Context, e *engine.Engine, sessionID, role string) (driver string, labels, opts map[string]string, err error) {
	data, output := volumeNames(sessionID)
	name := data
	if role == "output" {
		name = output
	}
	v, err := e.Client().VolumeInspect(ctx, name, client.VolumeInspectOptions{})
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

// CreateRacedContainer leaves what a create that raced with Close leaves: a
// session's container, owned by pid, whose volumes the engine made itself
// (unlabelled on Podman, which ignores the mount's volume options).
func CreateRacedContainer(ctx context.Context, e *engine.Engine, sessionID string, pid int) error {
	o := traitsOf(e).containerOptions(sessionID, image.Ref(), DefaultLimits.withDefaults())
	o.Config.Labels[engine.LabelPID] = strconv.Itoa(pid)
	for _, m := range o.HostConfig.Mounts {
		if m.VolumeOptions != nil {
			m.VolumeOptions.Labels[engine.LabelPID] = strconv.Itoa(pid)
		}
	}
	_, err := e.Client().ContainerCreate(ctx, o)
	return err
}

// SessionVolumesLeft names the session's volumes the engine still has,
// found by name whatever their labels.
func SessionVolumesLeft(ctx context.Context, e *engine.Engine, sessionID string) []string {
	var left []string
	for _, name := range sessionVolumes(sessionID) {
		if _, err := e.Client().VolumeInspect(ctx, name, client.VolumeInspectOptions{}); err == nil {
			left = append(left, name)
		}
	}
	return left
}

// Sweep is the sweep without its line: how many objects it removed.
func Sweep(ctx context.Context, e *engine.Engine) (int, error) {
	n, _, err := sweep(ctx, e)
	return n, err
}

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image"
)

const (
	sandboxUID = "1000:1000"
	dataDir    = "/data"
	outputDir  = "/output"
)

// labels names the owner (this process on this host) so Sweep can tell
// live sessions from orphans.
func labels(sessionID, role string) map[string]string {
	return engine.Labels(sessionID, role, image.RecipeHash())
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.Memory <= 0 {
		l.Memory = d.Memory
	}
	if l.CPUs <= 0 {
		l.CPUs = d.CPUs
	}
	if l.PIDs <= 0 {
		l.PIDs = d.PIDs
	}
	if l.TmpSize <= 0 {
		l.TmpSize = d.TmpSize
	}
	if l.OutputSize <= 0 {
		l.OutputSize = d.OutputSize
	}
	if l.OutputFiles <= 0 {
		l.OutputFiles = d.OutputFiles
	}
	return l
}

// outputInodes caps how many files and folders /output can hold: room for
// intermediate files, but a loop creating millions hits ENOSPC quickly.
func (l Limits) outputInodes() int {
	return max(10*l.OutputFiles, 10000)
}

func volumeNames(sessionID string) (data, output string) {
	return "quarry-" + sessionID + "-data", "quarry-" + sessionID + "-output"
}

func sessionVolumes(sessionID string) []string {
	data, output := volumeNames(sessionID)
	return []string{data, output}
}

// createVolumes makes /data (on the engine's disk, so large inputs fit) and
// /output (a size- and inode-capped tmpfs). Both travel over the API only,
// so a remote DOCKER_HOST works the same as the local socket.
func createVolumes(ctx context.Context, e *engine.Engine, sessionID string, lim Limits) error {
	data, output := volumeNames(sessionID)
	if err := e.CreateVolume(ctx, object(sessionID, data, "data"), client.VolumeCreateOptions{Driver: "local"}); err != nil {
		return err
	}
	return e.CreateVolume(ctx, object(sessionID, output, "output"), client.VolumeCreateOptions{
		Driver: "local", DriverOpts: traitsOf(e).outputDriverOpts(lim),
	})
}

// object names one of a session's engine objects for engine.Create*.
func object(sessionID, name, role string) engine.Object {
	return engine.Object{Name: name, Session: sessionID, Role: role, Recipe: image.RecipeHash()}
}

func containerName(sessionID string) string { return "quarry-" + sessionID }

// outputDriverOpts make /output a tmpfs capped in bytes and inodes. Podman's
// local driver takes size= as a disk quota (and refuses it on a tmpfs), so
// there the cap is nr_blocks, counted in the engine host's pages.
func (t traits) outputDriverOpts(lim Limits) map[string]string {
	size := fmt.Sprintf("size=%d", lim.OutputSize)
	if t.podman {
		page := t.page
		size = fmt.Sprintf("nr_blocks=%d", (lim.OutputSize+page-1)/page)
	}
	o := fmt.Sprintf("%s,nr_inodes=%d,uid=1000,gid=1000,mode=0700,nosuid,nodev,noexec", size, lim.outputInodes())
	return map[string]string{"type": "tmpfs", "device": "tmpfs", "o": o}
}

// traits is what of the engine shapes a session's container.
type traits struct {
	podman  bool
	gvisor  bool   // runsc is offered, and on Docker asked for
	page    int64  // the engine host's page size
	runtime string // the runtime to ask for instead of the engine's default
}

func traitsOf(e *engine.Engine) traits {
	t := traits{podman: e.Kind() == engine.Podman, gvisor: e.Gvisor(), page: e.PageSize()}
	if r, _ := e.RuntimeChoice(); r != "" {
		t.runtime = r
	}
	return t
}

// containerOptions is the hardened container of one session. Nothing of
// the host goes in: no bind mounts, no host environment, no network.
func (t traits) containerOptions(sessionID, image string, lim Limits) client.ContainerCreateOptions {
	data, output := volumeNames(sessionID)
	pids := lim.PIDs
	init := true
	cfg := &container.Config{
		Image:        image,
		Hostname:     "sandbox",
		User:         sandboxUID,
		AttachStdin:  true,
		AttachStdout: true,
		AttachStderr: true,
		OpenStdin:    true,
		StdinOnce:    false,
		// -I: no user site, no PYTHON* variables, no script folder on sys.path.
		Entrypoint: []string{"python3", "-I", "-B", "-c", bootstrap},
		Cmd:        nil,
		WorkingDir: outputDir,
		Env:        sandboxEnv(lim),
		Labels:     labels(sessionID, "sandbox"),
	}
	host := &container.HostConfig{
		NetworkMode:    "none",
		CapDrop:        []string{"ALL"},
		SecurityOpt:    []string{"no-new-privileges"},
		ReadonlyRootfs: true,
		// Its own cgroup namespace: /proc/self/cgroup shows no host paths.
		CgroupnsMode: container.CgroupnsModePrivate,
		Tmpfs:        map[string]string{"/tmp": fmt.Sprintf("rw,noexec,nosuid,nodev,size=%d", lim.TmpSize)},
		Init:         &init,
		// The protocol runs over stdout: a log driver would copy every frame to disk.
		LogConfig: container.LogConfig{Type: "none"},
		Mounts: []mount.Mount{
			// The engine creates a missing volume on its own (a create that
			// raced with Close): on Docker the options make such a volume
			// labelled, so the sweep finds it, and capped like the real one.
			// Podman ignores them; the sweep removes it with its container.
			{Type: mount.TypeVolume, Source: data, Target: dataDir,
				VolumeOptions: &mount.VolumeOptions{Labels: labels(sessionID, "data")}},
		},
		Resources: container.Resources{
			Memory:     lim.Memory,
			MemorySwap: lim.Memory,
			NanoCPUs:   int64(lim.CPUs * 1e9),
			PidsLimit:  &pids,
			Ulimits: []*container.Ulimit{
				{Name: "nofile", Soft: 1024, Hard: 1024},
				{Name: "fsize", Soft: fsizeLimit(lim), Hard: fsizeLimit(lim)},
				{Name: "core", Soft: 0, Hard: 0},
			},
		},
	}
	if t.podman {
		// Podman keeps the volume's noexec only when the mount asks for it,
		// which its API takes in the -v form alone; and with a read-only
		// root it puts unbounded writable tmpfs on /run and /var/tmp unless
		// something is mounted there: empty read-only ones, as on Docker.
		host.Binds = []string{output + ":" + outputDir + ":noexec,nosuid,nodev"}
		host.Tmpfs["/run"] = "ro,noexec,nosuid,nodev,size=64k"
		host.Tmpfs["/var/tmp"] = "ro,noexec,nosuid,nodev,size=64k"
		// Rootless Podman's Docker API drops every ulimit; the kernel's
		// guard sets them there instead.
		host.Ulimits = append(host.Ulimits, &container.Ulimit{Name: "nproc", Soft: engine.PodmanNproc, Hard: engine.PodmanNproc})
		host.Runtime = t.runtime
	} else {
		host.Mounts = append(host.Mounts, mount.Mount{Type: mount.TypeVolume, Source: output, Target: outputDir,
			VolumeOptions: &mount.VolumeOptions{Labels: labels(sessionID, "output"),
				DriverConfig: &mount.Driver{Name: "local", Options: t.outputDriverOpts(lim)}}})
		if t.gvisor {
			host.Runtime = "runsc"
		} else {
			host.Runtime = t.runtime
		}
	}
	return client.ContainerCreateOptions{Name: containerName(sessionID), Config: cfg, HostConfig: host}
}

// sandboxEnv is the whole environment of the kernel: nothing from the host.
func sandboxEnv(lim Limits) []string {
	threads := strconv.Itoa(max(1, int(lim.CPUs+0.5)))
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"LANG=C.UTF-8",
		"LC_ALL=C.UTF-8",
		"HOME=/tmp",
		"TMPDIR=/tmp",
		"MPLBACKEND=Agg",
		"MPLCONFIGDIR=/etc/quarry/mpl",
		"OMP_NUM_THREADS=" + threads,
		"OPENBLAS_NUM_THREADS=" + threads,
	}
}

// removeSessionObjects removes the container and both volumes of a
// session, by their names.
func removeSessionObjects(ctx context.Context, e *engine.Engine, sessionID string) error {
	errs := []error{e.RemoveContainer(ctx, containerName(sessionID))}
	for _, v := range sessionVolumes(sessionID) {
		if err := e.RemoveVolume(ctx, v); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"
)

// Labels put on every container and volume quarry creates; Sweep finds
// orphans by them.
const (
	labelSession = "io.quarry.session"
	labelPID     = "io.quarry.pid"
	labelHost    = "io.quarry.host"
	labelCreated = "io.quarry.created"
	labelRecipe  = "io.quarry.recipe"
	labelRole    = "io.quarry.role"
)

const (
	sandboxUID = "1000:1000"
	dataDir    = "/data"
	outputDir  = "/output"
)

func hostName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown"
	}
	return h
}

// labels names the owner (this process on this host) so Sweep can tell
// live sessions from orphans.
func labels(sessionID, role string) map[string]string {
	return map[string]string{
		labelSession: sessionID,
		labelPID:     strconv.Itoa(os.Getpid()),
		labelHost:    hostName(),
		labelCreated: time.Now().UTC().Format(time.RFC3339),
		labelRecipe:  RecipeHash(),
		labelRole:    role,
	}
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
func (e *Engine) createVolumes(ctx context.Context, sessionID string, lim Limits) error {
	data, output := volumeNames(sessionID)
	if _, err := e.cli.VolumeCreate(ctx, client.VolumeCreateOptions{
		Name: data, Driver: "local", Labels: labels(sessionID, "data"),
	}); err != nil {
		return fmt.Errorf("volume create: %w", err)
	}
	if _, err := e.cli.VolumeCreate(ctx, client.VolumeCreateOptions{
		Name: output, Driver: "local", Labels: labels(sessionID, "output"),
		DriverOpts: e.outputDriverOpts(lim),
	}); err != nil {
		return fmt.Errorf("volume create: %w", err)
	}
	return nil
}

// outputDriverOpts make /output a tmpfs capped in bytes and inodes. Podman's
// local driver takes size= as a disk quota (and refuses it on a tmpfs), so
// there the cap is nr_blocks, counted in the engine host's pages.
func (e *Engine) outputDriverOpts(lim Limits) map[string]string {
	size := fmt.Sprintf("size=%d", lim.OutputSize)
	if e.kind == EnginePodman {
		page := e.pageSize.Load()
		size = fmt.Sprintf("nr_blocks=%d", (lim.OutputSize+page-1)/page)
	}
	o := fmt.Sprintf("%s,nr_inodes=%d,uid=1000,gid=1000,mode=0700,nosuid,nodev,noexec", size, lim.outputInodes())
	return map[string]string{"type": "tmpfs", "device": "tmpfs", "o": o}
}

// podmanNproc is the process rlimit asked of rootful Podman, which otherwise
// asks the runtime for 1048576, more than root may set without
// CAP_SYS_RESOURCE. The pids cgroup is the real cap; rootless Podman's
// Docker API drops every ulimit, and the kernel's guard sets them instead.
const podmanNproc = 32768

// containerOptions is the hardened container of one session. Nothing of
// the host goes in: no bind mounts, no host environment, no network.
func (e *Engine) containerOptions(sessionID, image string, lim Limits) client.ContainerCreateOptions {
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
	switch e.kind {
	case EnginePodman:
		// Podman keeps the volume's noexec only when the mount asks for it,
		// which its API takes in the -v form alone; and with a read-only
		// root it puts unbounded writable tmpfs on /run and /var/tmp unless
		// something is mounted there: empty read-only ones, as on Docker.
		host.Binds = []string{output + ":" + outputDir + ":noexec,nosuid,nodev"}
		host.Tmpfs["/run"] = "ro,noexec,nosuid,nodev,size=64k"
		host.Tmpfs["/var/tmp"] = "ro,noexec,nosuid,nodev,size=64k"
		host.Ulimits = append(host.Ulimits, &container.Ulimit{Name: "nproc", Soft: podmanNproc, Hard: podmanNproc})
	default:
		host.Mounts = append(host.Mounts, mount.Mount{Type: mount.TypeVolume, Source: output, Target: outputDir,
			VolumeOptions: &mount.VolumeOptions{Labels: labels(sessionID, "output"),
				DriverConfig: &mount.Driver{Name: "local", Options: e.outputDriverOpts(lim)}}})
		if e.runsc {
			host.Runtime = "runsc"
		}
	}
	return client.ContainerCreateOptions{Name: "quarry-" + sessionID, Config: cfg, HostConfig: host}
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

// gone reports errors that mean the object is already removed or being
// removed: cleanup treats them as success.
func gone(err error) bool {
	if err == nil || cerrdefs.IsNotFound(err) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "already in progress") || strings.Contains(msg, "No such") ||
		strings.Contains(msg, "is being removed")
}

// removeSessionObjects removes the container and both volumes of a session.
func (e *Engine) removeSessionObjects(ctx context.Context, containerID, sessionID string) error {
	var errs []error
	ids := []string{}
	if containerID != "" {
		ids = append(ids, containerID)
	}
	// A create cancelled on the client side may still have happened on the
	// engine: find the session's containers by label too.
	f := make(client.Filters).Add("label", labelSession+"="+sessionID)
	if cs, err := e.cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f}); err == nil {
		for _, c := range cs.Items {
			if c.ID != containerID {
				ids = append(ids, c.ID)
			}
		}
	}
	for _, id := range ids {
		if err := e.removeContainer(ctx, id); err != nil {
			errs = append(errs, err)
		}
	}
	for _, v := range sessionVolumes(sessionID) {
		if err := e.removeVolume(ctx, v); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// removeContainer force-removes a container. Podman 4.3 refuses while a
// container that just died is "stopped" and not yet cleaned up (its kill
// fails with "container state improper"): that passes within moments.
func (e *Engine) removeContainer(ctx context.Context, id string) error {
	err := retryBriefly(ctx, 50, "container state improper", func() error {
		_, err := e.cli.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
		return err
	})
	if err != nil {
		return fmt.Errorf("container remove: %w", err)
	}
	return nil
}

// removeVolume retries briefly: right after a forced container removal the
// engine may still count the volume as in use.
func (e *Engine) removeVolume(ctx context.Context, name string) error {
	err := retryBriefly(ctx, 20, "in use", func() error {
		_, err := e.cli.VolumeRemove(ctx, name, client.VolumeRemoveOptions{Force: true})
		return err
	})
	if err != nil {
		return fmt.Errorf("volume remove %s: %w", name, err)
	}
	return nil
}

// retryBriefly runs a removal until it is done (gone counts as done), fails
// with an error that does not contain transient, or tries times 100 ms apart.
func retryBriefly(ctx context.Context, tries int, transient string, remove func() error) error {
	var err error
	for i := 0; i < tries; i++ {
		if err = remove(); gone(err) {
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

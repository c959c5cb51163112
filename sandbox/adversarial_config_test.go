package sandbox_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// The engine's own view of a live session container: the settings in
// docs/security.md that a cell cannot observe from inside (log driver, swap,
// mounts, namespaces shared with the host) are checked here.
func TestAdversarialContainerConfig(t *testing.T) {
	e := sandboxtest.Engine(t)
	hostDir := t.TempDir()
	s := sandboxtest.Session(t, e, sandbox.Options{OutputDir: hostDir + "/out", Timeout: 30 * time.Second})
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx := testCtx(t)
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: client.Filters{}.Add("label", "io.quarry.session="+s.ID())})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Fatalf("%d containers labelled io.quarry.session=%s, want 1", len(list.Items), s.ID())
	}
	insp, err := cli.ContainerInspect(ctx, list.Items[0].ID, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hc, cfg := insp.Container.HostConfig, insp.Container.Config
	check := func(ok bool, format string, args ...any) {
		t.Helper()
		if !ok {
			t.Errorf(format, args...)
		}
	}
	check(string(hc.NetworkMode) == "none", "NetworkMode = %q, want none", hc.NetworkMode)
	// Podman reports ALL expanded into its default set; the effect, no
	// capability at all, is checked from inside by TestAdversarialPrivileges.
	dropsAll := slices.Contains(hc.CapDrop, "ALL") ||
		(e.Kind() == engine.Podman && slices.Contains(hc.CapDrop, "SETUID") && slices.Contains(hc.CapDrop, "NET_RAW") && len(hc.CapDrop) >= 10)
	check(dropsAll && len(hc.CapAdd) == 0, "CapDrop %v CapAdd %v, want ALL and none", hc.CapDrop, hc.CapAdd)
	check(!hc.Privileged, "privileged container")
	check(slices.ContainsFunc(hc.SecurityOpt, func(o string) bool { return strings.HasPrefix(o, "no-new-privileges") }),
		"SecurityOpt %v lacks no-new-privileges", hc.SecurityOpt)
	for _, o := range hc.SecurityOpt {
		check(!strings.Contains(o, "unconfined"), "SecurityOpt %q disables a profile", o)
	}
	check(hc.ReadonlyRootfs, "root file system is writable")
	check(hc.LogConfig.Type == "none", "log driver %q: the protocol on stdout would be copied to the host disk", hc.LogConfig.Type)
	// Rootless Podman on cgroup v1 accepts the limits and drops them: then
	// the session must know it (the guard's fallbacks, and a warning).
	en, warn := s.Enforcement(), strings.Join(s.Warnings(), "\n")
	if hc.Memory == 0 {
		check(en.Memory == sandbox.LimitPerProcess && strings.Contains(warn, "memory:"),
			"the engine dropped the memory limit, but the session reports %q with warnings %q", en.Memory, warn)
	} else {
		check(hc.MemorySwap == hc.Memory && en.Memory == sandbox.LimitCgroup,
			"Memory %d MemorySwap %d (want equal: no swap), held by %q", hc.Memory, hc.MemorySwap, en.Memory)
	}
	if hc.PidsLimit == nil || *hc.PidsLimit <= 0 {
		check(en.PIDs == sandbox.LimitPerUser && strings.Contains(warn, "processes:"),
			"the engine dropped the pids limit, but the session reports %q with warnings %q", en.PIDs, warn)
	} else {
		check(en.PIDs == sandbox.LimitCgroup, "pids limit %d held by %q", *hc.PidsLimit, en.PIDs)
	}
	if hc.NanoCPUs == 0 {
		check(en.CPU == sandbox.LimitNone && strings.Contains(warn, "CPU:"),
			"the engine dropped the CPU limit, but the session reports %q with warnings %q", en.CPU, warn)
	} else {
		check(en.CPU == sandbox.LimitCgroup, "CPU limit %d held by %q", hc.NanoCPUs, en.CPU)
	}
	check(en.Syscalls, "the guard's seccomp filter is not in place: %+v", en)
	check(hc.Init != nil && *hc.Init, "no init process")
	tmp := hc.Tmpfs["/tmp"]
	for _, opt := range []string{"noexec", "nosuid", "nodev", "size="} {
		check(strings.Contains(tmp, opt), "/tmp tmpfs options %q lack %s", tmp, opt)
	}
	// Podman lists its volume mounts as binds: a source must be a volume
	// name, never a host path.
	for _, b := range hc.Binds {
		check(!strings.HasPrefix(b, "/") && strings.HasPrefix(b, "quarry-"+s.ID()+"-"), "bind mount of a host path: %s", b)
	}
	if e.Kind() == engine.Podman {
		check(slices.ContainsFunc(hc.Binds, func(b string) bool {
			return strings.HasPrefix(b, "quarry-"+s.ID()+"-output:/output:") && strings.Contains(b, "noexec")
		}), "/output mounted without noexec: %v", hc.Binds)
		for _, dir := range []string{"/run", "/var/tmp"} {
			check(strings.HasPrefix(hc.Tmpfs[dir], "ro"), "%s: %q, want a read-only tmpfs in place of Podman's writable one", dir, hc.Tmpfs[dir])
		}
	} else {
		check(len(hc.Binds) == 0, "bind mounts %v", hc.Binds)
	}
	for _, m := range insp.Container.Mounts {
		check(string(m.Type) != "bind", "bind mount %s -> %s", m.Source, m.Destination)
	}
	for name, mode := range map[string]string{"pid": string(hc.PidMode), "ipc": string(hc.IpcMode), "uts": string(hc.UTSMode), "user": string(hc.UsernsMode)} {
		check(mode != "host", "the %s namespace is shared with the host", name)
	}
	// The engine's default on cgroup v1 is the host cgroup namespace: it shows
	// cgroup paths (the container id) but no control. Logged, not asserted.
	t.Logf("cgroup namespace mode %q", hc.CgroupnsMode)
	check(len(hc.Devices) == 0 && len(hc.PortBindings) == 0, "devices %v ports %v", hc.Devices, hc.PortBindings)
	check(cfg.User != "" && cfg.User != "0" && !strings.HasPrefix(cfg.User, "root") && !strings.HasPrefix(cfg.User, "0:"), "user %q", cfg.User)
	raw := string(insp.Raw)
	for _, leak := range []string{"docker.sock", hostDir} {
		check(!strings.Contains(raw, leak), "container configuration mentions %q", leak)
	}
	if e.Runtime() == "runsc" {
		check(hc.Runtime == "runsc", "gVisor is available but the runtime is %q", hc.Runtime)
	}
	t.Logf("runtime %q, memory %d, pids %v, cpus %d, tmpfs %q; held: %+v", hc.Runtime, hc.Memory, hc.PidsLimit, hc.NanoCPUs, tmp, en)
}

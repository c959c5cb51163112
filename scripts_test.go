package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeCgroups lays out a cgroup hierarchy as the kernel mounts it: v1
// controller folders, a v2 hierarchy at unified/ (hybrid) or at the root.
func fakeCgroups(t *testing.T, layout string) string {
	t.Helper()
	root := t.TempDir()
	mk := func(p, content string) {
		os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
		if content != "-" {
			os.WriteFile(filepath.Join(root, p), []byte(content), 0o644)
		}
	}
	v1 := func() {
		for _, c := range []string{"cpu", "memory", "pids", "systemd"} {
			mk(c+"/tasks", "")
		}
	}
	switch layout {
	case "v1":
		v1()
	case "hybrid":
		v1()
		mk("unified/cgroup.controllers", "")
	case "hybrid+controllers":
		v1()
		mk("unified/cgroup.controllers", "hugetlb\n")
	case "v2":
		mk("cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n")
	}
	return root
}

// TestPodmanRuntimeScript runs scripts/podman-runtime.sh over fake cgroup
// layouts with a trial container that succeeds or is refused: the drop-in
// that makes runc Podman's runtime is written when, and only when, the
// default runtime refuses the layout and runc does not, whatever the files
// say; the message names the layout.
func TestPodmanRuntimeScript(t *testing.T) {
	const refusal = "Error: OCI runtime error: crun: cgroups in hybrid mode not supported, drop all controllers from cgroupv2"
	probes := map[string]string{
		// $1 is the runtime asked for, empty for Podman's default.
		"runs":          `exit 0`,
		"crun refuses":  `[ "$1" = runc ] && exit 0; echo "` + refusal + `"; exit 126`,
		"both refuse":   `echo "` + refusal + `"; exit 126`,
		"other failure": `echo "Error: crun: setrlimit RLIMIT_NOFILE: Operation not permitted"; exit 126`,
	}
	want := map[string]struct {
		ok, dropin bool
	}{
		"runs": {true, false}, "crun refuses": {true, true}, "both refuse": {false, false}, "other failure": {false, false},
	}
	names := map[string]string{"v1": "v1", "hybrid": "hybrid, no v2 controllers",
		"hybrid+controllers": "hybrid, v2 controllers: hugetlb", "v2": "v2 (controllers: cpuset cpu io memory hugetlb pids rdma misc)"}
	for _, layout := range []string{"v1", "hybrid", "hybrid+controllers", "v2"} {
		for probe, body := range probes {
			t.Run(layout+"/"+probe, func(t *testing.T) {
				dir := t.TempDir()
				stub := filepath.Join(dir, "probe")
				os.WriteFile(stub, []byte("#!/bin/sh\n"+body+"\n"), 0o755)
				dropin := filepath.Join(dir, "containers.conf.d", "50-quarry-runc.conf")
				cmd := exec.Command("bash", "scripts/podman-runtime.sh")
				cmd.Env = append(os.Environ(), "CGROUP_ROOT="+fakeCgroups(t, layout), "DROPIN="+dropin, "PROBE="+stub)
				out, err := cmd.CombinedOutput()
				w := want[probe]
				if (err == nil) != w.ok {
					t.Fatalf("exit %v, want ok=%v:\n%s", err, w.ok, out)
				}
				b, derr := os.ReadFile(dropin)
				if w.dropin != (derr == nil) {
					t.Fatalf("drop-in written: %v, want %v:\n%s", derr == nil, w.dropin, out)
				}
				if w.dropin && !strings.Contains(string(b), "runtime = \"runc\"") {
					t.Fatalf("drop-in %q", b)
				}
				if !strings.Contains(string(out), names[layout]) && probe != "both refuse" {
					t.Errorf("output does not name the layout %q:\n%s", names[layout], out)
				}
			})
		}
	}
}

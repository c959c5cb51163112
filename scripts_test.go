package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestInstallDepsCheck runs scripts/install-deps.sh check, which installs
// nothing and needs no root, over a table of its own (QUARRY_HOST_TSV): a
// row that cannot be there, of each kind, fails the check at once, each one
// named with its package; a table of things present passes quietly.
func TestInstallDepsCheck(t *testing.T) {
	abs, err := filepath.Abs("scripts/host.tsv")
	if err != nil {
		t.Fatal(err)
	}
	present := "# kind\tname\tpackage\tused by\n\n" +
		"tool\tbash\tbash\tthe scripts\n" +
		"python\tjson\tpython3\tthe standard library\n" +
		"path\t" + abs + "\tquarry\tthis table's own rows\n"
	missing := present +
		"tool\tquarry-no-such-tool\tquarry-tool-pkg\tnothing\n" +
		"python\tquarry_no_such_module\tpython3-quarry-no-such\tnothing\n" +
		"path\t/nonexistent/quarry/*.ttf\tfonts-quarry-none\tnothing\n"
	run := func(t *testing.T, table string) (string, error) {
		t.Helper()
		path := filepath.Join(t.TempDir(), "host.tsv")
		if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "scripts/install-deps.sh", "check")
		cmd.Env = append(os.Environ(), "QUARRY_HOST_TSV="+path)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("the check took %v", d)
		}
		return string(out), err
	}

	t.Run("missing", func(t *testing.T) {
		out, err := run(t, missing)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("exit %v, want 1:\n%s", err, out)
		}
		for _, want := range []string{
			"tool quarry-no-such-tool: Debian package quarry-tool-pkg",
			"python quarry_no_such_module: Debian package python3-quarry-no-such",
			"path /nonexistent/quarry/*.ttf: Debian package fonts-quarry-none",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output does not say %q:\n%s", want, out)
			}
		}
		for _, present := range []string{"bash", "json", abs} {
			if strings.Contains(out, " "+present+":") {
				t.Errorf("output names %s, which is there:\n%s", present, out)
			}
		}
		if strings.Contains(out, "installing") {
			t.Errorf("the check installed something:\n%s", out)
		}
	})
	t.Run("present", func(t *testing.T) {
		out, err := run(t, present)
		if err != nil || out != "" {
			t.Fatalf("exit %v, want a quiet pass:\n%s", err, out)
		}
	})
	t.Run("unknown kind", func(t *testing.T) {
		out, err := run(t, present+"deb\tfoo\tfoo\tnothing\n")
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(out, "unknown kind deb") {
			t.Fatalf("exit %v, want 2 naming the kind:\n%s", err, out)
		}
	})
}

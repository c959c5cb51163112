package image

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
)

// debootstrapCache keeps downloaded .debs between builds.
const debootstrapCache = "/var/cache/quarry/debootstrap"

// chrootEnv is the environment setup.sh runs with inside the chroot.
var chrootEnv = []string{
	"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	"LANG=C.UTF-8", "HOME=/root", "DEBIAN_FRONTEND=noninteractive",
}

// buildDebootstrap is build path (b): debootstrap a Debian root file system
// from the host's own Debian mirror, run setup.sh in it, and import it.
func buildDebootstrap(ctx context.Context, e *engine.Engine, w io.Writer, r recipe, ref string, start time.Time) error {
	if err := debootstrapReady(); err != nil {
		return err
	}
	mirror, err := DebianMirror("/")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(debootstrapCache, 0o755); err != nil {
		return fmt.Errorf("debootstrap cache: %w", err)
	}
	sweepStaleRootfs()
	work, err := os.MkdirTemp(rootfsParent, fmt.Sprintf("quarry-rootfs-%d-", os.Getpid()))
	if err != nil {
		return fmt.Errorf("rootfs dir: %w", err)
	}
	defer removeRootfs(work)
	rootfs := filepath.Join(work, "rootfs")
	phase := func(n int, msg string) {
		fmt.Fprintf(w, "[%d/4] %s (%s elapsed)\n", n, msg, time.Since(start).Round(time.Second))
	}

	phase(1, "bootstrapping Debian "+debianSuite+" from "+mirror)
	args := []string{"--variant=minbase", "--cache-dir=" + debootstrapCache,
		"--include=" + strings.Join(r.packages(), ","), debianSuite, rootfs, mirror, debootstrapScript()}
	if kr := archiveKeyring(); kr != "" {
		args = append([]string{"--keyring=" + kr}, args...)
	}
	if err := runLogged(ctx, w, "debootstrap", exec.CommandContext(ctx, "debootstrap", args...)); err != nil {
		// The detailed log goes away with the build folder: show its end.
		if log, rerr := os.ReadFile(filepath.Join(rootfs, "debootstrap/debootstrap.log")); rerr == nil {
			lines := strings.Split(strings.TrimSpace(string(log)), "\n")
			for _, l := range lines[max(0, len(lines)-20):] {
				fmt.Fprintf(w, "debootstrap.log: %s\n", l)
			}
		}
		return fmt.Errorf("debootstrap %s from %s: %w (see the debootstrap lines above)", debianSuite, mirror, err)
	}

	phase(2, "setting up the root file system (setup.sh: user, setuid strip, font cache, .pyc)")
	if err := os.MkdirAll(filepath.Join(rootfs, "tmp/quarry"), 0o755); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	for _, name := range recipeFiles {
		if err := os.WriteFile(filepath.Join(rootfs, "tmp/quarry", name), r[name], 0o644); err != nil {
			return fmt.Errorf("setup: %w", err)
		}
	}
	cmd := exec.CommandContext(ctx, "chroot", rootfs, "/bin/sh", "/tmp/quarry/setup.sh")
	cmd.Env = chrootEnv
	if err := runLogged(ctx, w, "setup", cmd); err != nil {
		return fmt.Errorf("setup.sh in the chroot: %w", err)
	}
	if err := os.RemoveAll(filepath.Join(rootfs, "tmp/quarry")); err != nil {
		return fmt.Errorf("setup: %w", err)
	}

	phase(3, "packing the root file system and importing it as "+ref)
	if err := importRootfs(ctx, e, w, rootfs, ref, r.imageChanges()); err != nil {
		return err
	}
	phase(4, "checking the imported image")
	if ok, err := Exists(ctx, e, ref); err != nil || !ok {
		return fmt.Errorf("image import: %s missing after import (%v)", ref, err)
	}
	return nil
}

// debootstrapPreflight fails early, before any progress is printed.
func debootstrapPreflight() error { return debootstrapReady() }

// debootstrapReady explains what is missing before anything starts.
func debootstrapReady() error {
	if os.Geteuid() != 0 {
		return ErrNeedRoot
	}
	if _, err := exec.LookPath("debootstrap"); err != nil {
		return errors.New("debootstrap is not installed: run `sudo apt-get install debootstrap` (or scripts/install-deps.sh)")
	}
	if _, err := os.Stat(debootstrapScript()); err != nil {
		return fmt.Errorf("this debootstrap cannot build Debian %s: install a newer debootstrap (apt-get install -t bookworm-backports debootstrap)", debianSuite)
	}
	return nil
}

// debootstrapScript is the suite's own script, or sid's, which every
// debootstrap that knows bookworm has: testing is built the same way, and
// older debootstraps do not know testing's code name yet.
func debootstrapScript() string {
	dir := "/usr/share/debootstrap/scripts/"
	if _, err := os.Stat(dir + debianSuite); err == nil {
		return dir + debianSuite
	}
	return dir + "sid"
}

// importRootfs streams `tar` of rootfs into the engine's image import.
func importRootfs(ctx context.Context, e *engine.Engine, w io.Writer, rootfs, ref string, changes []string) error {
	tarCmd := exec.CommandContext(ctx, "tar", "--numeric-owner", "--xattrs", "-C", rootfs,
		"--exclude=./dev/*", "--exclude=./proc/*", "--exclude=./sys/*", "--exclude=./tmp/*",
		"--exclude=./var/tmp/*", "--exclude=./debootstrap", "-cf", "-", ".")
	var stderr strings.Builder
	tarCmd.Stderr = &stderr
	out, err := tarCmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("tar: %w", err)
	}
	if err := tarCmd.Start(); err != nil {
		return fmt.Errorf("tar: %w", err)
	}
	res, err := e.Client().ImageImport(ctx, client.ImageImportSource{Source: out, SourceName: "-"}, ref,
		client.ImageImportOptions{Changes: changes, Message: "quarry sandbox, recipe " + RecipeHash()})
	if err != nil {
		_ = tarCmd.Process.Kill()
		_ = tarCmd.Wait()
		return fmt.Errorf("image import: %w", err)
	}
	defer res.Close()
	streamErr := readJSONMessages(res, w, "import")
	if err := tarCmd.Wait(); err != nil {
		return fmt.Errorf("tar: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	if streamErr != nil {
		return fmt.Errorf("image import: %w", streamErr)
	}
	return nil
}

// rootfsParent holds build folders: on disk, not a tmpfs, and able to hold
// device nodes.
const rootfsParent = "/var/tmp"

// sweepStaleRootfs removes build folders of builds that were killed before
// they could clean up (the folder name carries the builder's pid).
func sweepStaleRootfs() {
	dirs, _ := filepath.Glob(filepath.Join(rootfsParent, "quarry-rootfs-*"))
	for _, dir := range dirs {
		var pid int
		if _, err := fmt.Sscanf(filepath.Base(dir), "quarry-rootfs-%d-", &pid); err == nil && pid > 0 {
			if pid == os.Getpid() || syscall.Kill(pid, 0) != syscall.ESRCH {
				continue // its builder still runs
			}
		} else if fi, err := os.Stat(dir); err != nil || time.Since(fi.ModTime()) < 6*time.Hour {
			continue // unknown owner: only when clearly abandoned
		}
		removeRootfs(dir)
	}
}

// removeRootfs deletes a build directory, unmounting first anything a failed
// debootstrap left mounted inside (/proc, /sys), so RemoveAll never walks
// into the host's own /proc or /dev.
func removeRootfs(dir string) {
	mounts, _ := os.ReadFile("/proc/self/mounts")
	var under []string
	for _, line := range strings.Split(string(mounts), "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && strings.HasPrefix(f[1], dir+"/") {
			under = append(under, f[1])
		}
	}
	for i := len(under) - 1; i >= 0; i-- { // deepest last mounted first
		_ = syscall.Unmount(under[i], syscall.MNT_DETACH)
	}
	for _, m := range under {
		if still, _ := os.ReadFile("/proc/self/mounts"); strings.Contains(string(still), " "+m+" ") {
			return // leave it rather than delete through a mount
		}
	}
	_ = os.RemoveAll(dir)
}

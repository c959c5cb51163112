package image

import (
	"archive/tar"
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
)

// Installer adds Debian packages to the sandbox image of one engine and
// takes them away again, always building from the base image: the derived
// image is the base plus every extra, never a stack of additions.
type Installer struct {
	Engine  *engine.Engine
	Archive Archive
	// Repo holds the derived images; empty is quarry-sandbox. Tests use
	// their own, so no session on the machine sees their extras.
	Repo string
	// Base is the image extras go on; empty is Ref(), this recipe's.
	Base string
	// Cache holds apt's lists and downloads; empty is CacheDir().
	Cache string
}

// CacheDir is where apt's lists and downloads for extras are kept:
// $XDG_CACHE_HOME/quarry/apt when set, else /var/cache/quarry/apt for root
// and the user's cache folder for others.
func CacheDir() string {
	if x := os.Getenv("XDG_CACHE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "quarry", "apt")
	}
	if os.Geteuid() == 0 {
		return "/var/cache/quarry/apt"
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "quarry", "apt")
	}
	return filepath.Join(os.TempDir(), "quarry-apt")
}

func (in *Installer) repo() string {
	if in.Repo != "" {
		return in.Repo
	}
	return imageRepo
}

func (in *Installer) base() string {
	if in.Base != "" {
		return in.Base
	}
	return Ref()
}

func (in *Installer) cache() string {
	if in.Cache != "" {
		return in.Cache
	}
	return CacheDir()
}

// Current is the derived image sessions use now; ok is false when no
// extras were added (the base is the sandbox).
func (in *Installer) Current(ctx context.Context) (d Derived, ok bool, err error) {
	return derivedImage(ctx, in.Engine, currentRef(in.repo()))
}

// baseImage is what apt resolves against: the base image's id, its dpkg
// status (copied out of a container that is created, never started) and
// installed packages, and its architecture.
type baseImage struct {
	Derived
	status    string            // host copy of /var/lib/dpkg/status
	arch      string            // dpkg architecture (of its dpkg)
	installed map[string]string // name → version
}

func (in *Installer) baseImage(ctx context.Context) (baseImage, error) {
	ref := in.base()
	img, err := in.Engine.Client().ImageInspect(ctx, ref)
	if err != nil {
		if ok, _ := Exists(ctx, in.Engine, ref); !ok {
			return baseImage{}, fmt.Errorf("the sandbox image %s is not built: run quarry sandbox build first", ref)
		}
		return baseImage{}, fmt.Errorf("image inspect %s: %w", ref, err)
	}
	b := baseImage{Derived: Derived{Ref: ref, ID: img.ID}}
	dir := filepath.Join(in.cache(), "status")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return b, fmt.Errorf("apt cache: %w", err)
	}
	b.status = filepath.Join(dir, strings.TrimPrefix(img.ID, "sha256:")[:min(24, len(strings.TrimPrefix(img.ID, "sha256:")))])
	if _, err := os.Stat(b.status); err != nil {
		if err := copyStatus(ctx, in.Engine, ref, b.status); err != nil {
			return b, err
		}
	}
	b.installed, b.arch, err = readStatus(b.status)
	if err != nil {
		return b, err
	}
	return b, nil
}

// copyStatus copies an image's dpkg status to path.
func copyStatus(ctx context.Context, e *engine.Engine, ref, path string) error {
	id, remove, err := readOnlyContainer(ctx, e, ref, "status")
	defer remove()
	if err != nil {
		return fmt.Errorf("image status: %w", err)
	}
	rc, err := e.Client().CopyFromContainer(ctx, id, client.CopyFromContainerOptions{SourcePath: "/var/lib/dpkg/status"})
	if err != nil {
		return fmt.Errorf("image status: %s has no dpkg status: %w", ref, err)
	}
	defer rc.Content.Close()
	tr := tar.NewReader(rc.Content)
	if _, err := tr.Next(); err != nil {
		return fmt.Errorf("image status: %w", err)
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("image status: %w", err)
	}
	_, err = io.Copy(f, io.LimitReader(tr, 64<<20))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("image status: %w", err)
	}
	return os.Rename(tmp, path)
}

// readStatus reads a dpkg status file: the installed packages and dpkg's
// own architecture, which is the image's.
func readStatus(path string) (map[string]string, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("image status: %w", err)
	}
	defer f.Close()
	installed := map[string]string{}
	arch := ""
	var name, version, status, parch string
	flush := func() {
		if name != "" && strings.HasSuffix(status, " installed") {
			installed[name] = version
			if name == "dpkg" {
				arch = parch
			}
		}
		name, version, status, parch = "", "", "", ""
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			flush()
			continue
		}
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		switch k {
		case "Package":
			name = v
		case "Version":
			version = v
		case "Status":
			status = v
		case "Architecture":
			parch = v
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, "", fmt.Errorf("image status: %w", err)
	}
	if arch == "" {
		return nil, "", errors.New("image status: the image's dpkg status names no dpkg: is it a Debian image?")
	}
	return installed, arch, nil
}

// open prepares apt for the base image and takes the cache's lock.
func (in *Installer) open(ctx context.Context) (*apt, baseImage, func(), error) {
	if in.Archive.URL == "" {
		return nil, baseImage{}, nil, errors.New("no Debian archive to add packages from")
	}
	b, err := in.baseImage(ctx)
	if err != nil {
		return nil, b, nil, err
	}
	x, err := newApt(in.cache(), in.Archive, b.arch, b.status)
	if err != nil {
		return nil, b, nil, err
	}
	unlock, err := lockCache(ctx, x.dir)
	if err != nil {
		return nil, b, nil, err
	}
	return x, b, unlock, nil
}

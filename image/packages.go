package image

import (
	"archive/tar"
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
)

// packageManifest is written by setup.sh: every Debian package in the
// image, "name<TAB>version" per line.
const packageManifest = "/etc/quarry/packages.tsv"

// Package is one Debian package installed in the sandbox image.
type Package struct {
	Name    string
	Version string
}

func (p Package) String() string { return p.Name + " " + p.Version }

// ErrNoManifest says an image has no package manifest (a custom image, or
// one built before the manifest existed).
var ErrNoManifest = errors.New("the image has no package manifest (" + packageManifest + ")")

// Packages lists the packages of image ref, read from its manifest
// through a container that is created, never started, and removed again:
// nothing in the image runs.
func Packages(ctx context.Context, e *engine.Engine, ref string) ([]Package, error) {
	id, remove, err := readOnlyContainer(ctx, e, ref, "manifest")
	defer remove()
	if err != nil {
		return nil, fmt.Errorf("image packages: %w", err)
	}
	rc, err := e.Client().CopyFromContainer(ctx, id, client.CopyFromContainerOptions{SourcePath: packageManifest})
	if err != nil {
		if strings.Contains(err.Error(), "No such") || strings.Contains(err.Error(), "not found") {
			return nil, fmt.Errorf("image packages: %s: %w", ref, ErrNoManifest)
		}
		return nil, fmt.Errorf("image packages: copy from container: %w", err)
	}
	defer rc.Content.Close()
	tr := tar.NewReader(rc.Content)
	if _, err := tr.Next(); err != nil {
		return nil, fmt.Errorf("image packages: %s: %w", ref, ErrNoManifest)
	}
	return parsePackages(io.LimitReader(tr, 1<<20))
}

// parsePackages reads a manifest; lines that are not "name<TAB>version"
// are skipped.
func parsePackages(r io.Reader) ([]Package, error) {
	var pkgs []Package
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		name, version, ok := strings.Cut(strings.TrimSpace(sc.Text()), "\t")
		if ok && name != "" && version != "" && !strings.ContainsAny(name+version, " \t") {
			pkgs = append(pkgs, Package{Name: name, Version: version})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("image packages: %w", err)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("image packages: %w", ErrNoManifest)
	}
	return pkgs, nil
}

// RecipePackages picks from pkgs those the recipe installs by name
// (packages.txt), in the recipe's order: the versions worth showing.
func RecipePackages(pkgs []Package) []Package {
	byName := make(map[string]Package, len(pkgs))
	for _, p := range pkgs {
		byName[p.Name] = p
	}
	var out []Package
	for _, name := range currentRecipe.packages() {
		if p, ok := byName[name]; ok {
			out = append(out, p)
		}
	}
	return out
}

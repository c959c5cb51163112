package image

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/kernel"
)

// ImageRef is the tag of the image built from the current recipe,
// quarry-sandbox:<recipe hash>.
func Ref() string { return imageRepo + ":" + RecipeHash() }

// RecipeHash identifies the image recipe (package list, Dockerfile, setup).
func RecipeHash() string { return currentRecipe.hash() }

// ImagePresent reports whether the image for the current recipe exists.
func Present(ctx context.Context, e *engine.Engine) (bool, error) {
	return Exists(ctx, e, Ref())
}

// ImageExists reports whether the engine has the image ref (a custom
// image named in the configuration, or quarry's own).
func Exists(ctx context.Context, e *engine.Engine, ref string) (bool, error) {
	_, err := e.Client().ImageInspect(ctx, ref)
	if err == nil {
		return true, nil
	}
	if cerrdefs.IsNotFound(err) {
		return false, nil
	}
	return false, fmt.Errorf("image inspect %s: %w", ref, err)
}

// BuildImage builds the image for the current recipe, writing progress to w.
// It uses the Dockerfile when its base image is already in the engine (no
// registry is assumed), and otherwise debootstraps from the host's Debian
// mirror, which needs root.
func Build(ctx context.Context, e *engine.Engine, w io.Writer) error {
	return BuildWith(ctx, e, w, BuildAuto)
}

// BuildPath selects how BuildImageWith builds the image.
type BuildPath string

const (
	BuildAuto        BuildPath = "auto"        // Dockerfile when its base is present, else debootstrap
	BuildDockerfile  BuildPath = "dockerfile"  // docker build FROM debian:forky-slim
	BuildDebootstrap BuildPath = "debootstrap" // offline: debootstrap + import
)

// BuildImageWith builds the image for the current recipe by the given path.
func BuildWith(ctx context.Context, e *engine.Engine, w io.Writer, path BuildPath) error {
	if w == nil {
		w = io.Discard
	}
	start := time.Now()
	ref := Ref()
	if path == BuildAuto || path == "" {
		path = BuildDebootstrap
		if ok, err := Exists(ctx, e, dockerfileTag); err != nil {
			return err
		} else if ok {
			path = BuildDockerfile
		}
	}
	var err error
	switch path {
	case BuildDockerfile:
		fmt.Fprintf(w, "building %s with the Dockerfile (FROM %s)\n", ref, dockerfileTag)
		err = buildDockerfile(ctx, e, w, currentRecipe, ref)
	case BuildDebootstrap:
		if err := debootstrapPreflight(); err != nil {
			return err
		}
		fmt.Fprintf(w, "building %s offline with debootstrap (no %s in the engine)\n", ref, dockerfileTag)
		err = buildDebootstrap(ctx, e, w, currentRecipe, ref, start)
	default:
		return fmt.Errorf("image build: unknown build path %q: use auto, dockerfile or debootstrap", path)
	}
	if err != nil {
		return err
	}
	size := ""
	if info, err := e.Client().ImageInspect(ctx, ref); err == nil {
		size = ", " + kernel.FormatSize(info.Size)
	}
	fmt.Fprintf(w, "built %s in %s%s\n", ref, time.Since(start).Round(time.Second), size)
	return nil
}

// EnsureImage builds the image when it is missing or its recipe changed,
// saying so on w first; it writes nothing when the image is there.
func Ensure(ctx context.Context, e *engine.Engine, w io.Writer) error {
	ok, err := Present(ctx, e)
	if err != nil || ok {
		return err
	}
	fmt.Fprintln(w, "building the sandbox image "+Ref()+" (first run only; this takes a few minutes)")
	return Build(ctx, e, w)
}

// OlderImages lists up to three quarry-sandbox tags of other recipes (this
// recipe's derived images are not older ones), which
// tell "the recipe changed" apart from "never built", without the prefixes
// Podman adds (localhost/ for a load, docker.io/library/ for an import).
func Older(ctx context.Context, e *engine.Engine) ([]string, error) {
	res, err := e.Client().ImageList(ctx, client.ImageListOptions{Filters: make(client.Filters).Add("reference", imageRepo)})
	if err != nil {
		return nil, fmt.Errorf("image list: %w", err)
	}
	var out []string
	for _, img := range res.Items {
		for _, t := range img.RepoTags {
			t = strings.TrimPrefix(strings.TrimPrefix(t, "localhost/"), "docker.io/library/")
			if strings.HasPrefix(t, imageRepo+":") && t != Ref() && !strings.HasPrefix(t, Ref()+"-") && len(out) < 3 && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out, nil
}

// ErrNeedRoot says the offline build needs privileges the process lacks.
var ErrNeedRoot = errors.New("building the sandbox image needs root (debootstrap): run `sudo quarry sandbox build` or `make image`")

package image

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
)

// buildDockerfile is build path (a): docker build of the embedded Dockerfile
// with packages.txt and setup.sh as its context.
func buildDockerfile(ctx context.Context, e *engine.Engine, w io.Writer, r recipe, ref string) error {
	buildCtx, err := r.tarball()
	if err != nil {
		return fmt.Errorf("image build: %w", err)
	}
	res, err := e.Client().ImageBuild(ctx, buildCtx, client.ImageBuildOptions{
		Tags:        []string{ref},
		Labels:      map[string]string{recipeLabel: r.hash()},
		Dockerfile:  "Dockerfile",
		Remove:      true,
		ForceRemove: true,
		PullParent:  false,
	})
	if err != nil {
		return fmt.Errorf("image build: %w", err)
	}
	defer res.Body.Close()
	if err := readJSONMessages(res.Body, w, "build"); err != nil {
		return fmt.Errorf("image build: %w", err)
	}
	return nil
}

// tarball is the recipe as a docker build context.
func (r recipe) tarball() (io.Reader, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range recipeFiles {
		hdr := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(r[name]))}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(r[name]); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return &buf, nil
}

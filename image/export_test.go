package image

import (
	"context"
	"io"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
)

// ParsePackages exposes the manifest parser.
var ParsePackages = parsePackages

// LoadImageAs loads a sandbox archive under another tag, so a test can
// carry the image into an engine that has it already and remove only what
// it made.
func LoadImageAs(ctx context.Context, e *engine.Engine, r io.Reader, ref string) (bool, error) {
	_, loaded, err := load(ctx, e, r, nil, ref)
	return loaded, err
}

// RemoveImageTag untags ref (the image itself goes only when untagged).
func RemoveImageTag(ctx context.Context, e *engine.Engine, ref string) error {
	_, err := e.Client().ImageRemove(ctx, ref, client.ImageRemoveOptions{})
	return err
}

// ImageLayers are the content digests of ref's layers and its recipe label.
func ImageLayers(ctx context.Context, e *engine.Engine, ref string) ([]string, string, error) {
	img, err := e.Client().ImageInspect(ctx, ref)
	if err != nil {
		return nil, "", err
	}
	return img.RootFS.Layers, img.Config.Labels[recipeLabel], nil
}

// ImportRootfs is build path (b)'s last step, the import with the recipe's
// changes, on a root file system of the test's own.
func ImportRootfs(ctx context.Context, e *engine.Engine, w io.Writer, rootfs, ref string) error {
	return importRootfs(ctx, e, w, rootfs, ref, currentRecipe.imageChanges())
}

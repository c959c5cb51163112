package image_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// `quarry sandbox build` imports into whichever engine DOCKER_HOST names:
// the debootstrap path's import, on a tiny root file system, carries the
// recipe's user, folder and label there, under a name the engine finds by
// the short tag (Podman files it as docker.io/library/...; a load as
// localhost/...).
func TestImportRootfsIntoEngine(t *testing.T) {
	e := sandboxtest.Engine(t)
	rootfs := t.TempDir()
	if err := os.WriteFile(filepath.Join(rootfs, "marker"), []byte("quarry"), 0o644); err != nil {
		t.Fatal(err)
	}
	ref := "quarry-sandbox-importtest:" + image.RecipeHash() + "-" + randHex()
	if err := image.ImportRootfs(testCtx(t), e, io.Discard, rootfs, ref); err != nil {
		t.Fatalf("import into %s: %v", e.Describe(), err)
	}
	t.Cleanup(func() {
		if err := image.RemoveImageTag(testCtx(t), e, ref); err != nil {
			t.Errorf("remove %s: %v", ref, err)
		}
	})
	ok, err := image.Exists(testCtx(t), e, ref)
	if err != nil || !ok {
		t.Fatalf("%s not found by its short name after the import: %v", ref, err)
	}
	layers, recipe, err := image.ImageLayers(testCtx(t), e, ref)
	if err != nil || recipe != image.RecipeHash() || len(layers) != 1 {
		t.Fatalf("imported image: recipe label %q, %d layers, %v", recipe, len(layers), err)
	}
	if got, _ := image.Older(testCtx(t), e); strings.Contains(strings.Join(got, " "), "/") {
		t.Errorf("other sandbox images %q keep a registry prefix", got)
	}
}

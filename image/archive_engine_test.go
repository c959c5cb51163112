package image_test

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// TestSaveLoadAcrossEngines carries the sandbox image from the engine at
// DOCKER_HOST to the one at QUARRY_TEST_LOAD_HOST (in CI: Docker to rootful
// Podman) through a sandbox archive on disk, and runs a cell there. It loads
// under a tag of its own and removes only that tag.
func TestSaveLoadAcrossEngines(t *testing.T) {
	target := os.Getenv("QUARRY_TEST_LOAD_HOST")
	if target == "" {
		t.Skip("set QUARRY_TEST_LOAD_HOST to a second engine (make test-podman does) to carry the image there")
	}
	src := sandboxtest.Engine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	archive := filepath.Join(t.TempDir(), "sandbox.tar")
	f, err := os.Create(archive)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	info, err := image.Save(ctx, src, f, false)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("save from %s: %v", src.Describe(), err)
	}
	fi, _ := os.Stat(archive)
	t.Logf("saved %s from %s: %d MB in %s", info.Ref, info.Engine, fi.Size()/1_000_000, time.Since(start).Round(100*time.Millisecond))
	if info.Recipe != image.RecipeHash() || len(info.Layers) == 0 {
		t.Fatalf("archive header %+v", info)
	}

	t.Setenv("DOCKER_HOST", target)
	dst, err := engine.Connect(ctx)
	if err != nil {
		unreachable(t, err)
	}
	t.Cleanup(func() { dst.Close() })
	tag := "quarry-sandbox-roundtrip:" + image.RecipeHash() + "-" + randHex()
	f, err = os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start = time.Now()
	loaded, err := image.LoadImageAs(ctx, dst, f, tag)
	if err != nil {
		t.Fatalf("load into %s: %v", dst.Describe(), err)
	}
	t.Cleanup(func() {
		if err := image.RemoveImageTag(context.Background(), dst, tag); err != nil {
			t.Errorf("remove tag %s: %v", tag, err)
		}
	})
	t.Logf("loaded into %s as %s in %s", dst.Describe(), tag, time.Since(start).Round(100*time.Millisecond))
	if !loaded {
		t.Fatalf("%s reported as already present in %s", tag, dst.Describe())
	}
	layers, recipe, err := image.ImageLayers(ctx, dst, tag)
	if err != nil || recipe != image.RecipeHash() || !slices.Equal(layers, info.Layers) {
		t.Fatalf("loaded image: recipe %q, %d layers (%v); want %s and the saved %d layers", recipe, len(layers), err, image.RecipeHash(), len(info.Layers))
	}
	s := sandboxtest.Session(t, dst, sandbox.Options{Image: tag})
	res, err := s.Exec(ctx, "import pandas as pd\nprint(pd.DataFrame({'a': [1, 2, 3]})['a'].sum())", nil)
	if err != nil || res.Error != nil {
		t.Fatalf("cell on the loaded image: %v %+v", err, res.Error)
	}
	if strings.TrimSpace(res.Stdout) != "6" {
		t.Fatalf("cell on the loaded image printed %q", res.Stdout)
	}
}

// An archive of another recipe is refused before the engine sees a byte.
func TestLoadRefusesOtherRecipe(t *testing.T) {
	e := sandboxtest.Engine(t)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr, _ := json.Marshal(image.ArchiveInfo{Format: 1, Recipe: "000000000000", Engine: "Docker 20.10", Saved: "2026-01-01T00:00:00Z"})
	tw.WriteHeader(&tar.Header{Name: "quarry-sandbox.json", Mode: 0o644, Size: int64(len(hdr))})
	tw.Write(hdr)
	tw.Close()
	_, loaded, err := image.Load(testCtx(t), e, &buf, nil)
	if !errors.Is(err, image.ErrArchiveRecipe) || loaded || !strings.Contains(err.Error(), "000000000000") ||
		!strings.Contains(err.Error(), image.RecipeHash()) {
		t.Fatalf("load of recipe 000000000000: loaded %v, %v", loaded, err)
	}
}

func unreachable(t *testing.T, err error) {
	t.Helper()
	t.Fatalf("QUARRY_TEST_LOAD_HOST names an engine that cannot be reached: %v", err)
}

func randHex() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}

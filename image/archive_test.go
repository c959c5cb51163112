package image

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

type tarEntry struct {
	name string
	body string
}

func makeTar(t *testing.T, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		if err := writeTarFile(tw, e.name, []byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func header(t *testing.T, info ArchiveInfo) string {
	b, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadArchiveInfo(t *testing.T) {
	good := ArchiveInfo{Format: archiveFormat, Recipe: RecipeHash(), Ref: Ref(), Layers: []string{"sha256:aa"}}
	plain := makeTar(t, tarEntry{archiveHeaderName, header(t, good)}, tarEntry{"manifest.json", "[]"})
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(plain)
	w.Close()
	for name, b := range map[string][]byte{"plain": plain, "gzip": gz.Bytes()} {
		info, tr, err := ReadArchiveInfo(bytes.NewReader(b))
		if err != nil || info.Recipe != RecipeHash() || info.Layers[0] != "sha256:aa" {
			t.Fatalf("%s: %+v, %v", name, info, err)
		}
		if h, err := tr.Next(); err != nil || h.Name != "manifest.json" {
			t.Fatalf("%s: the reader is not on the image tar: %v %v", name, h, err)
		}
	}
	bad := map[string][]byte{
		"docker save output": makeTar(t, tarEntry{"manifest.json", "[]"}),
		"random bytes":       bytes.Repeat([]byte("quarry"), 200),
		"empty":              nil,
	}
	for name, b := range bad {
		if _, _, err := ReadArchiveInfo(bytes.NewReader(b)); err == nil || !strings.Contains(err.Error(), "not a quarry sandbox archive") {
			t.Errorf("%s: %v, want 'not a quarry sandbox archive'", name, err)
		}
	}
	newer := good
	newer.Format = 2
	if _, _, err := ReadArchiveInfo(bytes.NewReader(makeTar(t, tarEntry{archiveHeaderName, header(t, newer)}))); err == nil ||
		!strings.Contains(err.Error(), "format 2") {
		t.Errorf("format 2: %v", err)
	}
}

// Whatever an archive's manifest names, only the sandbox tag is loaded, and
// entries that leave the tar are refused.
func TestCopyImageTarNamesOnlyTheSandboxImage(t *testing.T) {
	manifest := `[{"Config":"c.json","RepoTags":["debian:12","evil/quarry:latest"],"Layers":["l/layer.tar"]}]`
	in := makeTar(t, tarEntry{"c.json", "{}"}, tarEntry{"l/layer.tar", "layer"},
		tarEntry{"repositories", `{"debian":{"12":"x"}}`}, tarEntry{"manifest.json", manifest})
	var out bytes.Buffer
	tw := tar.NewWriter(&out)
	if err := copyImageTar(tar.NewReader(bytes.NewReader(in)), tw, []string{"quarry-sandbox:abc"}); err != nil {
		t.Fatal(err)
	}
	tw.Close()
	tr := tar.NewReader(&out)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if h.Name == "manifest.json" {
			var m []struct{ RepoTags []string }
			if err := json.NewDecoder(tr).Decode(&m); err != nil || len(m) != 1 || len(m[0].RepoTags) != 1 || m[0].RepoTags[0] != "quarry-sandbox:abc" {
				t.Fatalf("manifest %+v, %v: want the one tag quarry-sandbox:abc", m, err)
			}
		}
	}
	if strings.Join(names, " ") != "c.json l/layer.tar manifest.json" {
		t.Fatalf("entries %q: want the image without the legacy repositories file", names)
	}

	refused := map[string][]tarEntry{
		"path outside":    {{"../etc/passwd", "x"}, {"manifest.json", manifest}},
		"absolute path":   {{"/etc/passwd", "x"}, {"manifest.json", manifest}},
		"two images":      {{"manifest.json", `[{"RepoTags":["a:1"]},{"RepoTags":["b:1"]}]`}},
		"second header":   {{archiveHeaderName, "{}"}, {"manifest.json", manifest}},
		"no manifest":     {{"c.json", "{}"}},
		"broken manifest": {{"manifest.json", "{"}},
	}
	for name, entries := range refused {
		err := copyImageTar(tar.NewReader(bytes.NewReader(makeTar(t, entries...))), tar.NewWriter(io.Discard), []string{"quarry-sandbox:abc"})
		if err == nil {
			t.Errorf("%s: copied", name)
		}
	}
}

// An archive with extras holds two images: the base (fewer layers) is named
// the sandbox tag and the derived image its own, whatever order the engine
// saved them in.
func TestRetagManifestNamesBaseAndDerived(t *testing.T) {
	manifest := `[{"Config":"d.json","RepoTags":["x:1"],"Layers":["a.tar","b.tar"]},{"Config":"b.json","RepoTags":["y:2"],"Layers":["a.tar"]}]`
	b, err := retagManifest([]byte(manifest), []string{"quarry-sandbox:r", "quarry-sandbox:r-h"})
	if err != nil {
		t.Fatal(err)
	}
	var m []struct {
		Config   string
		RepoTags []string
	}
	json.Unmarshal(b, &m)
	if len(m) != 2 || m[0].Config != "b.json" || m[0].RepoTags[0] != "quarry-sandbox:r" || m[1].RepoTags[0] != "quarry-sandbox:r-h" {
		t.Fatalf("retagged %s", b)
	}
	if _, err := retagManifest([]byte(manifest), []string{"quarry-sandbox:r"}); err == nil {
		t.Fatal("a second image the header does not name was let through")
	}
}

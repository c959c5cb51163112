package image

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
)

// A sandbox image archive carries the image from one machine to another with
// no registry and no Debian mirror: the engine's own image tar (`docker
// save`, which Docker and Podman both load) with a quarry-sandbox.json entry
// first that names the recipe. When the sandbox has extras, the derived
// image goes with the base (its layers are the base's and one more), and
// the header lists the extras. Loading checks the recipe before sending a
// byte to the engine, lets the archive name no image but this recipe's, and
// checks the loaded images' layers and labels against the header.

const (
	archiveHeaderName = "quarry-sandbox.json"
	archiveFormat     = 1
	maxManifest       = 1 << 20
)

// ArchiveInfo is the header of a sandbox image archive.
type ArchiveInfo struct {
	Format  int      `json:"format"`
	Recipe  string   `json:"recipe"`
	Ref     string   `json:"ref"`
	ImageID string   `json:"image_id"`
	Layers  []string `json:"layers"` // the layers' content digests, the same in every engine
	Engine  string   `json:"engine"` // the engine it was saved from, e.g. "Docker 20.10.24"
	Saved   string   `json:"saved"`  // RFC 3339
	// Extras is the derived image saved with the base; nil without extras.
	Extras *ArchiveExtras `json:"extras,omitempty"`
}

// ArchiveExtras is the derived image of an archive.
type ArchiveExtras struct {
	Hash     string         `json:"hash"` // the extras hash of its tag
	Layers   []string       `json:"layers"`
	Packages []ArchiveExtra `json:"packages"`
}

// ArchiveExtra is one extra as the header lists it.
type ArchiveExtra struct {
	Name    string    `json:"name"`
	Version string    `json:"version"`
	Kind    ExtraKind `json:"kind"`
}

// loadTarget is one image an archive puts into the engine, and what it
// must carry once loaded.
type loadTarget struct {
	ref          string
	layers       []string
	label, value string
}

// ErrArchiveRecipe says an archive holds another recipe's image.
var ErrArchiveRecipe = errors.New("the archive holds another recipe's image")

// SaveImage writes the current recipe's image to w as a sandbox archive,
// with the derived image of its extras when there are some,
// gzip-compressed when compress is set.
func Save(ctx context.Context, e *engine.Engine, w io.Writer, compress bool) (ArchiveInfo, error) {
	ref := Ref()
	img, err := e.Client().ImageInspect(ctx, ref)
	if err != nil {
		if ok, _ := Exists(ctx, e, ref); !ok {
			return ArchiveInfo{}, fmt.Errorf("image save: %s is not in the engine: build it first (quarry sandbox build)", ref)
		}
		return ArchiveInfo{}, fmt.Errorf("image save: %w", err)
	}
	if got := img.Config.Labels[recipeLabel]; got != RecipeHash() {
		return ArchiveInfo{}, fmt.Errorf("image save: %s carries recipe label %q, want %s: rebuild it (quarry sandbox build --force)", ref, got, RecipeHash())
	}
	info := ArchiveInfo{Format: archiveFormat, Recipe: RecipeHash(), Ref: ref, ImageID: img.ID,
		Engine: string(e.Kind()) + " " + e.Version(), Saved: time.Now().UTC().Format(time.RFC3339)}
	if img.RootFS.Layers != nil {
		info.Layers = img.RootFS.Layers
	}
	refs := []string{ref}
	cur, err := CurrentImage(ctx, e)
	if err != nil {
		return info, fmt.Errorf("image save: %w", err)
	}
	if len(cur.Extras) > 0 {
		if cur.Base != img.ID {
			return info, fmt.Errorf("image save: the extras (%s) were built on an earlier build of %s: add them again (quarry sandbox add) or remove them before saving", cur.Ref, ref)
		}
		d, err := e.Client().ImageInspect(ctx, cur.Ref)
		if err != nil {
			return info, fmt.Errorf("image save: %w", err)
		}
		x := &ArchiveExtras{Hash: cur.Hash, Layers: d.RootFS.Layers}
		for _, p := range cur.Extras {
			x.Packages = append(x.Packages, ArchiveExtra{Name: p.Name, Version: p.Version, Kind: p.Kind})
		}
		info.Extras = x
		refs = append(refs, cur.Ref)
	}
	rc, err := e.Client().ImageSave(ctx, refs)
	if err != nil {
		return info, fmt.Errorf("image save: %w", err)
	}
	defer rc.Close()
	out := w
	var gz *gzip.Writer
	if compress {
		gz, _ = gzip.NewWriterLevel(w, gzip.BestSpeed)
		out = gz
	}
	tw := tar.NewWriter(out)
	hdr, _ := json.MarshalIndent(info, "", "  ")
	if err := writeTarFile(tw, archiveHeaderName, hdr); err != nil {
		return info, fmt.Errorf("image save: %w", err)
	}
	if err := copyImageTar(tar.NewReader(rc), tw, refs); err != nil {
		return info, fmt.Errorf("image save: %w", err)
	}
	if err := tw.Close(); err != nil {
		return info, fmt.Errorf("image save: %w", err)
	}
	if gz != nil {
		if err := gz.Close(); err != nil {
			return info, fmt.Errorf("image save: %w", err)
		}
	}
	return info, nil
}

// ReadArchiveInfo reads an archive's header, and returns it with a reader
// positioned on the rest of the archive.
func ReadArchiveInfo(r io.Reader) (ArchiveInfo, *tar.Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var src io.Reader = br
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return ArchiveInfo{}, nil, fmt.Errorf("archive: %w", err)
		}
		src = gz
	}
	tr := tar.NewReader(src)
	h, err := tr.Next()
	if err != nil || h.Name != archiveHeaderName || h.Size > maxManifest {
		return ArchiveInfo{}, nil, errors.New("not a quarry sandbox archive (it does not start with " + archiveHeaderName + "): make one with quarry sandbox save")
	}
	var info ArchiveInfo
	if err := json.NewDecoder(io.LimitReader(tr, maxManifest)).Decode(&info); err != nil {
		return info, nil, fmt.Errorf("archive: %s: %w", archiveHeaderName, err)
	}
	if info.Format != archiveFormat {
		return info, nil, fmt.Errorf("archive format %d: this quarry reads format %d; save it again with this version", info.Format, archiveFormat)
	}
	return info, tr, nil
}

// CheckRecipe refuses the header of another recipe's archive.
func (info ArchiveInfo) CheckRecipe() error {
	if info.Recipe == RecipeHash() {
		return nil
	}
	return fmt.Errorf("%w: recipe %s (saved from %s on %s), and this quarry needs %s: save the archive with this quarry version, or build here (quarry sandbox build)",
		ErrArchiveRecipe, info.Recipe, info.Engine, info.Saved, RecipeHash())
}

// LoadImage loads a sandbox archive into the engine as Ref(), and its
// extras' derived image, when it has one, as the current one. It refuses
// an archive of another recipe (ErrArchiveRecipe) before loading, and
// reports loaded=false when the engine already has those very images.
func Load(ctx context.Context, e *engine.Engine, r io.Reader, progress io.Writer) (info ArchiveInfo, loaded bool, err error) {
	return load(ctx, e, r, progress, Ref())
}

func load(ctx context.Context, e *engine.Engine, r io.Reader, progress io.Writer, ref string) (info ArchiveInfo, loaded bool, err error) {
	if progress == nil {
		progress = io.Discard
	}
	info, tr, err := ReadArchiveInfo(r)
	if err != nil {
		return info, false, err
	}
	if err := info.CheckRecipe(); err != nil {
		return info, false, err
	}
	targets := []loadTarget{{ref: ref, layers: info.Layers, label: recipeLabel, value: info.Recipe}}
	if x := info.Extras; x != nil {
		if !validHash.MatchString(x.Hash) {
			return info, false, fmt.Errorf("archive: %s names extras %q, not an extras hash", archiveHeaderName, x.Hash)
		}
		repo := derivedRepo(ref)
		if ref == Ref() {
			repo = ExtrasRepo()
		}
		targets = append(targets, loadTarget{ref: repo + ":" + RecipeHash() + "-" + x.Hash, layers: x.Layers, label: labelExtras, value: x.Hash})
	}
	prevs := make([]string, len(targets))
	present := true
	for i, t := range targets {
		prev, err := e.Client().ImageInspect(ctx, t.ref)
		if err == nil {
			prevs[i] = prev.ID
		}
		if err != nil || len(t.layers) == 0 || !slices.Equal(prev.RootFS.Layers, t.layers) || prev.Config.Labels[t.label] != t.value {
			present = false
		}
	}
	if !present {
		if err := loadTar(ctx, e, tr, targets, prevs, progress); err != nil {
			return info, true, err
		}
	}
	if len(targets) > 1 {
		derived := targets[1].ref
		if _, err := e.Client().ImageTag(ctx, client.ImageTagOptions{Source: derived, Target: currentRef(derivedRepo(derived))}); err != nil {
			return info, !present, fmt.Errorf("image tag: %w", err)
		}
		(&Installer{Engine: e, Repo: derivedRepo(derived)}).removeOthers(ctx, progress, derived)
	}
	return info, !present, nil
}

var validHash = regexp.MustCompile(`^[0-9a-f]{12}$`)

// loadImageTar streams the rest of an archive into the engine and checks
// what arrived; a mismatch puts the previous images (if any) back under
// their tags.
func loadTar(ctx context.Context, e *engine.Engine, tr *tar.Reader, targets []loadTarget, prevs []string, progress io.Writer) error {
	refs := make([]string, len(targets))
	for i, t := range targets {
		refs[i] = t.ref
	}
	pr, pw := io.Pipe()
	go func() {
		tw := tar.NewWriter(pw)
		err := copyImageTar(tr, tw, refs)
		if err == nil {
			err = tw.Close()
		}
		pw.CloseWithError(err)
	}()
	res, err := e.Client().ImageLoad(ctx, pr, client.ImageLoadWithQuiet(true))
	if err != nil {
		pr.CloseWithError(err)
		return fmt.Errorf("image load: %w", err)
	}
	streamErr := readJSONMessages(res, progress, "load")
	res.Close()
	pr.Close()
	if streamErr != nil {
		return fmt.Errorf("image load: %w", streamErr)
	}
	for _, t := range targets {
		img, err := e.Client().ImageInspect(ctx, t.ref)
		if err != nil {
			return fmt.Errorf("image load: %s missing after the load: %w", t.ref, err)
		}
		if !slices.Equal(img.RootFS.Layers, t.layers) || len(t.layers) == 0 || img.Config.Labels[t.label] != t.value {
			// The archive's content is not what its header says: take the tags back.
			for i, u := range targets {
				if prevs[i] != "" {
					_, _ = e.Client().ImageTag(ctx, client.ImageTagOptions{Source: prevs[i], Target: u.ref})
				} else {
					_, _ = e.Client().ImageRemove(ctx, u.ref, client.ImageRemoveOptions{})
				}
			}
			return fmt.Errorf("image load: the image in the archive for %s (%s %q, %d layers) is not the one its header names (%s): the archive is damaged or was altered",
				t.ref, t.label, img.Config.Labels[t.label], len(img.RootFS.Layers), t.value)
		}
	}
	return nil
}

// copyImageTar copies an engine image tar, letting its manifest name only
// refs (the base, then the derived image): whatever tags an archive lists,
// a load cannot retag any other image in the engine. Podman saves the name
// as localhost/...; Docker reads that as a registry, so the name is written
// the one way both load.
func copyImageTar(tr *tar.Reader, tw *tar.Writer, refs []string) error {
	sawManifest := false
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("reading the image tar: %w", err)
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		if path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("the image tar holds an entry outside it: %q", h.Name)
		}
		switch name {
		case archiveHeaderName:
			return errors.New("the image tar holds a second " + archiveHeaderName)
		case "repositories": // the legacy tag list; the manifest's is the one read
			continue
		case "manifest.json":
			if h.Size > maxManifest {
				return errors.New("manifest.json is too large")
			}
			b, err := io.ReadAll(io.LimitReader(tr, maxManifest))
			if err != nil {
				return fmt.Errorf("manifest.json: %w", err)
			}
			if b, err = retagManifest(b, refs); err != nil {
				return err
			}
			if err := writeTarFile(tw, "manifest.json", b); err != nil {
				return err
			}
			sawManifest = true
			continue
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := io.Copy(tw, tr); err != nil {
			return fmt.Errorf("copying %s: %w", h.Name, err)
		}
	}
	if !sawManifest {
		return errors.New("the image tar has no manifest.json")
	}
	return nil
}

// retagManifest names the images of a docker-archive manifest refs: the
// base, which has the fewest layers, first; the derived image's are the
// base's and one more.
func retagManifest(b []byte, refs []string) ([]byte, error) {
	var m []map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("manifest.json: %w", err)
	}
	if len(m) != len(refs) {
		return nil, fmt.Errorf("manifest.json lists %d images, want %d (the sandbox image and the extras its header names)", len(m), len(refs))
	}
	layers := func(e map[string]any) int { l, _ := e["Layers"].([]any); return len(l) }
	slices.SortStableFunc(m, func(a, b map[string]any) int { return layers(a) - layers(b) })
	for i := range m {
		m[i]["RepoTags"] = []string{refs[i]}
	}
	return json.Marshal(m)
}

func writeTarFile(tw *tar.Writer, name string, b []byte) error {
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), ModTime: time.Now(), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	_, err := io.Copy(tw, bytes.NewReader(b))
	return err
}

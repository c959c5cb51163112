package image

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
)

// Extras are Debian packages added to the sandbox image after it is built
// (quarry sandbox add): a derived image, the base image with the extras
// and their dependencies installed, tagged <repo>:<recipe hash>-<extras
// hash> and also <repo>:<recipe hash>-extras, the name sessions look for.
// The image says what it holds twice: labels (read without starting
// anything) and /etc/quarry/extras.tsv (inside, for the code and doctor).

// Extra is one package a derived image adds to the base.
type Extra struct {
	Package
	Kind ExtraKind
}

// ExtraKind says why a package is in the derived image.
type ExtraKind string

const (
	ExtraRequested  ExtraKind = "requested"  // asked for by name
	ExtraDependency ExtraKind = "dependency" // pulled in by a requested one
	ExtraUpgrade    ExtraKind = "upgrade"    // a base package a requested one needs newer
)

// Derived is the sandbox image with extras.
type Derived struct {
	Ref    string // <repo>:<recipe>-<extras hash>
	ID     string
	Hash   string // the extras hash
	Base   string // the id of the base image it was built on
	Extras []Extra
}

// Requested are the extras asked for by name, in name order.
func (d Derived) Requested() []Package {
	var out []Package
	for _, x := range d.Extras {
		if x.Kind == ExtraRequested {
			out = append(out, x.Package)
		}
	}
	return out
}

// Labels of a derived image.
const (
	labelExtras     = "io.quarry.extras"          // the extras hash
	labelExtrasBase = "io.quarry.extras.base"     // the base image's id
	labelExtrasList = "io.quarry.extras.packages" // name=version:kind, space-separated
	extrasManifest  = "/etc/quarry/extras.tsv"    // name, version, kind per line
	currentSuffix   = "-extras"                   // <repo>:<recipe>-extras names the current one
	maxLabelExtras  = 64 << 10                    // a label longer than this is not read
	buildRole       = "extras-build"              // the build container's io.quarry.role
	extrasDir       = "/tmp/quarry-extras"        // where the .debs go in the build container
	extrasScriptTag = "extras.sh"                 // name of the install script there
)

//go:embed extras.sh
var extrasScript []byte

// extrasHash names a set of extras: the packages with their versions and
// kinds, and the script that installs them.
func extrasHash(extras []Extra) string {
	lines := make([]string, 0, len(extras))
	for _, x := range extras {
		lines = append(lines, x.Name+"="+x.Version+":"+string(x.Kind))
	}
	sort.Strings(lines)
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00", len(extrasScript))
	h.Write(extrasScript)
	h.Write([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(h.Sum(nil))[:12]
}

func encodeExtras(extras []Extra) string {
	parts := make([]string, 0, len(extras))
	for _, x := range extras {
		parts = append(parts, x.Name+"="+x.Version+":"+string(x.Kind))
	}
	return strings.Join(parts, " ")
}

func decodeExtras(s string) []Extra {
	if len(s) > maxLabelExtras {
		return nil
	}
	var out []Extra
	for _, f := range strings.Fields(s) {
		i := strings.LastIndex(f, ":") // the version may hold one too (an epoch)
		if i < 0 {
			continue
		}
		nv, kind := f[:i], f[i+1:]
		name, version, ok := strings.Cut(nv, "=")
		if ok && name != "" && version != "" {
			out = append(out, Extra{Package: Package{Name: name, Version: version}, Kind: ExtraKind(kind)})
		}
	}
	sortExtras(out)
	return out
}

// sortExtras puts requested packages first, then by name.
func sortExtras(xs []Extra) {
	slices.SortFunc(xs, func(a, b Extra) int {
		if (a.Kind == ExtraRequested) != (b.Kind == ExtraRequested) {
			if a.Kind == ExtraRequested {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// extrasTSV is /etc/quarry/extras.tsv.
func extrasTSV(extras []Extra) string {
	var b strings.Builder
	for _, x := range extras {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", x.Name, x.Version, x.Kind)
	}
	return b.String()
}

// CurrentRef is the tag sessions look for: the derived image of this
// recipe, when there is one.
func currentRef(repo string) string { return repo + ":" + RecipeHash() + currentSuffix }

// CurrentImage is the image sessions use: the derived image of this
// recipe when extras were added, with them; otherwise the base (Ref()),
// with none.
func CurrentImage(ctx context.Context, e *engine.Engine) (Derived, error) {
	d, ok, err := derivedImage(ctx, e, currentRef(ExtrasRepo()))
	if err != nil || !ok {
		return Derived{Ref: Ref()}, err
	}
	return d, nil
}

// derivedImage reads the derived image ref points at.
func derivedImage(ctx context.Context, e *engine.Engine, ref string) (Derived, bool, error) {
	img, err := e.Client().ImageInspect(ctx, ref)
	if cerrdefs.IsNotFound(err) {
		return Derived{}, false, nil
	}
	if err != nil {
		return Derived{}, false, fmt.Errorf("image inspect %s: %w", ref, err)
	}
	var labels map[string]string
	if img.Config != nil {
		labels = img.Config.Labels
	}
	if labels[recipeLabel] != RecipeHash() || labels[labelExtras] == "" {
		return Derived{}, false, nil // not ours, or another recipe's
	}
	d := Derived{ID: img.ID, Hash: labels[labelExtras], Base: labels[labelExtrasBase], Extras: decodeExtras(labels[labelExtrasList])}
	d.Ref = derivedRepo(ref) + ":" + RecipeHash() + "-" + d.Hash
	return d, true, nil
}

func derivedRepo(ref string) string {
	repo, _, _ := strings.Cut(ref, ":")
	return repo
}

// derivedTags lists the tags of repo that hold this recipe's derived
// images, the current one's alias included.
func derivedTags(ctx context.Context, e *engine.Engine, repo string) ([]string, error) {
	res, err := e.Client().ImageList(ctx, client.ImageListOptions{Filters: make(client.Filters).Add("reference", repo)})
	if err != nil {
		return nil, fmt.Errorf("image list: %w", err)
	}
	prefix := repo + ":" + RecipeHash() + "-"
	var out []string
	for _, img := range res.Items {
		for _, t := range img.RepoTags {
			t = strings.TrimPrefix(strings.TrimPrefix(t, "localhost/"), "docker.io/library/")
			if strings.HasPrefix(t, prefix) && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// MissingExtras compares the extras a session recorded (name=version)
// with the image's: the names it lacks, and those it has at another
// version ("name version, was version").
func MissingExtras(recorded []Package, have []Extra) (missing []Package, changed []string) {
	by := map[string]string{}
	for _, x := range have {
		by[x.Name] = x.Version
	}
	for _, p := range recorded {
		switch v, ok := by[p.Name]; {
		case !ok:
			missing = append(missing, p)
		case v != p.Version:
			changed = append(changed, fmt.Sprintf("%s %s, was %s", p.Name, v, p.Version))
		}
	}
	return missing, changed
}

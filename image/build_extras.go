package image

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/kernel"
)

// Build makes the derived image a plan describes, or finds it built: the
// .debs are downloaded (apt checks them against the signed index), checked
// again and for the sandbox's rules, and installed in a build container
// with no network. The image becomes the current one; earlier derived
// images of this recipe are removed unless a container still uses one.
func (in *Installer) Build(ctx context.Context, w io.Writer, p Plan) (Derived, error) {
	if w == nil {
		w = io.Discard
	}
	if p.Empty() {
		return p.current, nil
	}
	start := time.Now()
	x, b, unlock, err := in.open(ctx)
	if err != nil {
		return Derived{}, err
	}
	defer unlock()
	if b.ID != p.base.ID {
		return Derived{}, fmt.Errorf("the sandbox image %s was rebuilt since the plan was made: plan again", b.Ref)
	}
	d := Derived{Hash: extrasHash(p.Install), Base: b.ID, Extras: slices.Clone(p.Install)}
	sortExtras(d.Extras)
	d.Ref = in.repo() + ":" + RecipeHash() + "-" + d.Hash
	if ok, err := Exists(ctx, in.Engine, d.Ref); err != nil {
		return Derived{}, err
	} else if ok {
		fmt.Fprintf(w, "%s is built already\n", d.Ref)
		return in.makeCurrent(ctx, w, d)
	}
	fmt.Fprintf(w, "downloading %d packages (%s) from %s\n", len(p.Install), kernel.FormatSize(totalSize(p)), x.archive.URL)
	var pkgs []Package
	for _, e := range p.Install {
		pkgs = append(pkgs, e.Package)
	}
	if err := x.download(ctx, w, pkgs); err != nil {
		return Derived{}, err
	}
	debs := map[string]string{}
	for _, e := range p.Install {
		info := p.infos[e.Name]
		path := x.debPath(info)
		if err := verifyDeb(path, info); err != nil {
			return Derived{}, err
		}
		if err := checkDeb(ctx, path, info); err != nil {
			return Derived{}, err
		}
		debs[e.Name] = path
	}
	job := buildJob{base: b.Derived, extras: d.Extras, steps: p.steps, debs: debs, ref: d.Ref, current: currentRef(in.repo())}
	if err := deriveImage(ctx, in.Engine, w, job); err != nil {
		return Derived{}, err
	}
	img, err := in.Engine.Client().ImageInspect(ctx, d.Ref)
	if err != nil {
		return Derived{}, fmt.Errorf("image inspect %s: %w", d.Ref, err)
	}
	d.ID = img.ID
	in.removeOthers(ctx, w, d.Ref)
	fmt.Fprintf(w, "built %s in %s (+%s)\n", d.Ref, time.Since(start).Round(100*time.Millisecond), kernel.FormatSize(p.Size()))
	return d, nil
}

func totalSize(p Plan) int64 {
	var n int64
	for _, e := range p.Install {
		n += p.infos[e.Name].Size
	}
	return n
}

// makeCurrent points the current tag at an image built before.
func (in *Installer) makeCurrent(ctx context.Context, w io.Writer, d Derived) (Derived, error) {
	if _, err := in.Engine.Client().ImageTag(ctx, client.ImageTagOptions{Source: d.Ref, Target: currentRef(in.repo())}); err != nil {
		return Derived{}, fmt.Errorf("image tag: %w", err)
	}
	got, _, err := derivedImage(ctx, in.Engine, currentRef(in.repo()))
	if err != nil {
		return Derived{}, err
	}
	in.removeOthers(ctx, w, got.Ref)
	return got, nil
}

// removeOthers removes this recipe's derived images but keep; one a
// container still runs stays (the engine refuses) and goes next time.
func (in *Installer) removeOthers(ctx context.Context, w io.Writer, keep string) {
	tags, err := derivedTags(ctx, in.Engine, in.repo())
	if err != nil {
		return
	}
	for _, t := range tags {
		if t == keep || t == currentRef(in.repo()) {
			continue
		}
		if _, err := in.Engine.Client().ImageRemove(ctx, t, client.ImageRemoveOptions{PruneChildren: true}); err != nil {
			fmt.Fprintf(w, "kept %s: %v\n", t, err)
		}
	}
}

// Remove takes packages out of the extras (names as given to add: a
// package, or the module that mapped to one) and builds the image of the
// rest; with none left the base is the sandbox again. It returns the new
// current image (Ref is the base's when none is left).
func (in *Installer) Remove(ctx context.Context, w io.Writer, names []string) (Derived, error) {
	if w == nil {
		w = io.Discard
	}
	cur, ok, err := in.Current(ctx)
	if err != nil {
		return Derived{}, err
	}
	if !ok {
		return Derived{}, fmt.Errorf("the sandbox has no extras: nothing to remove")
	}
	keep := cur.Requested()
	for _, name := range names {
		i := slices.IndexFunc(keep, func(p Package) bool { return p.Name == name || p.Name == "python3-"+normalizeDist(name) })
		if i < 0 {
			return Derived{}, notAnExtra(cur, name)
		}
		keep = slices.Delete(keep, i, i+1)
	}
	if len(keep) == 0 {
		for _, t := range append([]string{currentRef(in.repo())}, cur.Ref) {
			if _, err := in.Engine.Client().ImageRemove(ctx, t, client.ImageRemoveOptions{PruneChildren: true}); err != nil && !strings.Contains(err.Error(), "No such") {
				fmt.Fprintf(w, "kept %s: %v\n", t, err)
			}
		}
		in.removeOthers(ctx, w, "")
		return Derived{Ref: in.base()}, nil
	}
	x, b, unlock, err := in.open(ctx)
	if err != nil {
		return Derived{}, err
	}
	var requested []string
	for _, p := range keep {
		requested = append(requested, p.Name)
	}
	p, err := in.plan(ctx, x, Plan{base: b, current: Derived{}, suite: x.archive.Suite}, requested, nil)
	unlock()
	if err != nil {
		return Derived{}, err
	}
	p.current = cur // New holds every package: planned against no extras
	return in.Build(ctx, w, p)
}

// notAnExtra explains a name remove does not find.
func notAnExtra(cur Derived, name string) error {
	for _, e := range cur.Extras {
		if e.Name == name {
			return fmt.Errorf("%s came with another extra (%s): remove that one", name, e.Kind)
		}
	}
	var names []string
	for _, p := range cur.Requested() {
		names = append(names, p.Name)
	}
	return fmt.Errorf("%s is not an extra of the sandbox (its extras: %s)", name, strings.Join(names, ", "))
}

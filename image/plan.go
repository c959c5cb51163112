package image

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
)

// AskKind says how a name asked for is read.
type AskKind string

const (
	AskAuto    AskKind = ""        // a Python module when a package ships one by that name, else a Debian package
	AskModule  AskKind = "module"  // a Python module (import NAME)
	AskDist    AskKind = "pip"     // a pip or conda name (pip install NAME)
	AskPackage AskKind = "package" // a Debian package
)

// Ask is one name to add.
type Ask struct {
	Name string
	Kind AskKind
}

// Request is an Ask and the package it names.
type Request struct {
	Ask
	Package string
	Version string // the version to be installed, or the one the image has
	Have    bool   // the sandbox has it already (base or extras)
}

// Words says how the name was found: "xgboost (python3-xgboost)".
func (r Request) Words() string {
	if r.Name == r.Package {
		return r.Name
	}
	return r.Name + " (" + r.Package + ")"
}

// NotInDebianError says no package of the archive provides a name.
type NotInDebianError struct {
	Names []string
	Kind  AskKind
	Suite string
}

func (e *NotInDebianError) Error() string {
	names := strings.Join(e.Names, ", ")
	switch e.Kind {
	case AskModule:
		return fmt.Sprintf("no package of Debian %s provides the Python module %s", e.Suite, names)
	case AskDist:
		return fmt.Sprintf("no package of Debian %s provides the Python package %s", e.Suite, names)
	case AskPackage:
		return fmt.Sprintf("Debian %s has no package named %s", e.Suite, names)
	}
	return fmt.Sprintf("Debian %s has no package or Python module named %s", e.Suite, names)
}

// Plan is what adding names would do: the new derived image's packages
// (every extra, built on the base) and what of them the current image lacks.
type Plan struct {
	Asked   []Request
	Install []Extra   // every extra of the new image, in apt's order
	New     []debInfo // what the current image lacks: the offer's count and size
	infos   map[string]debInfo
	steps   []step
	base    baseImage
	current Derived
	suite   string
}

// Empty says the sandbox has everything asked for already.
func (p Plan) Empty() bool { return len(p.New) == 0 }

// Size is the unpacked size of what the image gains.
func (p Plan) Size() int64 {
	var n int64
	for _, d := range p.New {
		n += d.InstalledSize
	}
	return n
}

// Download is the size of the .debs the image gains.
func (p Plan) Download() int64 {
	var n int64
	for _, d := range p.New {
		n += d.Size
	}
	return n
}

// Offer says what the sandbox would gain, for a question to the user:
// "xgboost is in Debian (python3-xgboost 3.3.0, 3 packages, 12 MiB)".
func (p Plan) Offer() string {
	var names, pkgs []string
	for _, r := range p.Asked {
		if r.Have {
			continue
		}
		names = append(names, r.Name)
		pkgs = append(pkgs, r.Package+" "+UpstreamVersion(r.Version))
	}
	verb := "is"
	if len(names) > 1 {
		verb = "are"
	}
	count := fmt.Sprintf("%d packages", len(p.New))
	if len(p.New) == 1 {
		count = "1 package"
	}
	return fmt.Sprintf("%s %s in Debian (%s, %s, %s)", strings.Join(names, " and "), verb, strings.Join(pkgs, ", "), count, kernel.FormatSize(p.Size()))
}

// Commands are the packages the offer names, as `quarry sandbox add` takes them.
func (p Plan) Commands() []string {
	var out []string
	for _, r := range p.Asked {
		if !r.Have && !slices.Contains(out, r.Package) {
			out = append(out, r.Package)
		}
	}
	return out
}

// UpstreamVersion is a Debian version without its epoch and revision:
// 3.3.0 of 1:3.3.0-1+b1.
func UpstreamVersion(v string) string {
	if _, after, ok := strings.Cut(v, ":"); ok {
		v = after
	}
	if i := strings.LastIndexByte(v, '-'); i > 0 {
		v = v[:i]
	}
	return v
}

// Plan resolves names to packages and asks apt what the new image would
// hold; nothing is downloaded but the archive's lists (when stale).
func (in *Installer) Plan(ctx context.Context, w io.Writer, asks []Ask) (Plan, error) {
	if w == nil {
		w = io.Discard
	}
	x, b, unlock, err := in.open(ctx)
	if err != nil {
		return Plan{}, err
	}
	defer unlock()
	cur, _, err := in.Current(ctx)
	if err != nil {
		return Plan{}, err
	}
	stale := cur.Base != "" && cur.Base != b.ID // built on an earlier build of the base: built again
	if err := x.update(ctx, w, false); err != nil {
		return Plan{}, err
	}
	reqs, err := in.resolve(ctx, w, x, asks)
	if err != nil {
		return Plan{}, err
	}
	have := map[string]string{}
	for name, v := range b.installed {
		have[name] = v
	}
	if !stale {
		for _, e := range cur.Extras {
			have[e.Name] = e.Version
		}
	}
	requested := []string{}
	for _, r := range cur.Requested() {
		requested = append(requested, r.Name)
	}
	var added []string
	for i, r := range reqs {
		if v, ok := have[r.Package]; ok {
			reqs[i].Have, reqs[i].Version = true, v
			continue
		}
		if !slices.Contains(requested, r.Package) {
			requested = append(requested, r.Package)
			added = append(added, r.Package)
		}
	}
	p := Plan{Asked: reqs, base: b, current: cur, suite: x.archive.Suite}
	if stale {
		p.current, added = Derived{}, requested
	}
	if len(added) == 0 {
		return p, nil
	}
	p, err = in.plan(ctx, x, p, requested, added)
	var nd *NotInDebianError
	if errors.As(err, &nd) {
		for _, a := range asks {
			if a.Kind == AskAuto && slices.Contains(nd.Names, a.Name) {
				nd.Kind = AskAuto // read as a module first, then as a package
			}
		}
	}
	return p, err
}

// plan asks apt what installing requested onto the base takes.
func (in *Installer) plan(ctx context.Context, x *apt, p Plan, requested, added []string) (Plan, error) {
	r, err := x.simulate(ctx, requested)
	if err != nil {
		return p, err
	}
	if len(r.removes) > 0 {
		return p, &RefusedError{Package: strings.Join(added, ", "), Why: "installing it would remove " + strings.Join(r.removes, ", ") + " from the sandbox"}
	}
	if err := checkNames(r.install, added); err != nil {
		return p, err
	}
	infos, err := x.show(ctx, r.install)
	if err != nil {
		return p, err
	}
	had := map[string]string{}
	for _, e := range p.current.Extras {
		had[e.Name] = e.Version
	}
	for _, pkg := range r.install {
		kind := ExtraDependency
		switch {
		case slices.Contains(requested, pkg.Name):
			kind = ExtraRequested
		case r.upgrades[pkg.Name] != "":
			kind = ExtraUpgrade
		}
		p.Install = append(p.Install, Extra{Package: pkg, Kind: kind})
		if had[pkg.Name] != pkg.Version {
			p.New = append(p.New, infos[pkg.Name])
		}
	}
	for i, rq := range p.Asked {
		if !rq.Have {
			p.Asked[i].Version = infos[rq.Package].Version
		}
	}
	p.infos, p.steps = infos, r.steps
	return p, nil
}

// resolve maps each name to its package: a module through the archive's
// Contents index, a pip name through the distributions it lists, a package
// name as it is.
func (in *Installer) resolve(ctx context.Context, w io.Writer, x *apt, asks []Ask) ([]Request, error) {
	var idx *moduleIndex
	index := func() (*moduleIndex, error) {
		if idx == nil {
			var err error
			idx, err = x.modules(ctx, w)
			return idx, err
		}
		return idx, nil
	}
	var out []Request
	missing := map[AskKind][]string{}
	for _, a := range asks {
		name := strings.TrimSpace(a.Name)
		if name == "" {
			continue
		}
		if !validAsk(name, a.Kind) {
			return nil, fmt.Errorf("%q is not a Debian package, Python module or pip name", name)
		}
		pkg := ""
		switch {
		case a.Kind == AskPackage:
			pkg = name
		case a.Kind == AskDist:
			name = distName(name)
			ix, err := index()
			if err != nil {
				return nil, err
			}
			if pkg = ix.dist(name); pkg == "" && identifier.MatchString(name) {
				pkg = ix.module(name)
			}
		default: // a module, then a pip name (scikit-learn), then a package's own name
			ix, err := index()
			if err != nil {
				return nil, err
			}
			if identifier.MatchString(name) {
				pkg = ix.module(name)
			}
			if pkg == "" && a.Kind == AskAuto {
				if pkg = ix.dist(name); pkg == "" {
					pkg = name // apt decides
				}
			}
		}
		if pkg == "" {
			missing[a.Kind] = append(missing[a.Kind], name)
			continue
		}
		out = append(out, Request{Ask: Ask{Name: name, Kind: a.Kind}, Package: pkg})
	}
	for kind, names := range missing {
		return out, &NotInDebianError{Names: names, Kind: kind, Suite: x.archive.Suite}
	}
	return out, nil
}

var (
	debName  = regexp.MustCompile(`^[a-z0-9][a-z0-9+.-]{0,99}$`)
	pipName  = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?$`)
	maxNames = 100
)

// validAsk keeps names apt could read as anything but a name (an option,
// a path) from ever reaching it: names may come from the sandbox.
func validAsk(name string, kind AskKind) bool {
	switch kind {
	case AskPackage:
		return debName.MatchString(name)
	case AskModule:
		return identifier.MatchString(name) && len(name) <= maxNames
	case AskDist:
		return pipName.MatchString(distName(name))
	}
	return debName.MatchString(name) || identifier.MatchString(name) && len(name) <= maxNames
}

// distName is a pip requirement's project name: xgboost of
// "xgboost[dask]>=2.0".
func distName(req string) string {
	if i := strings.IndexAny(req, "[=<>!~;@ "); i >= 0 {
		req = req[:i]
	}
	return strings.TrimSpace(req)
}

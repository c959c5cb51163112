package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/kernel"
)

// Packages on demand: a cell that fails for want of a module a Debian
// package provides (or a %pip line's request) is answered by an offer; on
// yes the derived image is built, the session moves to it (rebuild.go) and
// the cell runs again.

// chooseImage is the image the sandbox starts on: the configured one, or
// this recipe's with the extras added to it (the base when there are
// none). It remembers the choice and its extras.
func (s *Session) chooseImage(ctx context.Context) string {
	if c := s.opts.Config.Image; c != "" {
		s.mu.Lock()
		s.image = image.Derived{Ref: c}
		s.mu.Unlock()
		return c
	}
	d, err := image.Derived{Ref: image.Ref()}, error(nil)
	if in := s.opts.Extras; in != nil {
		if cur, ok, e := in.Current(ctx); ok {
			d = cur
		} else {
			err = e
		}
	} else {
		d, err = image.CurrentImage(ctx, s.engine)
	}
	if err != nil {
		s.emit(agent.Event{Kind: agent.EventWarning, Text: "sandbox: the extras could not be read, the sandbox runs without them: " + err.Error()})
		d = image.Derived{Ref: image.Ref()}
	}
	s.mu.Lock()
	s.image = d
	s.mu.Unlock()
	return d.Ref
}

// Extras are the packages added to the session's image, as asked for.
func (s *Session) Extras() []image.Package {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.image.Requested()
}

func recordedExtras(d image.Derived) []RecordedExtra {
	var out []RecordedExtra
	for _, p := range d.Requested() {
		out = append(out, RecordedExtra{Name: p.Name, Version: p.Version})
	}
	return out
}

// tellLibraries gives the model the image's Python libraries, from its
// manifest (/etc/quarry/packages.tsv); an image without one says nothing.
func (s *Session) tellLibraries(ctx context.Context) {
	if s.ag == nil {
		return
	}
	pkgs, err := image.Packages(ctx, s.engine, s.image.Ref)
	if err != nil {
		return
	}
	s.ag.SetLibraries(pythonLibraries(pkgs))
}

// pythonLibraries are the python3-* packages as their modules are known:
// "pandas 2.3.3"; build parts (-lib, -dev, -data) are left out.
func pythonLibraries(pkgs []image.Package) []string {
	var out []string
	for _, p := range pkgs {
		name, ok := strings.CutPrefix(p.Name, "python3-")
		if !ok || strings.HasSuffix(name, "-lib") || strings.HasSuffix(name, "-dev") || strings.HasSuffix(name, "-data") || name == "minimal" {
			continue
		}
		out = append(out, name+" "+image.UpstreamVersion(p.Version))
	}
	return out
}

// installer is the session's, or the host's.
func (s *Session) installer() (*image.Installer, error) {
	if s.opts.Extras != nil {
		return s.opts.Extras, nil
	}
	return image.HostInstaller(s.engine)
}

// asksOf turns what a cell lacked into names to look up; names from the
// sandbox that could be anything but a name are dropped.
func asksOf(n *kernel.Needs) []image.Ask {
	var out []image.Ask
	for _, m := range n.Modules {
		out = append(out, image.Ask{Name: m, Kind: image.AskModule})
	}
	kind := image.AskDist
	if n.Via == "apt" {
		kind = image.AskPackage
	}
	for _, p := range n.Packages {
		if p = strings.TrimSpace(p); p == "" || strings.HasPrefix(p, "-") || strings.ContainsAny(p, "/\\") || strings.HasSuffix(p, ".txt") {
			continue // an option, a path or a requirements file
		}
		out = append(out, image.Ask{Name: p, Kind: kind})
	}
	return out[:min(len(out), 10)]
}

// offerPackages answers a cell that lacked a package: nothing when the
// archive has none (the cell says so) or the sandbox has it already; else
// the user is asked, and on yes the package is added, the session moves to
// the image with it and the cell runs again, whose result is returned.
func (s *Session) offerPackages(ctx context.Context, code string, onChunk func(kernel.Chunk), r kernel.Result) (kernel.Result, error) {
	in, p, ok := s.lookupNeeds(ctx, &r)
	if !ok {
		return r, nil
	}
	cmd := "quarry sandbox add " + strings.Join(p.Commands(), " ")
	if s.opts.Install == nil {
		r.Notes = append(r.Notes, fmt.Sprintf("%s; it was not added: add it with `%s`, or run with --allow-install", p.Offer(), cmd))
		if s.ag == nil {
			return r, nil // a tool client's call: the cell says it, the client decides
		}
		return r, &agent.Halt{Message: fmt.Sprintf("the code needs %s, which the sandbox lacks: %s: add it with `%s`, or run with --allow-install", strings.Join(p.Commands(), ", "), p.Offer(), cmd)}
	}
	yes, err := s.opts.Install(ctx, p.Offer()+": add "+pronoun(p)+" to the sandbox? [y/N]")
	if err != nil || !yes {
		if ctx.Err() == nil {
			r.Notes = append(r.Notes, fmt.Sprintf("%s; the user chose not to add it (it can be added later with `%s`): do without it", p.Offer(), cmd))
		}
		return r, nil
	}
	d, err := in.Build(ctx, &progressLines{s: s}, p)
	if err != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("adding %s failed: %v", strings.Join(p.Commands(), ", "), err))
		s.emit(agent.Event{Kind: agent.EventWarning, Text: s.mask.MaskError("adding " + strings.Join(p.Commands(), ", ") + " failed: " + err.Error())})
		return r, nil
	}
	return s.moveAndRerun(ctx, code, onChunk, r, d, p)
}

// lookupNeeds finds the packages that provide what a failed cell lacked;
// false when there is nothing to offer, the cell's notes then say why
// when it matters (no package has the module).
func (s *Session) lookupNeeds(ctx context.Context, r *kernel.Result) (*image.Installer, image.Plan, bool) {
	asks := asksOf(r.Error.Needs)
	if len(asks) == 0 || s.opts.Config.Image != "" {
		return nil, image.Plan{}, false // a custom image is the user's to extend
	}
	in, err := s.installer()
	if err != nil {
		r.Notes = append(r.Notes, "packages cannot be added to this sandbox: "+err.Error())
		return nil, image.Plan{}, false
	}
	s.progress("looking up " + asks[0].Name + " in Debian's archive")
	p, err := in.Plan(ctx, &progressLines{s: s}, asks)
	var nd *image.NotInDebianError
	switch {
	case errors.As(err, &nd):
		r.Notes = append(r.Notes, nd.Error()+": it cannot be added to the sandbox; use what the sandbox has")
	case err != nil:
		r.Notes = append(r.Notes, "the package could not be looked up: "+err.Error())
	case !p.Empty():
		return in, p, true
	}
	return nil, p, false // or the package is there: the module is not part of it
}

// explainNeeds names the command that adds what a failed cell lacked, for
// a run that asks no one and adds nothing (rerun).
func (s *Session) explainNeeds(ctx context.Context, r *kernel.Result) {
	if r.Error == nil || r.Error.Needs == nil {
		return
	}
	if _, p, ok := s.lookupNeeds(ctx, r); ok {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: add it with `quarry sandbox add %s`, then rerun", p.Offer(), strings.Join(p.Commands(), " ")))
	}
}

// warnExtras says which packages a recorded session had added that this
// sandbox lacks (or has at another version), for a rerun.
func (s *Session) warnExtras(recorded []RecordedExtra) {
	var want []image.Package
	for _, x := range recorded {
		want = append(want, image.Package{Name: x.Name, Version: x.Version})
	}
	s.mu.Lock()
	have := s.image.Extras
	s.mu.Unlock()
	missing, changed := image.MissingExtras(want, have)
	if len(missing) > 0 {
		var names, words []string
		for _, p := range missing {
			names, words = append(names, p.Name), append(words, p.Name+" "+p.Version)
		}
		s.emit(agent.Event{Kind: agent.EventWarning, Text: fmt.Sprintf("the session had %s added to its sandbox, which this one lacks: add %s with `quarry sandbox add %s`, then rerun",
			strings.Join(words, ", "), pluralIt(len(names)), strings.Join(names, " "))})
	}
	if len(changed) > 0 {
		s.emit(agent.Event{Kind: agent.EventWarning, Text: "the sandbox's extras are at other versions than the session's: " + strings.Join(changed, "; ")})
	}
}

func pluralIt(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

func pronoun(p image.Plan) string { return pluralIt(len(p.Commands())) }

// moveAndRerun moves the session to image d and runs the cell again.
func (s *Session) moveAndRerun(ctx context.Context, code string, onChunk func(kernel.Chunk), r kernel.Result, d image.Derived, p image.Plan) (kernel.Result, error) {
	var added []string
	for _, q := range p.Asked {
		if !q.Have {
			added = append(added, q.Package+" "+image.UpstreamVersion(q.Version))
		}
	}
	s.mu.Lock()
	s.image = d
	rec := s.rec
	s.mu.Unlock()
	rec.add(Entry{Kind: EntryExtras, Extras: recordedExtras(d)})
	sb, line, err := s.rebuild(ctx, d.Ref, true)
	if err != nil {
		return r, err
	}
	s.tellLibraries(ctx)
	again, err := sb.Exec(ctx, code, onChunk)
	again.Notes = append([]string{strings.Join(added, ", ") + " added to the sandbox; " + line + "; the cell ran again"}, again.Notes...)
	return again, err
}

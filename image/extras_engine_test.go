package image_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/image/apttest"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// A module name is mapped to its package through the archive's Contents
// index, the package and its dependency come from the local signed archive,
// and the derived image runs the module in a sandbox; removing it brings the
// base back. Nothing leaves the machine: the archive is on 127.0.0.1.
func TestAddModuleFromSignedArchive(t *testing.T) {
	e := sandboxtest.Engine(t)
	repo := apttest.New(t, apttest.All()...)
	in := repo.Installer(e)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var progress strings.Builder
	p, err := in.Plan(ctx, &progress, []image.Ask{{Name: "quarry_hello"}})
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, progress.String())
	}
	if len(p.Asked) != 1 || p.Asked[0].Package != "python3-quarry-hello" || p.Asked[0].Have {
		t.Fatalf("asked %+v", p.Asked)
	}
	if got := p.Offer(); !strings.HasPrefix(got, "quarry_hello is in Debian (python3-quarry-hello 1.2, 2 packages, ") {
		t.Fatalf("offer %q", got)
	}
	d, err := in.Build(ctx, &progress, p)
	if err != nil {
		t.Fatalf("build: %v\n%s", err, progress.String())
	}
	if !strings.Contains(d.Ref, ":"+image.RecipeHash()+"-") || len(d.Extras) != 2 ||
		d.Extras[0] != (image.Extra{Package: image.Package{Name: "python3-quarry-hello", Version: "1.2-1"}, Kind: image.ExtraRequested}) ||
		d.Extras[1].Name != "python3-quarry-greet" || d.Extras[1].Kind != image.ExtraDependency {
		t.Fatalf("derived %+v", d)
	}
	cur, ok, err := in.Current(ctx)
	if err != nil || !ok || cur.Ref != d.Ref || len(cur.Extras) != 2 {
		t.Fatalf("current %+v %v %v", cur, ok, err)
	}

	s := sandboxtest.Session(t, e, sandbox.Options{Image: d.Ref})
	res, err := s.Exec(ctx, "import quarry_hello, os, stat, glob\n"+
		"print(quarry_hello.hello())\n"+
		"print(open('/etc/quarry/extras.tsv').read())\n"+
		"print('pkgs', sum('python3-quarry' in l for l in open('/etc/quarry/packages.tsv')))\n"+
		"print('docs', sorted(os.listdir('/usr/share/doc/python3-quarry-hello')))\n"+
		"print('pyc', bool(glob.glob('/usr/lib/python3/dist-packages/quarry_hello/__pycache__/*.pyc')))\n"+
		"print('tmp', os.listdir('/tmp'))", nil)
	if err != nil || res.Error != nil {
		t.Fatalf("exec: %v %+v", err, res.Error)
	}
	s.Close() // a container on the image keeps it (the engine refuses to remove it)
	for _, want := range []string{"hello, world", "python3-quarry-hello\t1.2-1\trequested", "python3-quarry-greet\t1.0-3\tdependency",
		"pkgs 2", "docs ['copyright']", "pyc True"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("the derived image lacks %q:\n%s", want, res.Stdout)
		}
	}

	// Adding what it has already plans nothing.
	again, err := in.Plan(ctx, nil, []image.Ask{{Name: "quarry_hello"}, {Name: "python3-pandas"}})
	if err != nil || !again.Empty() || !again.Asked[0].Have || !again.Asked[1].Have || again.Asked[1].Version == "" {
		t.Fatalf("plan again: %+v %v", again.Asked, err)
	}

	base, err := in.Remove(ctx, &progress, []string{"python3-quarry-hello"})
	if err != nil || base.Ref != image.Ref() {
		t.Fatalf("remove: %+v %v", base, err)
	}
	if _, ok, _ := in.Current(ctx); ok {
		t.Fatal("extras still current after removing the only one")
	}
	if ok, _ := image.Exists(ctx, e, d.Ref); ok {
		t.Errorf("%s still tagged after the removal", d.Ref)
	}
}

// What the archive serves is checked: a .deb altered after the index
// vouched for it, a Release file whose signature does not match, and one
// past its Valid-Until date are each refused, naming what failed, and no
// image is made.
func TestAddRefusesWhatTheArchiveDoesNotVouchFor(t *testing.T) {
	e := sandboxtest.Engine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	t.Run("tampered package", func(t *testing.T) {
		repo := apttest.New(t, apttest.Hello, apttest.Greet)
		in := repo.Installer(e)
		p, err := in.Plan(ctx, nil, []image.Ask{{Name: "python3-quarry-hello"}})
		if err != nil {
			t.Fatal(err)
		}
		repo.Tamper("python3-quarry-greet")
		_, err = in.Build(ctx, nil, p)
		t.Log(err)
		if err == nil || !strings.Contains(err.Error(), "python3-quarry-greet") || !strings.Contains(err.Error(), "Hash Sum mismatch") {
			t.Fatalf("build of a tampered package: %v", err)
		}
		noImage(t, in)
	})
	t.Run("bad signature", func(t *testing.T) {
		repo := apttest.New(t, apttest.Hello, apttest.Greet)
		repo.BreakSignature()
		in := repo.Installer(e)
		_, err := in.Plan(ctx, nil, []image.Ask{{Name: "python3-quarry-hello"}})
		t.Log(err)
		if err == nil || !strings.Contains(err.Error(), "signature check") || !strings.Contains(err.Error(), repo.Keyring) {
			t.Fatalf("plan against a bad signature: %v", err)
		}
		noImage(t, in)
	})
	t.Run("expired release", func(t *testing.T) {
		repo := apttest.New(t, apttest.Greet)
		repo.Expired = true
		repo.Publish()
		in := repo.Installer(e)
		_, err := in.Plan(ctx, nil, []image.Ask{{Name: "python3-quarry-hello"}})
		t.Log(err)
		if err == nil || !strings.Contains(err.Error(), "expired") || !strings.Contains(err.Error(), image.AllowExpiredEnv) {
			t.Fatalf("plan against an expired Release: %v", err)
		}
		in.Archive.AllowExpired = true // a snapshot mirror: the signature still counts
		if p, err := in.Plan(ctx, nil, []image.Ask{{Name: "python3-quarry-greet"}}); err != nil || len(p.New) != 1 {
			t.Fatalf("plan with expired Release files allowed: %+v %v", p.New, err)
		}
	})
}

// The recipe's rules hold for extras: a package that needs a compiler
// toolchain, one with a setuid program and one that brings pip are each
// refused naming the package and why, before anything is installed.
func TestAddRefusesWhatTheRecipeKeepsOut(t *testing.T) {
	e := sandboxtest.Engine(t)
	repo := apttest.New(t, apttest.All()...)
	in := repo.Installer(e)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, err := in.Plan(ctx, nil, []image.Ask{{Name: "quarry_native"}})
	var refused *image.RefusedError
	if !errors.As(err, &refused) || refused.Package != "python3-quarry-native" || !strings.Contains(err.Error(), "python3-dev, a compiler toolchain") {
		t.Fatalf("a package needing python3-dev: %v", err)
	}
	for name, want := range map[string]string{
		"python3-quarry-setuid": "/usr/bin/quarry-setuid setuid",
		"python3-quarry-pipper": "/usr/bin/pip3, which fetches or builds code",
	} {
		p, err := in.Plan(ctx, nil, []image.Ask{{Name: name}})
		if err != nil {
			t.Fatalf("plan %s: %v", name, err)
		}
		_, err = in.Build(ctx, nil, p)
		t.Log(err)
		if !errors.As(err, &refused) || refused.Package != name || !strings.Contains(err.Error(), want) {
			t.Errorf("build %s: %v", name, err)
		}
	}
	noImage(t, in)
	_, err = in.Plan(ctx, nil, []image.Ask{{Name: "no_such_module", Kind: image.AskModule}})
	var nd *image.NotInDebianError
	if !errors.As(err, &nd) || err.Error() != "no package of Debian "+apttest.Suite+" provides the Python module no_such_module" {
		t.Fatalf("a module no package ships: %v", err)
	}
}

func noImage(t *testing.T, in *image.Installer) {
	t.Helper()
	if d, ok, err := in.Current(testCtx(t)); ok || err != nil {
		t.Fatalf("an image was made: %+v %v", d, err)
	}
}

// save carries the extras: the archive holds the derived image and lists
// its packages, and a load makes it the current image again.
func TestSaveLoadCarryExtras(t *testing.T) {
	e := sandboxtest.Engine(t)
	repo := apttest.New(t, apttest.Hello, apttest.Greet)
	in := repo.Installer(e)
	t.Setenv(image.RepoEnv, in.Repo)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	p, err := in.Plan(ctx, nil, []image.Ask{{Name: "quarry_hello"}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := in.Build(ctx, nil, p)
	if err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "sandbox.tar")
	f, err := os.Create(archive)
	if err != nil {
		t.Fatal(err)
	}
	info, err := image.Save(ctx, e, f, false)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if info.Extras == nil || info.Extras.Hash != d.Hash || len(info.Extras.Packages) != 2 || info.Extras.Packages[0].Name != "python3-quarry-hello" {
		t.Fatalf("archive header extras %+v", info.Extras)
	}
	// Gone from the engine, as on a machine that never had them; the base stays.
	apttest.RemoveRepo(e, in.Repo)
	if _, ok, _ := in.Current(ctx); ok {
		t.Fatal("extras still there")
	}
	f, _ = os.Open(archive)
	defer f.Close()
	_, loaded, err := image.Load(ctx, e, f, nil)
	if err != nil || !loaded {
		t.Fatalf("load: %v %v", loaded, err)
	}
	cur, err := image.CurrentImage(ctx, e)
	if err != nil || cur.Ref != d.Ref || len(cur.Extras) != 2 {
		t.Fatalf("current after the load: %+v %v", cur, err)
	}
	s := sandboxtest.Session(t, e, sandbox.Options{Image: cur.Ref})
	res, err := s.Exec(ctx, "import quarry_hello\nprint(quarry_hello.hello('load'))", nil)
	if err != nil || res.Error != nil || !strings.Contains(res.Stdout, "hello, load") {
		t.Fatalf("cell on the loaded extras: %v %+v %q", err, res.Error, res.Stdout)
	}
}

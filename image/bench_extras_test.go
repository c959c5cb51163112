package image_test

import (
	"context"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/image/apttest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// BenchmarkAddPackage is quarry sandbox add of one small package with one
// dependency from a signed archive on 127.0.0.1: plan (the archive's
// lists fetched and checked, the module mapped, apt's resolution against
// the image) beside build (download, checks, the networkless build
// container, dpkg, commit). Each build starts from no derived image.
func BenchmarkAddPackage(b *testing.B) {
	e := sandboxtest.Engine(b)
	repo := apttest.New(b, apttest.Hello, apttest.Greet)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	var plan image.Plan
	b.Run("plan", func(b *testing.B) {
		for b.Loop() {
			in := repo.Installer(e) // a cold cache: the lists are fetched
			p, err := in.Plan(ctx, nil, []image.Ask{{Name: "quarry_hello"}})
			if err != nil {
				b.Fatal(err)
			}
			plan = p
		}
	})
	in := repo.Installer(e)
	p, err := in.Plan(ctx, nil, []image.Ask{{Name: "quarry_hello"}})
	if err != nil {
		b.Fatal(err)
	}
	_ = plan
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			if _, err := in.Build(ctx, benchLog(b), p); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			apttest.RemoveRepo(e, in.Repo)
			b.StartTimer()
		}
	})
}

type benchWriter struct{ b *testing.B }

func (w benchWriter) Write(p []byte) (int, error) {
	w.b.Logf("%s %s", time.Now().Format("05.000"), p)
	return len(p), nil
}

func benchLog(b *testing.B) benchWriter { return benchWriter{b} }

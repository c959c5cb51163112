package image_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/image/apttest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// `quarry sandbox add` interrupted while its build container's create is on
// its way to an engine that carries it out, and while dpkg runs in it: no
// build container is left and no image is made.
func TestBuildInterruptedLeavesNothing(t *testing.T) {
	sandboxtest.Engine(t)
	repo := apttest.New(t, apttest.All()...)
	const hold = time.Second
	host, held := sandboxtest.HoldingProxy(t, hold)
	t.Setenv("DOCKER_HOST", host)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	e, err := engine.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	in := repo.Installer(e)
	p, err := in.Plan(ctx, nil, []image.Ask{{Name: "quarry_hello"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, when := range []string{"create held", "dpkg running"} {
		t.Run(strings.ReplaceAll(when, " ", "_"), func(t *testing.T) {
			bctx, stop := context.WithCancel(ctx)
			defer stop()
			progress := &cancelOn{stop: stop}
			if when == "create held" {
				go func() {
					for name := range held {
						if strings.HasPrefix(name, "quarry-extras-build-") {
							stop()
							return
						}
					}
				}()
			} else {
				progress.line = "dpkg: "
			}
			if _, err := in.Build(bctx, progress, p); !errors.Is(err, context.Canceled) {
				t.Fatalf("build: %v, want context.Canceled", err)
			}
			time.Sleep(hold + 500*time.Millisecond) // the engine has done the create
			f := make(client.Filters).Add("label", "io.quarry.role=extras-build").Add("label", "io.quarry.pid="+strconv.Itoa(os.Getpid()))
			cs, err := e.Client().ContainerList(context.Background(), client.ContainerListOptions{All: true, Filters: f})
			if err != nil || len(cs.Items) != 0 {
				t.Errorf("build containers left: %d (%v)", len(cs.Items), err)
			}
			if _, ok, _ := in.Current(context.Background()); ok {
				t.Error("an interrupted build made the derived image current")
			}
		})
	}
}

// cancelOn is a progress writer that calls stop once a line starts with line.
type cancelOn struct {
	mu   sync.Mutex
	line string
	stop func()
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.line != "" && strings.Contains(string(p), c.line) {
		c.stop()
	}
	return len(p), nil
}

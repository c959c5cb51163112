package image_test

import (
	"context"
	"errors"
	"net/http/httptrace"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// The image's manifest names the exact versions of what the recipe asks
// for, and reading it leaves no container behind.
func TestImagePackages(t *testing.T) {
	e := sandboxtest.Engine(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	all, err := image.Packages(ctx, e, image.Ref())
	if err != nil {
		t.Fatal(err)
	}
	recipe := image.RecipePackages(all)
	versions := map[string]string{}
	for _, p := range recipe {
		versions[p.Name] = p.Version
	}
	// What the prompt's promises stand on, at the versions docs/image.md names.
	for name, prefix := range map[string]string{
		"python3": "3.14", "python3-pandas": "2.3", "python3-pyarrow": "25.", "libduckdb2.0": "2.0.",
		"python3-xlrd": "", "python3-odf": "", "python3-pyreadstat": "", "python3-charset-normalizer": "",
	} {
		if v, ok := versions[name]; !ok || !strings.HasPrefix(v, prefix) {
			t.Errorf("%s: version %q, want %s…", name, v, prefix)
		}
	}
	if len(all) < 100 || len(recipe) < 15 || recipe[0].Name != "python3" {
		t.Errorf("%d packages, %d of the recipe's, first %v", len(all), len(recipe), recipe[:1])
	}

	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	f := make(client.Filters).Add("label", "io.quarry.role=manifest").Add("label", "io.quarry.pid="+strconv.Itoa(os.Getpid()))
	cs, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil || len(cs.Items) != 0 {
		t.Errorf("manifest containers left: %d (%v)", len(cs.Items), err)
	}

	if _, err := image.Packages(ctx, e, "quarry-sandbox:no-such-tag-for-test"); err == nil {
		t.Error("a missing image gave packages")
	}
}

func TestParsePackages(t *testing.T) {
	pkgs, err := image.ParsePackages(strings.NewReader("python3\t3.14.8-1\nbroken line\n\tnoname\nlibduckdb2.0\t2.0.0+dfsg2-1\n"))
	if err != nil || len(pkgs) != 2 || pkgs[1].String() != "libduckdb2.0 2.0.0+dfsg2-1" {
		t.Fatalf("%v %v", pkgs, err)
	}
	if _, err := image.ParsePackages(strings.NewReader("<html>not a manifest</html>")); !errors.Is(err, image.ErrNoManifest) {
		t.Errorf("garbage: %v, want ErrNoManifest", err)
	}
}

// Reading the manifest interrupted right after each of its requests went
// out (Ctrl+C in doctor): no manifest container is left.
func TestImagePackagesInterruptedLeavesNothing(t *testing.T) {
	e := sandboxtest.Engine(t)
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	f := make(client.Filters).Add("label", "io.quarry.role=manifest").Add("label", "io.quarry.pid="+strconv.Itoa(os.Getpid()))
	for n := 1; ; n++ {
		ctx, cancel := context.WithCancel(context.Background())
		var sent atomic.Int32
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {
			if sent.Add(1) == int32(n) {
				cancel()
			}
		}})
		_, err := image.Packages(ctx, e, image.Ref())
		cancel()
		cs, lerr := cli.ContainerList(context.Background(), client.ContainerListOptions{All: true, Filters: f})
		if lerr != nil || len(cs.Items) != 0 {
			t.Fatalf("cut after request %d: %d manifest containers left (%v)", n, len(cs.Items), lerr)
		}
		if err == nil {
			if n < 2 {
				t.Fatalf("reading the manifest made %d requests", n-1)
			}
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cut after request %d: %v, want context.Canceled", n, err)
		}
	}
}

package image_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// These tests check the built image itself, with plain containers created
// here (networkless, labelled, removed afterwards) rather than through the
// sandbox session code.

func TestImageImportsAnalysisStackOffline(t *testing.T) {
	out, code := runInImage(t, "", "python3", "-c",
		"import pandas, numpy, matplotlib, scipy, seaborn, statsmodels, sklearn, openpyxl, tabulate; "+
			"import matplotlib.pyplot as plt; plt.plot([1,2],[3,4]); plt.savefig('/tmp/x.png'); "+
			"print('ok', pandas.__version__, numpy.__version__)")
	if code != 0 || !strings.Contains(out, "ok ") {
		t.Fatalf("imports failed (exit %d):\n%s", code, out)
	}
	if strings.Contains(out, "Matplotlib is building the font cache") || strings.Contains(out, "temporary cache directory") {
		t.Errorf("matplotlib font cache was not prebuilt in the image:\n%s", out)
	}
	t.Logf("in image: %s", strings.TrimSpace(out))
}

func TestImageHasNoNetworkInterfaceButLoopback(t *testing.T) {
	// Checked from the inside without sending anything anywhere.
	out, code := runInImage(t, "", "python3", "-c",
		"import socket; print(' '.join(sorted(n for _, n in socket.if_nameindex())))")
	if code != 0 || strings.TrimSpace(out) != "lo" {
		t.Fatalf("network interfaces under NetworkMode none (exit %d): %q, want only lo", code, out)
	}
}

func TestImageHasNoSetuidFiles(t *testing.T) {
	// As root with its usual capabilities, so find can enter every folder.
	out, code := runInImageWith(t, func(hc *container.HostConfig) { hc.CapDrop = nil },
		"root", "find", "/", "-xdev", "-perm", "/6000", "-type", "f")
	if code != 0 || strings.TrimSpace(out) != "" {
		t.Fatalf("setuid/setgid files in the image (exit %d):\n%s", code, out)
	}
}

func TestImageDefaultUserIsNonRoot(t *testing.T) {
	out, code := runInImage(t, "", "sh", "-c", "id -u; id -g; id -un; pwd; echo $HOME; stat -c '%U %a' /output /data")
	want := "1000\n1000\nsandbox\n/output\n/home/sandbox\nsandbox 700\nroot 755\n"
	if code != 0 || out != want {
		t.Fatalf("user/dirs (exit %d):\n%s\nwant:\n%s", code, out, want)
	}
}

func TestImageHasNoCompilerOrPip(t *testing.T) {
	out, code := runInImage(t, "", "sh", "-c",
		"for c in gcc cc c++ g++ clang pip pip3 make; do command -v $c; done; "+
			"python3 -m pip --version 2>/dev/null; python3 -c 'import ensurepip' 2>/dev/null && echo ensurepip; true")
	if code != 0 || strings.TrimSpace(out) != "" {
		t.Fatalf("build or install tools present (exit %d):\n%s", code, out)
	}
}

func TestImageCarriesRecipeLabel(t *testing.T) {
	cli := engineClient(t)
	info, err := cli.ImageInspect(context.Background(), image.Ref())
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Config.Labels["io.quarry.recipe"]; got != image.RecipeHash() {
		t.Errorf("label io.quarry.recipe = %q, want %q", got, image.RecipeHash())
	}
	if info.Config.User != "sandbox" || info.Config.WorkingDir != "/output" {
		t.Errorf("user %q workdir %q, want sandbox and /output", info.Config.User, info.Config.WorkingDir)
	}
	t.Logf("%s: %d MB", image.Ref(), info.Size/1_000_000)
}

func TestImageWorksWithReadOnlyRoot(t *testing.T) {
	// Sessions may run with a read-only root: the prebuilt font cache and
	// .pyc files must serve without writing anything outside /tmp.
	out, code := runInImageWith(t, func(hc *container.HostConfig) {
		hc.ReadonlyRootfs = true
		hc.Tmpfs = map[string]string{"/tmp": "rw,size=64m"}
	}, "", "python3", "-c",
		"import matplotlib.pyplot as plt, pandas; plt.plot([1]); plt.savefig('/tmp/a.png'); print('ok')")
	if code != 0 || strings.TrimSpace(out) != "ok" {
		t.Fatalf("read-only root (exit %d):\n%s", code, out)
	}
}

func TestEnsureImageIsQuietWhenPresent(t *testing.T) {
	e := sandboxtest.Engine(t)
	var w strings.Builder
	if err := image.Ensure(context.Background(), e, &w); err != nil || w.Len() != 0 {
		t.Fatalf("EnsureImage with the image present: err %v, output %q; want nothing", err, w.String())
	}
}

// BenchmarkImageColdImport is a fresh networkless container importing the
// analysis stack: the floor under a session's first cell.
func BenchmarkImageColdImport(b *testing.B) {
	for b.Loop() {
		out, code := runInImage(b, "", "python3", "-c", "import pandas, numpy, matplotlib.pyplot, scipy.stats, seaborn, sklearn")
		if code != 0 {
			b.Fatalf("exit %d: %s", code, out)
		}
	}
}

func engineClient(t testing.TB) *client.Client {
	t.Helper()
	sandboxtest.Engine(t) // skips or fails (CI) without an engine and the image
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

func runInImage(t testing.TB, user string, cmd ...string) (string, int) {
	return runInImageWith(t, nil, user, cmd...)
}

// runInImageWith runs cmd in a fresh networkless container and returns its
// combined output and exit code; the container is removed afterwards.
func runInImageWith(t testing.TB, tweak func(*container.HostConfig), user string, cmd ...string) (string, int) {
	t.Helper()
	cli := engineClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Explicit nofile and nproc: rootful Podman otherwise asks for 1048576,
	// which a runtime without CAP_SYS_RESOURCE may not set.
	hc := &container.HostConfig{NetworkMode: "none", CapDrop: []string{"ALL"},
		SecurityOpt: []string{"no-new-privileges"}}
	hc.Ulimits = []*container.Ulimit{{Name: "nofile", Soft: 1024, Hard: 1024}, {Name: "nproc", Soft: 4096, Hard: 4096}}
	if tweak != nil {
		tweak(hc)
	}
	created, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config: &container.Config{Image: image.Ref(), Cmd: cmd, User: user,
			Labels: map[string]string{"io.quarry.test": "image"}},
		HostConfig: hc,
	})
	if err != nil {
		t.Fatalf("container create: %v", err)
	}
	t.Cleanup(func() {
		_, _ = cli.ContainerRemove(context.Background(), created.ID, client.ContainerRemoveOptions{Force: true})
	})
	wait := cli.ContainerWait(ctx, created.ID, client.ContainerWaitOptions{Condition: container.WaitConditionNextExit})
	if _, err := cli.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		t.Fatalf("container start: %v", err)
	}
	var code int
	select {
	case res := <-wait.Result:
		code = int(res.StatusCode)
	case err := <-wait.Error:
		t.Fatalf("container wait: %v", err)
	}
	logs, err := cli.ContainerLogs(ctx, created.ID, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true})
	if err != nil {
		t.Fatalf("container logs: %v", err)
	}
	defer logs.Close()
	var buf bytes.Buffer
	if _, err := stdcopy.StdCopy(&buf, &buf, logs); err != nil {
		t.Fatalf("container logs: %v", err)
	}
	return buf.String(), code
}

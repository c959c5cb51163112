package image

import (
	"archive/tar"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
)

// The derived image is built in a container created from the base image:
// as root, with no network, the .debs and the install script copied in over
// the engine's API (so a remote engine works the same), dpkg in apt's order,
// then committed. Only the container's end state becomes the image.

// buildLimits bound the build container.
const (
	buildMemory = 2 << 30
	buildPIDs   = 1024
	buildTime   = 20 * time.Minute
)

// buildJob is what the build container is given.
type buildJob struct {
	base    Derived // the base image (Ref, ID) and its config
	extras  []Extra
	steps   []step
	debs    map[string]string // package → .deb on the host
	ref     string            // the tag to commit as
	current string            // the alias sessions look for
}

// deriveImage runs the build container and commits it; progress goes to w.
func deriveImage(ctx context.Context, e *engine.Engine, w io.Writer, job buildJob) error {
	ctx, cancel := context.WithTimeout(ctx, buildTime)
	defer cancel()
	img, err := e.Client().ImageInspect(ctx, job.base.Ref)
	if err != nil {
		return fmt.Errorf("image inspect %s: %w", job.base.Ref, err)
	}
	pids := int64(buildPIDs)
	// Explicit rlimits, as engine.PodmanNproc says why.
	ulimits := []*container.Ulimit{{Name: "nofile", Soft: 4096, Hard: 4096}}
	if e.Kind() == engine.Podman {
		ulimits = append(ulimits, &container.Ulimit{Name: "nproc", Soft: engine.PodmanNproc, Hard: engine.PodmanNproc})
	}
	cid, err := e.CreateContainer(ctx, helperObject(buildRole), client.ContainerCreateOptions{
		Config: &container.Config{
			Image: job.base.Ref, User: "0:0", Hostname: "sandbox-build",
			Cmd:          []string{"/bin/sh", extrasDir + "/" + extrasScriptTag},
			AttachStdout: true, AttachStderr: true, NetworkDisabled: true,
		},
		HostConfig: &container.HostConfig{
			NetworkMode: "none",
			SecurityOpt: []string{"no-new-privileges"},
			CapDrop:     []string{"NET_RAW", "NET_BIND_SERVICE", "MKNOD", "SYS_CHROOT", "AUDIT_WRITE"},
			LogConfig:   container.LogConfig{Type: "none"},
			Resources: container.Resources{Memory: buildMemory, MemorySwap: buildMemory, PidsLimit: &pids,
				Ulimits: ulimits},
		},
	})
	if err != nil {
		return fmt.Errorf("build %w", err)
	}
	defer removeContainer(ctx, e, cid)
	fmt.Fprintf(w, "copying %d packages into a build container (no network)\n", len(job.debs))
	if err := copyJob(ctx, e, cid, job); err != nil {
		return err
	}
	code, out, err := runBuild(ctx, e, cid, w)
	if err != nil {
		return err
	}
	if code != 0 {
		return buildFailure(code, out)
	}
	fmt.Fprintf(w, "committing %s\n", job.ref)
	if _, err := e.Client().ContainerCommit(ctx, cid, client.ContainerCommitOptions{
		Reference: job.ref, Comment: "quarry sandbox extras: " + encodeExtras(job.extras),
		Changes: commitChanges(img.Config.User, img.Config.Cmd, job),
		// Podman's commit reads a body and refuses none ("Decode(): EOF");
		// an empty one changes nothing on Docker, which fills it from the
		// container's.
		Config: &container.Config{},
	}); err != nil {
		return fmt.Errorf("image commit: %w", err)
	}
	if _, err := e.Client().ImageTag(ctx, client.ImageTagOptions{Source: job.ref, Target: job.current}); err != nil {
		return fmt.Errorf("image tag %s: %w", job.current, err)
	}
	return nil
}

// commitChanges give the derived image the base's configuration and its
// labels: the build container's user, command and labels are not the
// sandbox's, and a commit would otherwise keep them. An empty command
// cannot be written (the engine takes the container's instead), so a base
// without one gets a shell; the sandbox names its own command anyway.
func commitChanges(user string, cmd []string, job buildJob) []string {
	if user == "" {
		user = "sandbox"
	}
	if len(cmd) == 0 {
		cmd = []string{"/bin/sh"}
	}
	b, _ := json.Marshal(cmd)
	changes := []string{"USER " + user, "CMD " + string(b)}
	labels := map[string]string{
		labelExtras: extrasHash(job.extras), labelExtrasBase: job.base.ID, labelExtrasList: encodeExtras(job.extras),
	}
	for k := range engine.Labels("", "", "") {
		if k != engine.LabelRecipe {
			labels[k] = "" // the build container's owner, not the image's
		}
	}
	// One label a line: Podman reads "LABEL a=1 b=2" as one label a.
	keys := slices.Sorted(maps.Keys(labels))
	for _, k := range keys {
		changes = append(changes, fmt.Sprintf("LABEL %s=%q", k, labels[k]))
	}
	return changes
}

// copyJob sends the script, its lists and the .debs as one tar.
func copyJob(ctx context.Context, e *engine.Engine, cid string, job buildJob) error {
	// Runs of one action go to one dpkg call, as apt makes them.
	var steps strings.Builder
	last := ""
	for _, s := range job.steps {
		op, arg := "configure", s.pkg
		if !s.configure {
			path, ok := job.debs[s.pkg]
			if !ok {
				continue
			}
			op, arg = "unpack", filepath.Base(path)
		}
		if op != last {
			if last != "" {
				steps.WriteString("\n")
			}
			steps.WriteString(op)
			last = op
		}
		steps.WriteString(" " + arg)
	}
	steps.WriteString("\n")
	pr, pw := io.Pipe()
	go func() {
		tw := tar.NewWriter(pw)
		err := writeTarDir(tw, strings.TrimPrefix(extrasDir, "/"))
		for _, f := range []struct {
			name string
			body []byte
		}{
			{extrasScriptTag, extrasScript},
			{"steps", []byte(steps.String())},
			{"forbidden", []byte(strings.Join(forbiddenPackages(), "\n") + "\n")},
			{"extras.tsv", []byte(extrasTSV(job.extras))},
		} {
			if err == nil {
				err = writeTarFile(tw, strings.TrimPrefix(extrasDir, "/")+"/"+f.name, f.body)
			}
		}
		for _, path := range job.debs {
			if err == nil {
				err = tarHostFile(tw, path, strings.TrimPrefix(extrasDir, "/")+"/"+filepath.Base(path))
			}
		}
		if err == nil {
			err = tw.Close()
		}
		pw.CloseWithError(err)
	}()
	_, err := e.Client().CopyToContainer(ctx, cid, client.CopyToContainerOptions{DestinationPath: "/", Content: pr})
	pr.CloseWithError(err)
	if err != nil {
		return fmt.Errorf("copy into the build container: %w", err)
	}
	return nil
}

func writeTarDir(tw *tar.Writer, name string) error {
	return tw.WriteHeader(&tar.Header{Name: name + "/", Mode: 0o700, Typeflag: tar.TypeDir, ModTime: time.Now()})
}

func tarHostFile(tw *tar.Writer, path, name string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: fi.Size(), ModTime: fi.ModTime(), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	_, err = io.CopyN(tw, f, fi.Size())
	return err
}

// runBuild attaches, starts the build container and waits for it; its
// output goes to w as it comes ("dpkg: ..."), and its end is returned.
func runBuild(ctx context.Context, e *engine.Engine, cid string, w io.Writer) (int, string, error) {
	hj, err := e.Attach(ctx, cid)
	if err != nil {
		return 0, "", err
	}
	defer hj.Close()
	tail := &tailBuffer{max: 64 << 10}
	sink := io.MultiWriter(&prefixWriter{w: w, prefix: "dpkg: "}, tail)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = stdcopy.StdCopy(sink, sink, hj.Reader)
	}()
	if _, err := e.Client().ContainerStart(ctx, cid, client.ContainerStartOptions{}); err != nil {
		return 0, "", fmt.Errorf("build container start: %w", err)
	}
	wait := e.Client().ContainerWait(ctx, cid, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
	var code int
	select {
	case r := <-wait.Result:
		code = int(r.StatusCode)
	case err := <-wait.Error:
		return 0, "", fmt.Errorf("build container wait: %w", err)
	}
	select {
	case <-copied:
	case <-time.After(5 * time.Second):
	}
	return code, tail.String(), nil
}

var refusedLine = regexp.MustCompile(`(?m)^quarry-refused: (.*)$`)

// buildFailure words a failed build: a rule the packages broke, or what
// dpkg said last.
func buildFailure(code int, out string) error {
	if m := refusedLine.FindStringSubmatch(out); m != nil {
		what := strings.TrimSpace(m[1])
		pkg := what
		if i := strings.LastIndex(what, "("); i >= 0 {
			pkg = strings.Trim(what[i:], "()")
		}
		return &RefusedError{Package: pkg, Why: "installing it left " + what}
	}
	if code == 137 {
		return fmt.Errorf("the build container ran out of memory (%d MiB) or was killed", buildMemory>>20)
	}
	return fmt.Errorf("installing the packages failed (dpkg, exit status %d): %s", code, engine.LastLines(out, 6))
}

// tailBuffer keeps the last max bytes written: where a failed build says why.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

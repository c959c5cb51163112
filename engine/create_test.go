package engine_test

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http/httptrace"
	"strconv"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/events"
	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
)

// A create whose caller gives up right after the request went out (Ctrl+C
// at the worst moment): the engine makes the object all the same, and
// CreateContainer removes it before it returns. The engine's events show
// that the window was hit: the container was made, then destroyed.
func TestCreateContainerCancelledMidRequestLeavesNothing(t *testing.T) {
	e := connect(t)
	img := emptyImage(t, e)
	o := testObject("container")
	seen := watchEvents(t, e, events.ContainerEventType)
	ctx := cancelOnceSent(t)
	_, err := e.CreateContainer(ctx, o, client.ContainerCreateOptions{
		Config: &container.Config{Image: img, Entrypoint: []string{"/bin/true"}},
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("create: %v, want context.Canceled", err)
	}
	requireNone(t, e, o.Session)
	seen.require(t, o.Name, events.ActionCreate, events.ActionDestroy)
}

func TestCreateVolumeCancelledMidRequestLeavesNothing(t *testing.T) {
	e := connect(t)
	o := testObject("volume")
	seen := watchEvents(t, e, events.VolumeEventType)
	if err := e.CreateVolume(cancelOnceSent(t), o, client.VolumeCreateOptions{Driver: "local"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("create: %v, want context.Canceled", err)
	}
	requireNone(t, e, o.Session)
	seen.require(t, o.Name, events.ActionCreate, events.ActionDestroy)
}

// The name is another's when the engine refuses it: a cancelled create
// then removes nothing.
func TestCreateCancelledAfterRefusalKeepsTheOtherObject(t *testing.T) {
	e := connect(t)
	img := emptyImage(t, e)
	o := testObject("container")
	opts := client.ContainerCreateOptions{Config: &container.Config{Image: img, Entrypoint: []string{"/bin/true"}}}
	id, err := e.CreateContainer(context.Background(), o, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.RemoveContainer(context.Background(), id) })
	if _, err := e.CreateContainer(cancelOnceSent(t), o, opts); !errors.Is(err, context.Canceled) {
		t.Fatalf("second create: %v, want context.Canceled", err)
	}
	got, err := e.Client().ContainerInspect(context.Background(), id, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatalf("the first container is gone: %v", err)
	}
	if l := got.Container.Config.Labels; l[engine.LabelSession] != o.Session || l[engine.LabelRole] != o.Role ||
		l[engine.LabelPID] == "" || l[engine.LabelCreated] == "" {
		t.Errorf("labels %v: want the object's session, role, pid and creation time", l)
	}
}

// testObject is a fresh object of the test's own, found by its session label.
func testObject(role string) engine.Object {
	b := make([]byte, 6)
	rand.Read(b)
	id := "enginetest-" + hex.EncodeToString(b)
	return engine.Object{Name: "quarry-" + id, Session: id, Role: role}
}

// cancelOnceSent is a context cancelled as soon as the HTTP request that
// uses it is written: the engine has it, quarry has no answer yet.
func cancelOnceSent(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { cancel() },
	})
}

// emptyImage imports an image with no files, enough for a container that
// is never started; it is removed when the test ends.
func emptyImage(t *testing.T, e *engine.Engine) string {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: "empty/", Typeflag: tar.TypeDir, Mode: 0o755})
	tw.Close()
	ref := "quarry-engine-test:" + testObject("").Session
	res, err := e.Client().ImageImport(context.Background(), client.ImageImportSource{Source: &buf, SourceName: "-"}, ref, client.ImageImportOptions{})
	if err != nil {
		t.Fatalf("image import: %v", err)
	}
	res.Close()
	t.Cleanup(func() { e.Client().ImageRemove(context.Background(), ref, client.ImageRemoveOptions{Force: true}) })
	return ref
}

func requireNone(t *testing.T, e *engine.Engine, session string) {
	t.Helper()
	f := make(client.Filters).Add("label", engine.LabelSession+"="+session)
	cs, err := e.Client().ContainerList(context.Background(), client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := e.Client().VolumeList(context.Background(), client.VolumeListOptions{Filters: f})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs.Items {
		t.Errorf("container %s (%s) left behind", c.Names, c.State)
		e.RemoveContainer(context.Background(), c.ID)
	}
	for _, v := range vs.Items {
		t.Errorf("volume %s left behind", v.Name)
		e.RemoveVolume(context.Background(), v.Name)
	}
}

// eventLog collects the engine's events of one object type.
type eventLog struct {
	msgs <-chan events.Message
}

func watchEvents(t *testing.T, e *engine.Engine, kind events.Type) eventLog {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	since := strconv.FormatInt(time.Now().Unix()-1, 10)
	res := e.Client().Events(ctx, client.EventsListOptions{Since: since, Filters: make(client.Filters).Add("type", string(kind))})
	return eventLog{msgs: res.Messages}
}

// require waits for the actions on the object named name, in order.
func (l eventLog) require(t *testing.T, name string, actions ...events.Action) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for len(actions) > 0 {
		select {
		case m := <-l.msgs:
			if (m.Actor.ID == name || m.Actor.Attributes["name"] == name) && sameAction(m.Action, actions[0]) {
				actions = actions[1:]
			}
		case <-timeout:
			t.Fatalf("the engine reported no %v of %s", actions, name)
		}
	}
}

// sameAction: Podman reports as "remove" what Docker reports as "destroy".
func sameAction(got, want events.Action) bool {
	return got == want || (want == events.ActionDestroy && got == "remove")
}

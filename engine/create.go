package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// Every container and volume quarry makes is made here, so one rule holds
// for all of them: named and labelled before the request goes out, and
// removed by that name when the caller gave up before the engine answered
// (an engine that has the request makes the object all the same).

// Object names one thing quarry asks the engine to make and whom it
// belongs to, for its labels.
type Object struct {
	Name    string // the engine's name for it, unique: quarry-<session>[-<what>]
	Session string // LabelSession: the session or helper it serves
	Role    string // LabelRole: sandbox, data, output, manifest, status, extras-build
	Recipe  string // LabelRecipe: the image recipe it is for
}

func (o Object) labels() map[string]string { return Labels(o.Session, o.Role, o.Recipe) }

// lateAnswer is how long a create whose caller gave up still waits for
// the engine's answer: with it, the removal finds what was made.
const lateAnswer = 10 * time.Second

// cleanupTimeout bounds a removal after the caller's context ended.
const cleanupTimeout = 30 * time.Second

// CleanupContext is a fresh short context for removing what ctx's work
// made, usable after ctx ended (an interrupt): it keeps ctx's values only.
func CleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}

// CreateContainer creates a container named and labelled for o and returns
// its id. When ctx ends first, whatever the engine made is removed and the
// error is ctx's.
func (e *Engine) CreateContainer(ctx context.Context, o Object, opts client.ContainerCreateOptions) (string, error) {
	if opts.Config == nil {
		opts.Config = &container.Config{}
	}
	opts.Name = o.Name
	opts.Config.Labels = withLabels(opts.Config.Labels, o.labels())
	var id string
	err := e.create(ctx, func(ctx context.Context) error {
		res, err := e.cli.ContainerCreate(ctx, opts)
		id = res.ID
		return err
	}, func(ctx context.Context) error { return e.RemoveContainer(ctx, o.Name) })
	if err != nil {
		return "", fmt.Errorf("container create: %w", err)
	}
	e.owed.forget(false, o.Name)
	return id, nil
}

// CreateVolume creates a volume named and labelled for o, removed again
// when ctx ends before the engine answered.
func (e *Engine) CreateVolume(ctx context.Context, o Object, opts client.VolumeCreateOptions) error {
	opts.Name = o.Name
	opts.Labels = withLabels(opts.Labels, o.labels())
	err := e.create(ctx, func(ctx context.Context) error {
		_, err := e.cli.VolumeCreate(ctx, opts)
		return err
	}, func(ctx context.Context) error { return e.RemoveVolume(ctx, o.Name) })
	if err != nil {
		return fmt.Errorf("volume create: %w", err)
	}
	e.owed.forget(true, o.Name)
	return nil
}

// create sends a create request that outlives ctx by up to lateAnswer,
// and when ctx ended first, removes by name what it may have made, with a
// context of its own.
func (e *Engine) create(ctx context.Context, send, remove func(context.Context) error) error {
	if err := ctx.Err(); err != nil {
		return err // nothing was sent
	}
	e.settleOwed(ctx)
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(lateAnswer, cancel) })
	err := send(rctx)
	stop()
	if ctx.Err() == nil {
		return err
	}
	if err != nil && rctx.Err() == nil {
		return ctx.Err() // refused: nothing made, and the name may be another's
	}
	// The caller gave up and the engine made the object, or took longer
	// than lateAnswer to say: whatever it makes after the removal is left
	// for the next start's sweep, which finds this process gone.
	rm, rcancel := CleanupContext(ctx)
	defer rcancel()
	return errors.Join(ctx.Err(), remove(rm))
}

// withLabels adds the owner's labels to those a caller gave; the owner's win.
func withLabels(given, owner map[string]string) map[string]string {
	out := make(map[string]string, len(given)+len(owner))
	for k, v := range given {
		out[k] = v
	}
	for k, v := range owner {
		out[k] = v
	}
	return out
}

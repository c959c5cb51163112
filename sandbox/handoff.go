package sandbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
)

// A sandbox handed from the quarry process that started it to another
// one (the warm pool of -p runs, session/holder.go). The kernel keeps its
// stdin open when an attached stream ends (StdinOnce false), so the
// starter detaches and the taker attaches to the running container; the
// kernel is idle in between, so no frame is lost. /output is a volume of
// the container, not a host folder: the taker harvests into its own.

// Handoff describes a started, idle sandbox for the process taking it.
type Handoff struct {
	ID          string      `json:"id"`
	Container   string      `json:"container"`
	Image       string      `json:"image"`
	Limits      Limits      `json:"limits"`
	Seq         int64       `json:"seq"`
	Ready       frame       `json:"ready"`
	Enforced    Enforcement `json:"enforced"`
	RuntimeNote string      `json:"runtime_note"`
}

// Release detaches from the sandbox's kernel and describes it for Adopt;
// the container keeps running. From then on Close leaves the container
// (the releaser's owner removes it when the taker is done) and only ends
// this side's folder.
func (s *Session) Release() (Handoff, error) {
	if err := CanHandOff(s.e); err != nil {
		return Handoff{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.getK()
	if s.closed || k == nil || k.dead() {
		return Handoff{}, errors.New("sandbox release: the kernel is not running")
	}
	s.released = true
	k.Close()
	s.setK(nil)
	return Handoff{ID: s.id, Container: s.cid, Image: s.opts.Image, Limits: s.lim, Seq: s.seq,
		Ready: s.info, Enforced: s.enforced, RuntimeNote: s.runtimeNote}, nil
}

// adoptCheck bounds the round trip that proves an adopted kernel answers.
const adoptCheck = 10 * time.Second

// Adopt takes over a sandbox another process released: it attaches to
// the running container and checks that its kernel answers. opts gives
// the output folder, the timeout and the DB; the image and limits are the
// handoff's. Close removes the container as for a sandbox Start made.
func Adopt(ctx context.Context, e *engine.Engine, h Handoff, opts Options) (*Session, error) {
	if !validID.MatchString(h.ID) || h.Container == "" {
		return nil, fmt.Errorf("sandbox adopt: bad handoff (session %q)", h.ID)
	}
	in, err := e.Client().ContainerInspect(ctx, h.Container, client.ContainerInspectOptions{})
	if err != nil {
		return nil, fmt.Errorf("sandbox adopt: %w", err)
	}
	c := in.Container
	if c.Config == nil || c.Config.Labels[engine.LabelSession] != h.ID || c.State == nil || !c.State.Running {
		return nil, fmt.Errorf("sandbox adopt: container %.12s is not session %s's running sandbox", h.Container, h.ID)
	}
	opts.SessionID, opts.Image, opts.Earlier = h.ID, h.Image, nil
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	hv, err := newHarvester(opts.OutputDir, harvestLimits{MaxFiles: h.Limits.OutputFiles, MaxBytes: h.Limits.OutputSize}, nil)
	if err != nil {
		return nil, fmt.Errorf("sandbox adopt: %w", err)
	}
	s := &Session{id: h.ID, e: e, opts: opts, lim: h.Limits, cid: h.Container, harvest: hv, intr: make(chan struct{}, 1),
		seq: h.Seq, info: h.Ready, enforced: h.Enforced, runtimeNote: h.RuntimeNote, gen: 1}
	hj, err := e.Attach(ctx, h.Container)
	if err != nil {
		hv.Close()
		return nil, fmt.Errorf("sandbox adopt: %w", err)
	}
	s.setK(newKconn(hj))
	s.Foreground(ctx)
	cctx, cancel := context.WithTimeout(ctx, adoptCheck)
	defer cancel()
	s.mu.Lock()
	res, err := s.exec(cctx, 0, "pass", nil, false)
	s.mu.Unlock()
	if err == nil && res.Error != nil {
		err = fmt.Errorf("the kernel did not answer (%s)", res.Error.Message)
	}
	if err != nil {
		s.getK().Close()
		hv.Close()
		return nil, fmt.Errorf("sandbox adopt: %w", err)
	}
	return s, nil
}

// RemoveReleased removes a released sandbox's container and volumes once
// its taker is done with it, or gone (killed, say); nothing if the taker
// removed them already.
func (s *Session) RemoveReleased() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return errors.Join(Discard(ctx, s.e, Handoff{ID: s.id}), s.Close())
}

// Discard removes a handed-off sandbox the taker does not adopt.
func Discard(ctx context.Context, e *engine.Engine, h Handoff) error {
	if !validID.MatchString(h.ID) {
		return nil
	}
	return removeSessionObjects(ctx, e, h.ID)
}

// CPU shares: the lowest the engine takes, and its default.
const (
	lowCPUWeight    = 2
	normalCPUWeight = 1024
)

// weigh sets the container's CPU weight. An engine that cannot (no CPU
// controller delegated) leaves it as it was: the weight only orders
// sandboxes that compete, it limits none.
func (s *Session) weigh(ctx context.Context, id string, shares int64) {
	s.e.Client().ContainerUpdate(ctx, id, client.ContainerUpdateOptions{Resources: &container.Resources{CPUShares: shares}})
}

// Foreground gives a sandbox started in the background (Options.Background)
// the usual CPU weight: its session has taken it.
func (s *Session) Foreground(ctx context.Context) {
	s.weigh(ctx, s.cid, normalCPUWeight)
}

// CanHandOff says whether e keeps a container's stdin open when its
// attached client leaves, as a hand-over needs. Podman (4.3) closes it, and
// the kernel then reads the end of its input and exits.
func CanHandOff(e *engine.Engine) error {
	if e.Kind() == engine.Podman {
		return errors.New("sandbox release: Podman closes a sandbox's input when the process that started it detaches, so a sandbox cannot be handed to another process; each run starts its own")
	}
	return nil
}

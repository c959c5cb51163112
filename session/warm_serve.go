package session

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox"
)

// ErrHolderRuns: another holder already serves the spec.
var ErrHolderRuns = errors.New("warm pool: a holder for these sandboxes runs already")

// holder serves one spec's pool at its socket (warm.go).
type holder struct {
	e    *engine.Engine
	spec WarmSpec
	pool *Pool

	mu     sync.Mutex
	held   int       // sandboxes handed out whose runs still hold them
	last   time.Time // the last take, or the last run's end
	change chan struct{}
	quit   bool
}

// ServeWarm is quarry sandbox warm: it keeps size sandboxes of spec
// started on e and hands one to each run that asks at spec's socket. It
// returns when ctx ends, when idle passes with no run taking or holding
// one, or when asked to stop; it then removes the sandboxes no run took
// and waits for the runs that hold one (their sandboxes are theirs; it
// removes one whose run went without). ready hears the socket's path
// once it listens.
func ServeWarm(ctx context.Context, e *engine.Engine, spec WarmSpec, size int, idle time.Duration, log, ready func(string)) error {
	if err := sandbox.CanHandOff(e); err != nil {
		return fmt.Errorf("warm pool: %w", err)
	}
	path, err := spec.socket()
	if err != nil {
		return err
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("warm pool: %w", err)
	}
	defer lock.Close()
	if err := lockRecord(lock); err != nil {
		return ErrHolderRuns
	}
	// Who holds them, for a person looking (the lock goes with the process).
	lock.Truncate(0)
	lock.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	os.Remove(path) // a holder that was killed left it
	ln, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("warm pool: %w", err)
	}
	defer os.Remove(path)
	defer ln.Close()
	tmp, err := os.MkdirTemp("", "quarry-warm-")
	if err != nil {
		return fmt.Errorf("warm pool: %w", err)
	}
	defer os.RemoveAll(tmp)

	h := &holder{e: e, spec: spec, last: time.Now(), change: make(chan struct{}, 1)}
	h.pool = newPool(e, spec.config(tmp), size, 1, log)
	conns := make(chan net.Conn)
	over := make(chan struct{})
	defer close(over)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(conns)
				return
			}
			select {
			case conns <- c:
			case <-over:
				c.Close()
				return
			}
		}
	}()
	if ready != nil {
		ready(path)
	}
	var wg sync.WaitGroup
	told := 0 // the sandboxes ready, as last said
	tick := time.NewTicker(min(idle/4+time.Millisecond, time.Second))
	defer tick.Stop()
loop:
	for {
		select {
		case c, ok := <-conns:
			if !ok {
				break loop
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				h.serve(c)
			}()
		case <-h.change:
		case <-tick.C:
		case <-ctx.Done():
			break loop
		}
		if n := h.pool.Ready(); n != told {
			told = n
			log(fmt.Sprintf("%d of %d sandboxes ready", n, size))
		}
		h.mu.Lock()
		done := h.quit || (h.held == 0 && time.Since(h.last) >= idle)
		h.mu.Unlock()
		if done {
			break
		}
	}
	ln.Close()
	os.Remove(path)
	err = h.pool.Close()
	h.mu.Lock()
	held := h.held
	h.mu.Unlock()
	if held > 0 {
		log(fmt.Sprintf("stopping once the %d runs holding a sandbox are done", held))
	}
	wg.Wait()
	return err
}

func (h *holder) changed() {
	select {
	case h.change <- struct{}{}:
	default:
	}
}

// serve answers one connection: a take (and then holds until the run
// closes it) or a stop.
func (h *holder) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(takeTimeout))
	var m warmMsg
	if readMsg(r, &m) != nil {
		return
	}
	switch {
	case m.Op == "quit":
		h.stop()
		return
	case m.Op != "take":
		return
	case m.Spec == nil || *m.Spec != h.spec:
		writeMsg(c, warmMsg{None: "these sandboxes are for another configuration"})
		return
	}
	h.mu.Lock()
	quit := h.quit
	h.mu.Unlock()
	var pd *Pooled
	if !quit {
		pd = h.pool.Take()
	}
	if pd == nil {
		writeMsg(c, warmMsg{None: "no sandbox is ready"})
		return
	}
	hand, err := pd.sb.Release()
	if err != nil {
		pd.remove()
		writeMsg(c, warmMsg{None: err.Error()})
		return
	}
	h.hold(1)
	defer h.hold(-1)
	defer func() {
		pd.sb.RemoveReleased()
		os.Remove(pd.dir)
	}()
	if writeMsg(c, warmMsg{Handoff: &hand, Engine: h.e.Host()}) != nil {
		return
	}
	c.SetReadDeadline(time.Time{})
	for readMsg(r, &m) == nil {
		if m.Op == "stale" {
			h.stop()
		}
	}
}

func (h *holder) hold(n int) {
	h.mu.Lock()
	h.held += n
	h.last = time.Now()
	h.mu.Unlock()
	h.changed()
}

func (h *holder) stop() {
	h.mu.Lock()
	h.quit = true
	h.mu.Unlock()
	h.changed()
}

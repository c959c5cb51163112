package agent

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// defaultStreamIdle is how long a started stream may send nothing: servers
// that think for long send ": ping" comments well within it.
const defaultStreamIdle = 90 * time.Second

func (a *Agent) streamIdle() time.Duration {
	switch d := a.cfg.StreamIdleTimeout; {
	case d == 0:
		return defaultStreamIdle
	case d < 0:
		return 0
	default:
		return d
	}
}

// idleBody closes a response body that sends no bytes for timeout: the
// request context belongs to the user (cancel), and without this a server
// that stalls mid-answer, connection open, would block the read forever,
// which in headless mode nobody is there to cancel.
type idleBody struct {
	io.ReadCloser
	timeout time.Duration
	timer   *time.Timer
	stalled atomic.Bool
}

func newIdleBody(rc io.ReadCloser, timeout time.Duration) *idleBody {
	b := &idleBody{ReadCloser: rc, timeout: timeout}
	b.timer = time.AfterFunc(timeout, func() {
		b.stalled.Store(true)
		rc.Close() // unblocks the pending Read
	})
	return b
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.stalled.Load() {
		return n, &stallError{after: b.timeout}
	}
	if n > 0 {
		b.timer.Reset(b.timeout)
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	return b.ReadCloser.Close()
}

// stallError is a stream that went silent for longer than the idle timeout.
type stallError struct{ after time.Duration }

func (e *stallError) Error() string { return "the model stopped sending for " + e.duration() }

// duration reads "90s" rather than Go's "1m30s".
func (e *stallError) duration() string {
	if e.after >= time.Second {
		return fmt.Sprintf("%gs", e.after.Round(time.Millisecond).Seconds())
	}
	return e.after.Round(time.Millisecond).String()
}

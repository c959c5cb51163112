package ui

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/quarry-cli/quarry/agent"
)

// Inbox is the one way other goroutines reach the chat: agent events, the
// end of a turn, start-up progress lines and confirm requests are queued
// here, and a single Cmd (wait) hands them to Update in order, in batches.
// Create it before the session so the session's Progress writer and the
// agent's confirm hook can point at it.
type Inbox struct {
	ch   chan tea.Msg
	done chan struct{}
	once sync.Once
}

// NewInbox returns an empty inbox.
func NewInbox() *Inbox {
	return &Inbox{ch: make(chan tea.Msg, 4096), done: make(chan struct{})}
}

// close makes pending and future sends return at once (the chat quit).
func (ib *Inbox) close() { ib.once.Do(func() { close(ib.done) }) }

func (ib *Inbox) send(m tea.Msg) bool {
	select {
	case ib.ch <- m:
		return true
	case <-ib.done:
		return false
	}
}

// inboxMsg is a batch of queued messages, applied in order.
type inboxMsg []tea.Msg

// maxBatch bounds one batch so a flood of deltas still lets keys through.
const maxBatch = 512

// wait blocks for the next message and takes whatever else is queued.
func (ib *Inbox) wait() tea.Cmd {
	return func() tea.Msg {
		var batch inboxMsg
		select {
		case m := <-ib.ch:
			batch = append(batch, m)
		case <-ib.done:
			return nil
		}
		for len(batch) < maxBatch {
			select {
			case m := <-ib.ch:
				batch = append(batch, m)
			default:
				return batch
			}
		}
		return batch
	}
}

// eventMsg is one agent event of turn number turn.
type eventMsg struct {
	turn int
	ev   agent.Event
}

// turnEndMsg says Ask returned.
type turnEndMsg struct {
	turn   int
	answer string
	err    error
}

// progressMsg is one start-up line from the session (engine, image build).
type progressMsg string

// Progress is an io.Writer for session.Options.Progress: each line shows in
// the status bar while the sandbox starts.
func (ib *Inbox) Progress() io.Writer { return &progressWriter{ib: ib} }

type progressWriter struct {
	ib  *Inbox
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *progressWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for {
		i := bytes.IndexAny(w.buf.Bytes(), "\r\n")
		if i < 0 {
			break
		}
		line := strings.TrimSpace(string(w.buf.Next(i + 1)))
		if line != "" {
			select {
			case w.ib.ch <- progressMsg(line):
			default: // never block the image build on the display
			}
		}
	}
	return len(p), nil
}

// confirmRequest asks the user whether to run a cell.
type confirmRequest struct {
	cell  int
	code  string
	reply chan confirmReply
}

type confirmReply struct {
	code string
	run  bool
}

// Confirm is the hook run before each cell with --confirm: it shows the
// code and blocks until the user answers y (run), n (skip) or e (edit, then
// run the edited code), or ctx ends. It returns the code to run.
func (ib *Inbox) Confirm(ctx context.Context, cell int, code string) (string, bool, error) {
	req := confirmRequest{cell: cell, code: code, reply: make(chan confirmReply, 1)}
	select {
	case ib.ch <- req:
	case <-ctx.Done():
		return "", false, ctx.Err()
	case <-ib.done:
		return "", false, context.Canceled
	}
	select {
	case r := <-req.reply:
		if err := ctx.Err(); err != nil {
			// Esc answers "skip" as it cancels; the cancellation wins, or
			// the agent would tell the model the user skipped the cell.
			return "", false, err
		}
		return r.code, r.run, nil
	case <-ctx.Done():
		return "", false, ctx.Err()
	case <-ib.done:
		return "", false, context.Canceled
	}
}

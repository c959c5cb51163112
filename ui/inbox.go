package ui

import (
	"context"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/quarry-cli/quarry/agent"
)

// Inbox is the one way other goroutines reach the chat: agent events, the
// end of a turn, the session's own events and confirm requests are queued
// here, and a single Cmd (wait) hands them to Update in order, in batches.
// Create it before the session so the session's Events sink and the
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

// sessionMsg is one of the session's own events: a start-up step
// (EventProgress), the sandbox's state (EventSandbox) or a warning about it
// (EventWarning).
type sessionMsg agent.Event

// Event is the sink for session.Options.Events: progress shows in the
// status bar while the sandbox starts, the sandbox's state after it. A
// progress line is dropped rather than block the image build on a full
// inbox; a state change waits for room.
func (ib *Inbox) Event(e agent.Event) {
	if e.Kind == agent.EventProgress {
		select {
		case ib.ch <- sessionMsg(e):
		default:
		}
		return
	}
	ib.send(sessionMsg(e))
}

// confirmRequest asks the user whether to run a cell, or, with install
// set, whether to add packages to the sandbox (the question in words).
type confirmRequest struct {
	cell    int
	code    string
	install string
	reply   chan confirmReply
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

// ConfirmInstall is the session's hook before it adds packages to the
// sandbox (session.Options.Install): an install, not a cell, so it is
// asked whether or not --confirm is on. It shows the question ("xgboost
// is in Debian (...): add it to the sandbox? [y/N]") and blocks until the
// user answers y (yes) or anything else (no), or ctx ends.
func (ib *Inbox) ConfirmInstall(ctx context.Context, question string) (bool, error) {
	req := confirmRequest{install: question, reply: make(chan confirmReply, 1)}
	select {
	case ib.ch <- req:
	case <-ctx.Done():
		return false, ctx.Err()
	case <-ib.done:
		return false, context.Canceled
	}
	select {
	case r := <-req.reply:
		return r.run && ctx.Err() == nil, ctx.Err()
	case <-ctx.Done():
		return false, ctx.Err()
	case <-ib.done:
		return false, context.Canceled
	}
}

package mcp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressEvery is how often a running call says how it goes.
const progressEvery = time.Second

// progress sends a call's progress notifications, when the client asked
// for them (a progress token): the sandbox's start-up steps, then a beat
// per second of a running cell with its latest line of output. Progress
// only grows, as the protocol wants. A nil *progress says nothing.
type progress struct {
	ctx   context.Context
	ss    *sdk.ServerSession
	token any

	mu   sync.Mutex
	n    float64
	last string // the latest line of output
}

func newProgress(ctx context.Context, req *sdk.CallToolRequest) *progress {
	if req == nil || req.Params == nil {
		return nil
	}
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return nil
	}
	return &progress{ctx: ctx, ss: req.Session, token: tok}
}

func (p *progress) say(msg string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.n++
	n := p.n
	p.mu.Unlock()
	// Best effort: a client that stopped listening loses only the notice.
	p.ss.NotifyProgress(p.ctx, &sdk.ProgressNotificationParams{ProgressToken: p.token, Progress: n, Message: msg})
}

// output keeps the latest line a running cell printed, for the next beat.
func (p *progress) output(text string) {
	if p == nil {
		return
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	line := strings.TrimSpace(lines[len(lines)-1])
	if line == "" {
		return
	}
	if r := []rune(line); len(r) > 120 {
		line = string(r[:119]) + "…"
	}
	p.mu.Lock()
	p.last = line
	p.mu.Unlock()
}

// beat says, each second until done is called, that what (the cell, a
// report's build) still runs.
func (p *progress) beat(what string) (done func()) {
	if p == nil {
		return func() {}
	}
	stop := make(chan struct{})
	t0 := time.Now()
	go func() {
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-p.ctx.Done():
				return
			case now := <-t.C:
				p.mu.Lock()
				last := p.last
				p.mu.Unlock()
				msg := fmt.Sprintf("%s has run for %s", what, now.Sub(t0).Round(time.Second))
				if last != "" {
					msg += ": " + last
				}
				p.say(msg)
			}
		}
	}()
	return func() { close(stop) }
}

package session

import (
	"bytes"
	"strings"
	"sync"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/ground"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/secret"
)

// publish is the one way an event leaves the session: it is masked (the
// key, credentials in URLs, and for error texts anything shaped like a key),
// stamped, given to the session record and handed to the front end's sink.
// Every exit (the chat, the headless printer, --json, the record)
// therefore sees the same, already masked event.
func (s *Session) publish(e agent.Event, sink func(agent.Event)) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	e = maskEvent(s.mask, e)
	s.mu.Lock()
	rec := s.rec
	s.mu.Unlock()
	mode := ""
	if e.Kind == agent.EventTurnDone && s.ag != nil {
		mode = s.ag.ToolMode() // the turn's own goroutine: the agent is not running
	}
	rec.event(e, mode)
	if sink != nil {
		sink(e)
	}
}

// emit publishes a session event (start-up progress, sandbox state) to
// Options.Events.
func (s *Session) emit(e agent.Event) { s.publish(e, s.opts.Events) }

// progress reports one start-up step.
func (s *Session) progress(text string) {
	s.emit(agent.Event{Kind: agent.EventProgress, Text: text})
}

// maskEvent returns e with every text masked; the Result is copied, never
// changed in place (the agent may still hold it).
func maskEvent(m *secret.Masker, e agent.Event) agent.Event {
	text := m.Mask
	switch e.Kind {
	case agent.EventError, agent.EventRetry, agent.EventWarning, agent.EventIncomplete:
		text = m.MaskError
	}
	e.Text = text(e.Text)
	e.Code = m.Mask(e.Code)
	if e.Chunk != nil {
		c := *e.Chunk
		c.Text = m.Mask(c.Text)
		e.Chunk = &c
	}
	if e.Result != nil {
		e.Result = maskResult(m, e.Result)
	}
	if e.Numbers != nil {
		ns := make([]ground.Claim, len(e.Numbers))
		for i, c := range e.Numbers {
			c.Text = m.Mask(c.Text)
			if c.Source != nil {
				src := m.Mask(*c.Source)
				c.Source = &src
			}
			ns[i] = c
		}
		e.Numbers = ns
	}
	return e
}

func maskResult(m *secret.Masker, r *kernel.Result) *kernel.Result {
	out := *r
	out.Stdout, out.Stderr = m.Mask(r.Stdout), m.Mask(r.Stderr)
	if r.Value != nil {
		v := *r.Value
		v.Repr = m.Mask(v.Repr)
		out.Value = &v // the table holds the user's data: the key never enters the sandbox
	}
	if r.Error != nil {
		e := *r.Error
		e.Message, e.Traceback = m.Mask(e.Message), m.Mask(e.Traceback)
		out.Error = &e
	}
	if r.Notes != nil {
		out.Notes = make([]string, len(r.Notes))
		for i, n := range r.Notes {
			out.Notes[i] = m.Mask(n)
		}
	}
	return &out
}

func (s *Session) maskErr(err error) error { return s.mask.WrapError(err) }

// progressLines turns the image build's output into progress events, one
// per line; a line may arrive in pieces.
type progressLines struct {
	s   *Session
	mu  sync.Mutex
	buf bytes.Buffer
}

func (p *progressLines) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf.Write(b)
	for {
		i := bytes.IndexAny(p.buf.Bytes(), "\r\n")
		if i < 0 {
			break
		}
		if line := strings.TrimSpace(string(p.buf.Next(i + 1))); line != "" {
			p.s.progress(line)
		}
	}
	return len(b), nil
}

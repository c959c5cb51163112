package headless

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/render"
)

// progress reports what the run is doing on stderr: an animated status
// line on a terminal, one plain "quarry: ..." line per event otherwise, and
// nothing when quiet. Events arrive from one goroutine; the spinner ticks in
// another, hence the mutex.
type progress struct {
	w       io.Writer
	off     bool
	animate bool
	verbose bool // show the model's thinking
	dim     bool // in faint text (a terminal without NO_COLOR)

	mu        sync.Mutex
	status    string
	since     time.Time
	start     time.Time
	drawn     bool // a status line is on screen
	writing   bool // answer text is streaming (reported once per response)
	thinking  bool // the model's thinking is being written (verbose)
	pondering bool // "the model is thinking" was reported for this response
	stop      chan struct{}
	stopped   bool
	done      sync.WaitGroup
}

func newProgress(w io.Writer, quiet, terminal bool) *progress {
	p := &progress{w: w, off: quiet || w == nil, animate: terminal, start: time.Now(), stop: make(chan struct{})}
	if !p.off && p.animate {
		p.done.Add(1)
		go p.spin()
	}
	return p
}

var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (p *progress) spin() {
	defer p.done.Done()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		p.mu.Lock()
		if p.status != "" && !p.stopped {
			fmt.Fprintf(p.w, "\r\x1b[2K%s %s %s", spinFrames[i%len(spinFrames)], p.status,
				time.Since(p.since).Round(time.Second))
			p.drawn = true
		}
		p.mu.Unlock()
	}
}

// Phase sets the current activity (already sanitized): the spinner's status
// on a terminal, a plain line otherwise.
func (p *progress) Phase(text string) { p.report(text, true) }

// Status sets the animated status without a plain line: states between
// events ("waiting for the model") are not events themselves.
func (p *progress) Status(text string) {
	if p.off || !p.animate {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endThinking()
	p.status, p.since = text, time.Now()
}

// Note prints a line that stays (a finished cell, a retry, a warning).
func (p *progress) Note(text string) { p.report(text, false) }

// report prints text as a line that stays, or, when asStatus and animating,
// makes it the spinner's status.
func (p *progress) report(text string, asStatus bool) {
	if p.off {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	if asStatus && p.animate {
		p.endThinking()
		p.status, p.since = text, time.Now()
		return
	}
	p.endThinking()
	if p.drawn {
		io.WriteString(p.w, "\r\x1b[2K")
		p.drawn = false
	}
	fmt.Fprintf(p.w, "quarry: %s\n", text)
}

// think writes a delta of the model's thinking as it streams: after a
// "quarry: thinking:" line, in faint text on a terminal, the spinner
// paused so that it cannot overwrite it.
func (p *progress) think(text string) {
	if p.off || !p.verbose || text == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	if !p.thinking {
		if p.drawn {
			io.WriteString(p.w, "\r\x1b[2K")
			p.drawn = false
		}
		io.WriteString(p.w, "quarry: thinking:\n")
		p.thinking, p.status = true, ""
	}
	text = render.Sanitize(text)
	if p.dim {
		text = "\x1b[2m" + text + "\x1b[22m"
	}
	io.WriteString(p.w, text)
}

// endThinking ends the thinking's text on its own line; p.mu is held.
func (p *progress) endThinking() {
	if p.thinking {
		io.WriteString(p.w, "\n")
		p.thinking = false
	}
}

// Event turns a session or agent event into progress.
func (p *progress) Event(e agent.Event) {
	switch e.Kind {
	case agent.EventProgress:
		p.Phase(render.SanitizeLine(e.Text))
	case agent.EventCellStart:
		p.writing, p.pondering = false, false
		p.Phase(fmt.Sprintf("cell %d running", e.Cell))
	case agent.EventCellDone:
		p.Note(fmt.Sprintf("cell %d %s", e.Cell, render.CellSummary(e.Result)))
		if e.Result != nil {
			for _, n := range e.Result.Notes {
				p.Note(fmt.Sprintf("cell %d: %s", e.Cell, render.SanitizeLine(n)))
			}
		}
		p.Status("waiting for the model")
	case agent.EventReasoning:
		if p.verbose {
			p.think(e.Text)
		} else if !p.pondering {
			p.pondering = true
			p.Phase("the model is thinking")
		}
	case agent.EventText:
		p.pondering = false
		if !p.writing {
			p.writing = true
			p.Phase("writing the answer")
		}
	case agent.EventRetry:
		p.writing, p.pondering = false, false // the unfinished response is void
		p.Note(fmt.Sprintf("model request failed (%s); retry %d in %s",
			render.SanitizeLine(e.Text), e.Attempt, render.FormatDuration(e.Wait)))
		p.Status("waiting to retry")
	case agent.EventWarning, agent.EventIncomplete:
		p.Note("warning: " + render.SanitizeLine(e.Text))
	case agent.EventRevise:
		p.writing = false // the draft is void: the model answers again
		p.Note(render.SanitizeLine(e.Text))
	}
}

// Summary prints the turn's totals.
func (p *progress) Summary(c *collector) {
	u := c.usage
	cells := "cells"
	if c.steps == 1 {
		cells = "cell"
	}
	line := fmt.Sprintf("done in %s: %d %s, %d prompt + %d completion tokens",
		render.FormatDuration(time.Since(p.start)), c.steps, cells, u.PromptTokens, u.CompletionTokens)
	if u.ReasoningTokens > 0 {
		line += fmt.Sprintf(" (%d of them reasoning)", u.ReasoningTokens)
	}
	if u.CostUSD > 0 {
		line += fmt.Sprintf(", $%.4f", u.CostUSD)
	}
	p.Note(line)
}

// Stop ends the animation and clears the status line; safe twice.
func (p *progress) Stop() {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	p.stopped = true
	p.endThinking()
	if p.drawn {
		io.WriteString(p.w, "\r\x1b[2K")
		p.drawn = false
	}
	p.mu.Unlock()
	close(p.stop)
	p.done.Wait()
}

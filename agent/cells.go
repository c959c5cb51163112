package agent

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/quarry-cli/quarry/kernel"
)

// runCalls runs the tool calls of one response in order and answers every
// one with a tool message, even when cancelled or when the sandbox broke, so
// that the conversation stays valid for the next request.
func (t *turn) runCalls(calls []*wireCall, cutOff bool) error {
	var broken error
	for _, c := range calls {
		content := t.notRun(broken)
		if content == "" {
			if code, problem := callCode(c, cutOff); problem != nil {
				t.steps++
				t.failed = append(t.failed, problem.forUser)
				content = problem.forModel
			} else {
				content, broken = t.runCell(code)
			}
		}
		t.a.history = append(t.a.history, entry{kind: entryOutput, msg: toolResult(c.id, content)})
	}
	return t.afterCells(broken)
}

// runBlocks runs fenced code blocks (markdown mode) and returns their
// output to the model as one user message.
func (t *turn) runBlocks(codes []string) error {
	var parts []string
	var broken error
	for i, code := range codes {
		label := "Output:"
		if len(codes) > 1 {
			label = fmt.Sprintf("Output of code block %d:", i+1)
		}
		content := t.notRun(broken)
		if content == "" {
			content, broken = t.runCell(code)
		}
		parts = append(parts, label+"\n"+content)
	}
	t.a.history = append(t.a.history, entry{kind: entryOutput, msg: userMessage(strings.Join(parts, "\n\n"))})
	return t.afterCells(broken)
}

// notRun says why the next cell must not run, or "" when it may.
func (t *turn) notRun(broken error) string {
	switch {
	case t.ctx.Err() != nil, t.confirmErr != nil:
		return "Cancelled by the user: not run."
	case halted(broken) != nil:
		return "Not run: " + halted(broken).Message
	case broken != nil:
		return "Not run: the sandbox failed (see the previous result)."
	case t.steps >= t.a.maxSteps():
		return fmt.Sprintf("Not run: the limit of %d code runs for this question was reached.", t.a.maxSteps())
	}
	return ""
}

func (t *turn) afterCells(broken error) error {
	if t.ctx.Err() != nil {
		return t.ctx.Err()
	}
	if t.confirmErr != nil {
		return &Error{Kind: KindConfirm, Message: fmt.Sprintf(
			"stopped: the cell could not be shown for confirmation (%s); the conversation is kept", clip(t.confirmErr.Error(), 200))}
	}
	if h := halted(broken); h != nil {
		return &Error{Kind: KindHalted, Message: h.Message}
	}
	if broken != nil {
		return &Error{Kind: KindSandbox, Message: fmt.Sprintf(
			"the Python sandbox stopped working (%s); the conversation is kept", clip(broken.Error(), 300))}
	}
	return nil
}

// halted is the Halt an Exec returned, or nil.
func halted(err error) *Halt {
	var h *Halt
	if errors.As(err, &h) {
		return h
	}
	return nil
}

// answerAll answers calls that will not run.
func (t *turn) answerAll(calls []*wireCall, content string) {
	for _, c := range calls {
		t.a.history = append(t.a.history, entry{kind: entryOutput, msg: toolResult(c.id, content)})
	}
}

// runCell runs code and says what the model should see of it. A non-nil
// error means the sandbox broke (not that the code failed).
func (t *turn) runCell(code string) (string, error) {
	if confirm := t.a.cfg.Confirm; confirm != nil {
		edited, run, err := confirm(t.ctx, t.a.cells+1, code)
		switch {
		case err != nil:
			if t.ctx.Err() == nil {
				// The prompt failed while the turn goes on: asking the
				// model again would only meet the same failure, forever.
				t.confirmErr = err
			}
			return "Cancelled by the user: not run.", nil
		case !run:
			t.steps++
			t.emit(Event{Kind: EventWarning, Text: "cell skipped: the user chose not to run it"})
			return "The user reviewed this code and chose not to run it. Do not run it again unchanged; ask the user or try another way.", nil
		}
		if edited != code {
			code = edited
		}
	}
	res, err := t.exec(code)
	switch {
	case halted(err) != nil:
		return cellView(res), err
	case err != nil && t.ctx.Err() != nil:
		return "Cancelled by the user: the cell was interrupted.", nil
	case err != nil:
		return fmt.Sprintf("The sandbox failed and the result of this cell is lost: %s. Do not run more code now; tell the user.", clip(err.Error(), 300)), err
	}
	return cellView(res), nil
}

// interruptGrace is how long a cancelled cell may take to stop.
var interruptGrace = 10 * time.Second

// exec runs one cell, emitting its start, its output chunks and its result
// from the Run goroutine even if the kernel calls onChunk from another one.
func (t *turn) exec(code string) (kernel.Result, error) {
	a := t.a
	a.cells++
	t.steps++
	t.ran++
	n := a.cells
	t.emit(Event{Kind: EventCellStart, Cell: n, Code: code})

	type outcome struct {
		res kernel.Result
		err error
	}
	chunks := make(chan kernel.Chunk, 64)
	done := make(chan outcome, 1)
	quit := make(chan struct{}) // closed when Run stops waiting for the kernel
	var mu sync.Mutex
	closed := false
	go func() {
		var o outcome
		defer func() {
			if r := recover(); r != nil {
				o = outcome{err: fmt.Errorf("the kernel panicked: %v", r)}
			}
			mu.Lock()
			closed = true
			close(chunks)
			mu.Unlock()
			done <- o
		}()
		o.res, o.err = a.kernel.Exec(t.ctx, code, func(c kernel.Chunk) {
			mu.Lock()
			defer mu.Unlock()
			if closed {
				return
			}
			select {
			case chunks <- c:
			case <-quit:
			}
		})
	}()
	var o outcome
	ctxDone, grace := t.ctx.Done(), (<-chan time.Time)(nil)
wait:
	for {
		select {
		case c, ok := <-chunks:
			if !ok {
				o = <-done
				break wait
			}
			t.emit(Event{Kind: EventCellOutput, Cell: n, Chunk: &c})
		case <-ctxDone:
			ctxDone, grace = nil, time.After(interruptGrace)
		case <-grace:
			// A kernel that ignores the interrupt must not freeze the UI.
			close(quit)
			o = outcome{err: fmt.Errorf("the kernel did not stop within %s of the interrupt: %w", interruptGrace, t.ctx.Err())}
			break wait
		}
	}
	shown := o.res
	if o.err != nil && shown.Error == nil {
		if t.ctx.Err() != nil {
			shown.Error = &kernel.Error{Kind: kernel.ErrInterrupted, Message: "the cell was interrupted"}
		} else {
			shown.Error = &kernel.Error{Kind: kernel.ErrCrashed, Message: o.err.Error()}
		}
	}
	t.emit(Event{Kind: EventCellDone, Cell: n, Code: code, Result: &shown})
	return o.res, o.err
}

package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// turn is one Run: the loop of model responses and cells.
type turn struct {
	a     *Agent
	ctx   context.Context
	emit  func(Event)
	usage Tokens
	steps int // cells run (or refused) in this turn

	trimNoted  bool
	confirmErr error // the --confirm hook failed while the turn went on

	ran       int      // cells that ran in this turn
	failed    []string // calls that could not run, for the user
	askedCall bool     // the model was told its empty tool-call response ran nothing
}

const maxContinuations = 2 // answers cut off by the length limit

func (a *Agent) maxSteps() int {
	if a.cfg.MaxSteps > 0 {
		return a.cfg.MaxSteps
	}
	return 20
}

func (t *turn) run(prompt string) (string, error) {
	t.a.history = append(t.a.history, entry{kind: entryPrompt, msg: userMessage(prompt)})
	return t.loop()
}

func (t *turn) loop() (string, error) {
	a := t.a
	var answer strings.Builder
	continuations, limitNoted := 0, false
	for {
		atLimit := t.steps >= a.maxSteps()
		if atLimit && !limitNoted {
			limitNoted = true
			a.addNote(fmt.Sprintf("[quarry] The limit of %d code runs for this question is reached. Do not run more code: answer now with what you found, and say what is left undone.", a.maxSteps()))
			t.warn(fmt.Sprintf("the model used all %d code runs allowed per question (max_steps); it was asked to answer with what it has", a.maxSteps()))
		}
		resp, err := t.respond(atLimit)
		if err != nil {
			return "", t.fail(err)
		}
		t.addUsage(resp.usage)
		text, reasoning := joinSurrogates(resp.text), joinSurrogates(resp.reasoning)
		calls := toolCalls(resp.calls)
		if len(calls) > 0 {
			a.nativeCalls = true
			a.history = append(a.history, entry{kind: entryAssistant, msg: assistantMessage(text, reasoning, a.historyCalls(calls))})
			if atLimit {
				t.answerAll(calls, fmt.Sprintf("Not run: the limit of %d code runs for this question was reached.", a.maxSteps()))
				return "", t.fail(&Error{Kind: KindStepLimit, Message: fmt.Sprintf(
					"stopped: the model kept running code after the limit of %d cells (max_steps) without giving an answer; ask a narrower question or raise max_steps", a.maxSteps())})
			}
			if err := t.runCalls(calls, resp.finish == "length"); err != nil {
				return "", t.fail(err)
			}
			continue
		}
		if codes := t.codeInText(text); len(codes) > 0 && !atLimit {
			a.history = append(a.history, entry{kind: entryAssistant, msg: assistantMessage(text, reasoning, nil)})
			if err := t.runBlocks(codes); err != nil {
				return "", t.fail(err)
			}
			continue
		}
		if resp.finish == "tool_calls" && a.mode == modeNative && !atLimit && !t.askedCall {
			// The response says it is a tool call but carries none: a
			// server whose call parser failed, leaving the call as text.
			a.history = append(a.history, entry{kind: entryAssistant, msg: assistantMessage(text, reasoning, nil)})
			if codes := lookalikeCode(text); len(codes) > 0 {
				if err := t.runBlocks(codes); err != nil {
					return "", t.fail(err)
				}
				continue
			}
			t.askedCall = true
			t.failed = append(t.failed, "the model's response ended as a tool call but carried none")
			a.addNote(`[quarry] Your response ended as a tool call (finish_reason "tool_calls") but carried no call, so nothing ran. To run code, call the python tool with {"code": "<python source>"}; otherwise answer in text.`)
			continue
		}
		if text != "" {
			a.history = append(a.history, entry{kind: entryAssistant, msg: assistantMessage(text, reasoning, nil)})
		}
		answer.WriteString(text)
		if resp.finish == "length" && continuations < maxContinuations {
			continuations++
			a.addNote("[quarry] Your answer was cut off by the output length limit. Continue exactly where it stopped, without repeating anything.")
			continue
		}
		switch resp.finish {
		case "length":
			t.incomplete("the answer was cut off by the model's output length limit")
		case "content_filter":
			t.incomplete("the model provider's content filter stopped the answer")
		}
		if strings.TrimSpace(answer.String()) == "" {
			t.incomplete("the model sent an empty answer")
		}
		if t.ran == 0 && len(t.failed) > 0 {
			t.incomplete(fmt.Sprintf("no code ran for this answer: %s, and it answered without running any, so the answer is not computed from the data",
				t.failed[len(t.failed)-1]))
		}
		t.emit(Event{Kind: EventTurnDone, Text: answer.String()})
		return answer.String(), nil
	}
}

// respond builds the request from the history and gets a response. In auto
// mode a server that rejects the tools field makes the session fall back to
// markdown code blocks.
func (t *turn) respond(atLimit bool) (*response, error) {
	a := t.a
	for {
		system := a.systemPrompt()
		native := a.mode == modeNative
		if a.fitBudget(system, native) > 0 && !t.trimNoted {
			t.trimNoted = true
			t.warn("older cell outputs were shortened to keep the conversation within the context budget")
		}
		req := request{model: a.cfg.Model, messages: a.messages(system)}
		if native {
			req.tools = []toolSpec{pythonTool}
			req.noToolCalls = atLimit
		}
		resp, err := a.complete(t.ctx, req, t.emit)
		// Once the model has called the tool, a 400 that names a function
		// is about that call, not a server without tools.
		if err != nil && native && a.cfg.ToolMode == modeAuto && !a.nativeCalls && t.ctx.Err() == nil && rejectsTools(err) {
			a.mode = modeMarkdown
			_, msg, _ := apiDetails(err)
			t.warn(fmt.Sprintf("the model server does not accept tool calls (%s); quarry asks for ```python blocks instead for this session (tool_mode markdown skips this)", clip(a.redact(msg), 120)))
			continue
		}
		return resp, err
	}
}

// codeInText finds code the model wrote as text: fenced blocks in markdown
// mode; in auto mode, a fenced block or a JSON call look-alike from a model
// that has not used native calls switches the session to markdown.
func (t *turn) codeInText(text string) []string {
	a := t.a
	if a.mode == modeMarkdown {
		return lookalikeCode(text)
	}
	if a.cfg.ToolMode != modeAuto || a.nativeCalls {
		return nil
	}
	codes := lookalikeCode(text)
	if len(codes) > 0 {
		a.mode = modeMarkdown
		t.warn("the model wrote code as text instead of calling the python tool; quarry runs its ```python blocks from now on in this session")
	}
	return codes
}

// fail turns an error into the turn's outcome: a user cancel is a warning
// and a wrapped context.Canceled; anything else an EventError in words.
func (t *turn) fail(err error) error {
	if t.ctx.Err() != nil {
		if isUserCancel(t.ctx) {
			t.warn("cancelled")
			return fmt.Errorf("agent: cancelled by the user: %w", context.Canceled)
		}
		msg := "the turn ran out of time before the model finished"
		t.emit(Event{Kind: EventError, Text: msg})
		return fmt.Errorf("agent: %s: %w", msg, t.ctx.Err())
	}
	var ae *Error
	if !errors.As(err, &ae) {
		ae = t.a.classify(err).err
	}
	ae = &Error{Kind: ae.Kind, Status: ae.Status, Message: t.a.redact(ae.Message)}
	t.emit(Event{Kind: EventError, Text: ae.Message})
	return ae
}

func (t *turn) warn(msg string) { t.emit(Event{Kind: EventWarning, Text: msg}) }

// incomplete says the answer is not what the question needed.
func (t *turn) incomplete(msg string) { t.emit(Event{Kind: EventIncomplete, Text: msg}) }

func (a *Agent) addNote(text string) {
	a.history = append(a.history, entry{kind: entryNote, msg: userMessage(text)})
}

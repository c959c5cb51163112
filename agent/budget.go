package agent

import (
	"encoding/json"
	"fmt"
	"strings"
)

// entryKind tells what a history entry is, for trimming.
type entryKind int

const (
	entryPrompt    entryKind = iota // the user's question
	entryAssistant                  // a model response
	entryOutput                     // a cell result (tool message, or user message in markdown mode)
	entryNote                       // a note from quarry to the model
)

// entry is one message of the history with what trimming needs to know.
type entry struct {
	kind    entryKind
	msg     message
	trimmed bool
}

const (
	charsPerToken = 4
	keepOutputs   = 2   // the most recent cell outputs are never trimmed
	summaryChars  = 200 // what is kept of a trimmed output
	toolsTokens   = 150 // the python tool's schema
)

func (a *Agent) budget() int {
	if a.cfg.ContextBudget > 0 {
		return a.cfg.ContextBudget
	}
	return 100_000
}

// estimateTokens guesses the prompt size at about 4 characters a token.
func estimateTokens(msgs []message, withTools bool) int {
	n := 0
	for _, m := range msgs {
		n += len(m.content) + len(m.role) + 12
		if len(m.calls) > 0 {
			n += len(m.reasoning) // sent back to the servers that need it
		}
		for _, tc := range m.calls {
			n += len(tc.args) + len(tc.name) + len(tc.id) + len(tc.extra) + 24
		}
	}
	n /= charsPerToken
	if withTools {
		n += toolsTokens
	}
	return n
}

// fitBudget shrinks the history until the request fits the budget: old
// cell outputs become short summaries, then old code is shortened, then the
// oldest turns go. The system prompt, the current question and the last
// outputs stay intact. It returns how many entries it changed.
func (a *Agent) fitBudget(system string, withTools bool) int {
	over := func() bool { return a.estimate(system, withTools) > a.budget() }
	if !over() {
		return 0
	}
	changed := a.summarizeOutputs(keepOutputs, over)
	if !over() {
		return changed
	}
	current := a.turnStart()
	for i := range a.history[:current] {
		e := &a.history[i]
		for j, tc := range e.msg.calls {
			if len(tc.args) > 600 {
				e.msg.calls[j].args = shortenedArgs(tc.args)
				changed++
			}
		}
		if e.kind == entryAssistant && len(e.msg.content) > 2000 {
			e.msg.content = clipMiddle(e.msg.content, 1500)
			changed++
		}
		if !over() {
			return changed
		}
	}
	for over() {
		end := a.firstTurnEnd()
		if end <= 0 || end > a.turnStart() {
			break
		}
		a.history = append([]entry(nil), a.history[end:]...)
		changed++
	}
	// Only the current turn is left: its latest outputs go last.
	for keep := keepOutputs - 1; keep >= 0 && over(); keep-- {
		changed += a.summarizeOutputs(keep, over)
	}
	return changed
}

// summarizeOutputs replaces cell outputs, oldest first, by a short summary
// until over() is false, sparing the last keep outputs.
func (a *Agent) summarizeOutputs(keep int, over func() bool) int {
	protected := map[int]bool{}
	for i := len(a.history) - 1; i >= 0 && len(protected) < keep; i-- {
		if a.history[i].kind == entryOutput {
			protected[i] = true
		}
	}
	changed := 0
	for i := range a.history {
		e := &a.history[i]
		if e.kind != entryOutput || e.trimmed || protected[i] || len(e.msg.content) <= summaryChars+100 {
			continue
		}
		e.msg.content = fmt.Sprintf("[output trimmed to save context (%d characters); it began:]\n%s", len(e.msg.content), clip(e.msg.content, summaryChars))
		e.trimmed = true
		changed++
		if !over() {
			break
		}
	}
	return changed
}

func (a *Agent) estimate(system string, withTools bool) int {
	return estimateTokens(a.messages(system), withTools)
}

// turnStart is the index of the current question in the history.
func (a *Agent) turnStart() int {
	for i := len(a.history) - 1; i >= 0; i-- {
		if a.history[i].kind == entryPrompt {
			return i
		}
	}
	return 0
}

// firstTurnEnd is where the second question starts: dropping everything
// before it removes the oldest turn whole, tool calls with their results.
func (a *Agent) firstTurnEnd() int {
	for i := 1; i < len(a.history); i++ {
		if a.history[i].kind == entryPrompt {
			return i
		}
	}
	return -1
}

// shortenedArgs keeps old code readable but short, still valid JSON.
func shortenedArgs(args string) string {
	var v struct {
		Code string `json:"code"`
	}
	code := args
	if json.Unmarshal([]byte(args), &v) == nil && v.Code != "" {
		code = v.Code
	}
	lines := strings.SplitN(code, "\n", 9)
	if len(lines) > 8 {
		lines = append(lines[:8], "# … (older code trimmed to save context)")
	}
	b, _ := json.Marshal(map[string]string{"code": clip(strings.Join(lines, "\n"), 500)})
	return string(b)
}

// messages is the request's conversation: the system prompt, then history.
func (a *Agent) messages(system string) []message {
	out := make([]message, 0, len(a.history)+1)
	out = append(out, message{role: roleSystem, content: system})
	for _, e := range a.history {
		out = append(out, e.msg)
	}
	return out
}

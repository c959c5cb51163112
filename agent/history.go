package agent

import (
	"encoding/json"
	"strconv"

	"github.com/quarry-cli/quarry/ground"
	"github.com/quarry-cli/quarry/kernel"
)

// PastTurn is a turn of an earlier run of the session, as its record keeps
// it: enough to put the conversation back into a fresh agent's context.
type PastTurn struct {
	Question string
	Cells    []PastCell
	Answer   string         // empty when the turn ended without one
	Numbers  []ground.Claim // the answer's numbers as checked then; never sent to the model
}

// PastCell is one cell of a past turn.
type PastCell struct {
	Num    int // the cell's number in the session
	Code   string
	Result kernel.Result
}

// Load puts past turns into the conversation, in the shape the current tool
// mode uses (tool calls and tool messages, or fenced blocks and an output
// message), and makes cell numbers go on after the last one. The model sees
// each cell's outcome as it saw it then. markdown says the earlier run had
// fallen back to fenced code blocks; unless tool_mode is native, this run
// starts there too, since that server took no tool calls.
func (a *Agent) Load(turns []PastTurn, markdown bool) {
	if markdown && a.cfg.ToolMode != modeNative {
		a.mode = modeMarkdown
	}
	for _, t := range turns {
		a.beginTurn(t.Question)
		a.history = append(a.history, entry{kind: entryPrompt, msg: userMessage(t.Question)})
		if len(t.Cells) > 0 {
			if a.mode == modeMarkdown {
				a.loadBlocks(t.Cells)
			} else {
				a.loadCalls(t.Cells)
			}
		}
		if t.Answer != "" {
			a.history = append(a.history, entry{kind: entryAssistant, msg: assistantMessage(t.Answer, "", nil)})
		}
		for _, c := range t.Cells {
			a.cells = max(a.cells, c.Num)
		}
	}
}

// NumberAfter makes the next cell's number follow n when n is later than
// the loaded turns' last: a resumed session's folder counts the cells of
// questions taken back too, and figures and tracebacks are named by the
// sandbox's count, so the chat's numbers must follow the same one.
func (a *Agent) NumberAfter(n int) { a.cells = max(a.cells, n) }

// loadCalls is one assistant message calling the tool once per cell, each
// answered by its tool message.
func (a *Agent) loadCalls(cells []PastCell) {
	calls := make([]*wireCall, len(cells))
	for i, c := range cells {
		args, _ := json.Marshal(map[string]string{"code": c.Code})
		calls[i] = &wireCall{name: toolName, args: args}
	}
	a.nativeCalls = true
	a.history = append(a.history, entry{kind: entryAssistant, msg: assistantMessage("", "", a.historyCalls(calls))})
	for i, c := range cells {
		a.history = append(a.history, entry{kind: entryOutput, msg: toolResult(calls[i].id, cellView(c.Result))})
	}
}

// loadBlocks is the markdown mode's shape: the code as fenced blocks, the
// outputs in one user message.
func (a *Agent) loadBlocks(cells []PastCell) {
	var text, outputs string
	for i, c := range cells {
		text += "```python\n" + c.Code + "\n```\n"
		label := "Output:"
		if len(cells) > 1 {
			label = "Output of code block " + strconv.Itoa(i+1) + ":"
		}
		if i > 0 {
			outputs += "\n\n"
		}
		outputs += label + "\n" + cellView(c.Result)
	}
	a.history = append(a.history,
		entry{kind: entryAssistant, msg: assistantMessage(text, "", nil)},
		entry{kind: entryOutput, msg: userMessage(outputs)})
}

// Note adds a remark from quarry that the model reads with the next
// question (e.g. that the kernel was rebuilt only in part).
func (a *Agent) Note(text string) { a.addNote(text) }

package agent

import (
	"encoding/json"
	"fmt"
	"strings"
)

const toolName = "python"

// toolSpec describes a tool; the wire format writes it in its own schema.
type toolSpec struct {
	name, description string
	parameters        json.RawMessage // JSON Schema of the arguments
}

var pythonTool = toolSpec{
	name: toolName,
	description: "Run Python code in a persistent Jupyter-like kernel (variables survive between calls). " +
		"Attached files are under /data; save files for the user under /output. " +
		"Returns stdout, stderr, the value of the last expression, saved figures and files, or the traceback.",
	parameters: json.RawMessage(`{"type":"object","properties":{"code":{"type":"string","description":"The Python code to run."}},"required":["code"]}`),
}

// callProblem is a call that could not run: what the model is told (so
// that it can correct the call) and, briefly, what the user is told.
type callProblem struct{ forModel, forUser string }

// callCode gets the code out of an assembled call, or says what was wrong
// with it.
func callCode(c *wireCall, cutOff bool) (string, *callProblem) {
	if c.name != toolName {
		return "", &callProblem{
			forModel: fmt.Sprintf(`Error: there is no tool %q, so nothing ran. The only tool is %q; call it with {"code": "<python source>"}.`, clip(c.name, 80), toolName),
			forUser:  fmt.Sprintf("the model called a tool %q that does not exist", clip(oneLine(c.name, 80), 80))}
	}
	raw := strings.TrimSpace(joinSurrogates(c.args))
	var args struct {
		Code *string `json:"code"`
	}
	err := json.Unmarshal([]byte(raw), &args)
	switch {
	case err == nil && args.Code != nil && strings.TrimSpace(*args.Code) != "":
		return *args.Code, nil
	case err == nil:
		return "", &callProblem{forModel: `Error: the call had no code, so nothing ran. Call python with {"code": "<python source>"}.`,
			forUser: "the model called python without code"}
	case cutOff:
		return "", &callProblem{forModel: "Error: your response hit the output length limit, so the code was cut off and not run. Send shorter code, in several steps if needed.",
			forUser: "the model's code was cut off by the output length limit"}
	case raw != "" && !strings.HasPrefix(raw, "{"):
		// Some local models put the bare source in arguments.
		return raw, nil
	}
	return "", &callProblem{forModel: fmt.Sprintf(`Error: the arguments were not valid JSON (%v), so nothing ran. Call python with {"code": "<python source>"}.`, err),
		forUser: "the model's tool call had arguments that are not valid JSON"}
}

// toolCalls turns the assembled calls into history entries, dropping empty
// slots left by servers whose indexes skip numbers.
func toolCalls(calls []*wireCall) []*wireCall {
	var out []*wireCall
	for _, c := range calls {
		if c.id != "" || c.name != "" || len(c.args) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// historyCalls records the calls for the conversation, making up ids for
// servers that send none (every call needs one for its tool message).
func (a *Agent) historyCalls(calls []*wireCall) []toolCall {
	out := make([]toolCall, 0, len(calls))
	for _, c := range calls {
		if c.id == "" {
			a.madeIDs++
			c.id = fmt.Sprintf("call_quarry_%d", a.madeIDs)
		}
		args := joinSurrogates(c.args)
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		out = append(out, toolCall{id: c.id, name: c.name, args: args, extra: c.extra})
	}
	return out
}

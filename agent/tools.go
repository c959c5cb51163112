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

// callCode gets the code out of an assembled call, or says to the model
// what was wrong with the call.
func callCode(c *wireCall, cutOff bool) (code, problem string) {
	if c.name != toolName {
		return "", fmt.Sprintf("Error: there is no tool %q; the only tool is %q with one argument, code.", c.name, toolName)
	}
	raw := strings.TrimSpace(joinSurrogates(c.args))
	var args struct {
		Code *string `json:"code"`
	}
	err := json.Unmarshal([]byte(raw), &args)
	switch {
	case err == nil && args.Code != nil && strings.TrimSpace(*args.Code) != "":
		return *args.Code, ""
	case err == nil:
		return "", `Error: the call had no code. Call python with {"code": "<python source>"}.`
	case cutOff:
		return "", "Error: your response hit the output length limit, so the code was cut off and not run. Send shorter code, in several steps if needed."
	case raw != "" && !strings.HasPrefix(raw, "{"):
		// Some local models put the bare source in arguments.
		return raw, ""
	}
	return "", fmt.Sprintf(`Error: the arguments were not valid JSON (%v), so nothing ran. Call python with {"code": "<python source>"}.`, err)
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
		out = append(out, toolCall{id: c.id, name: c.name, args: args})
	}
	return out
}

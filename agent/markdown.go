package agent

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Models without native tool calling print code instead of calling the
// tool: as fenced ```python blocks, or as JSON that looks like a call
// (bare, in a ```json block, or in <tool_call> tags).

var (
	fencedPython = regexp.MustCompile("(?ms)^[ \t]*```[ \t]*(?:python3?|py)[ \t]*\r?\n(.*?)^[ \t]*```[ \t]*$")
	fencedJSON   = regexp.MustCompile("(?s)```[ \t]*(?:json)?[ \t]*\r?\n(\\{.*?\\})\\s*```")
	toolCallTag  = regexp.MustCompile(`(?s)<tool_call>\s*(\{.*?\})\s*</tool_call>`)
)

// fencedBlocks returns the code of every ```python block, in order.
func fencedBlocks(text string) []string {
	var out []string
	for _, m := range fencedPython.FindAllStringSubmatch(text, -1) {
		if code := strings.TrimSpace(m[1]); code != "" {
			out = append(out, m[1])
		}
	}
	return out
}

// lookalikeCode finds code the model meant to run without calling the tool:
// fenced python blocks, or a JSON object shaped like a python tool call.
func lookalikeCode(text string) []string {
	if blocks := fencedBlocks(text); len(blocks) > 0 {
		return blocks
	}
	var candidates []string
	for _, m := range toolCallTag.FindAllStringSubmatch(text, -1) {
		candidates = append(candidates, m[1])
	}
	for _, m := range fencedJSON.FindAllStringSubmatch(text, -1) {
		candidates = append(candidates, m[1])
	}
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
		candidates = append(candidates, t)
	}
	var out []string
	for _, c := range candidates {
		if code, ok := jsonCallCode(c); ok {
			out = append(out, code)
		}
	}
	return out
}

// jsonCallCode accepts the shapes local models use: {"name":"python",
// "arguments":{"code":…}}, arguments as a string, {"function":{…}},
// {"tool":"python","code":…} and a bare {"code":…}.
func jsonCallCode(s string) (string, bool) {
	var v struct {
		Name       string          `json:"name"`
		Tool       string          `json:"tool"`
		Code       string          `json:"code"`
		Arguments  json.RawMessage `json:"arguments"`
		Parameters json.RawMessage `json:"parameters"`
		Function   *struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	if json.Unmarshal([]byte(s), &v) != nil {
		return "", false
	}
	name, args := v.Name+v.Tool, v.Arguments
	if v.Function != nil {
		name, args = v.Function.Name, v.Function.Arguments
	}
	if len(args) == 0 {
		args = v.Parameters
	}
	if name != "" && name != toolName {
		return "", false
	}
	if v.Code != "" {
		return v.Code, true
	}
	if len(args) == 0 {
		return "", false
	}
	// Arguments may be an object or a JSON string holding one.
	var str string
	if json.Unmarshal(args, &str) == nil {
		args = json.RawMessage(str)
	}
	var a struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(args, &a) != nil || strings.TrimSpace(a.Code) == "" {
		return "", false
	}
	return a.Code, true
}

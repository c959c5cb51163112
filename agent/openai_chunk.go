package agent

import (
	"encoding/json"
)

// The Chat Completions stream chunk, read with the string fields kept raw
// so that fragments split inside UTF-8 sequences or escapes survive (see
// rawjson.go). These are quarry's own types: go-openai's would decode the
// strings (and fail on the shapes some servers send).

type chatChunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *chatUsage `json:"usage"`
}

type chatUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// addChunk applies one chunk's JSON: text and argument fragments are
// appended as raw bytes, tool-call fragments go to their call.
func (r *response) addChunk(raw []byte) error {
	var c chatChunk
	if err := json.Unmarshal(raw, &c); err != nil {
		return &malformedError{err: err}
	}
	if c.Usage != nil {
		r.usage = &tokenUsage{prompt: c.Usage.PromptTokens, completion: c.Usage.CompletionTokens}
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		b, err := unquoteRaw(ch.Delta.Content)
		if err != nil {
			return &malformedError{err: err}
		}
		if err := r.addText(b); err != nil {
			return err
		}
		for _, tc := range ch.Delta.ToolCalls {
			args, err := unquoteRaw(tc.Function.Arguments)
			if err != nil {
				return &malformedError{err: err}
			}
			if err := r.addCall(callPart{index: tc.Index, id: tc.ID, name: tc.Function.Name, args: args}); err != nil {
				return err
			}
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			r.finish = *ch.FinishReason
		}
	}
	return nil
}

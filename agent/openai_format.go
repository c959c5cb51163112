package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// The conversion between quarry's conversation and go-openai's request
// types: the only place, with openai_stream.go, that knows the SDK.

// chatRequest is req as a streaming Chat Completions request; usage asks
// for the final usage chunk (stream_options), which some servers refuse;
// reasoning sends back the reasoning of steps that called tools.
func chatRequest(req request, usage, reasoning bool) openai.ChatCompletionRequest {
	out := openai.ChatCompletionRequest{Model: req.model, Messages: chatMessages(req.messages, reasoning), Stream: true}
	if usage {
		out.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	for _, t := range req.tools {
		out.Tools = append(out.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.name, Description: t.description, Parameters: t.parameters}})
	}
	if len(out.Tools) > 0 && req.noToolCalls {
		out.ToolChoice = "none"
	}
	return out
}

func chatMessages(ms []message, reasoning bool) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, 0, len(ms))
	for _, m := range ms {
		cm := openai.ChatCompletionMessage{Role: string(m.role), Content: m.content, ToolCallID: m.callID}
		if reasoning && len(m.calls) > 0 {
			cm.ReasoningContent = m.reasoning
		}
		for _, c := range m.calls {
			cm.ToolCalls = append(cm.ToolCalls, openai.ToolCall{ID: c.id, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: c.name, Arguments: c.args}})
		}
		out = append(out, cm)
	}
	return out
}

// sdkError turns go-openai's errors into quarry's: the server's status and
// message (serverError), or errNoData. Other errors (the network's, the
// stream limits') pass unchanged.
func sdkError(err error) error {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		se := &serverError{status: apiErr.HTTPStatusCode, message: apiErr.Message, typ: apiErr.Type}
		if apiErr.Code != nil {
			se.code = fmt.Sprint(apiErr.Code)
		}
		return se
	case errors.As(err, &reqErr):
		body := strings.TrimSpace(string(reqErr.Body))
		if len(body) > 200 || strings.HasPrefix(body, "<") {
			body = reqErr.HTTPStatus
		}
		return &serverError{status: reqErr.HTTPStatusCode, message: body}
	case errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		return errNoData
	}
	return err
}

// streamErrorOf reads a data: {"error":…} line, or returns nil.
func streamErrorOf(line []byte) error {
	var er openai.ErrorResponse
	if json.Unmarshal(line, &er) != nil || er.Error == nil {
		return nil
	}
	return sdkError(er.Error)
}

// extrasPatch adds each call's provider data (Gemini's extra_content) to
// the request body, which go-openai writes without it: its ToolCall has no
// such field. nil when no call has any.
func extrasPatch(ms []message) func([]byte) ([]byte, error) {
	extras := map[string]json.RawMessage{}
	for _, m := range ms {
		for _, c := range m.calls {
			if len(c.extra) > 0 {
				extras[c.id] = c.extra
			}
		}
	}
	if len(extras) == 0 {
		return nil
	}
	return func(body []byte) ([]byte, error) {
		var req map[string]json.RawMessage
		var msgs []map[string]json.RawMessage
		if err := json.Unmarshal(body, &req); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(req["messages"], &msgs); err != nil {
			return nil, err
		}
		for _, m := range msgs {
			var calls []map[string]json.RawMessage
			if len(m["tool_calls"]) == 0 || json.Unmarshal(m["tool_calls"], &calls) != nil {
				continue
			}
			for _, c := range calls {
				var id string
				json.Unmarshal(c["id"], &id)
				if e, ok := extras[id]; ok {
					c["extra_content"] = e
				}
			}
			m["tool_calls"], _ = json.Marshal(calls)
		}
		var err error
		if req["messages"], err = json.Marshal(msgs); err != nil {
			return nil, err
		}
		return json.Marshal(req)
	}
}

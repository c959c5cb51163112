package agent

import (
	openai "github.com/sashabaranov/go-openai"
)

// The conversion between quarry's conversation and go-openai's request
// types: the only place, with openai_stream.go, that knows the SDK.

// chatRequest is req as a streaming Chat Completions request; usage asks
// for the final usage chunk (stream_options), which some servers refuse.
func chatRequest(req request, usage bool) openai.ChatCompletionRequest {
	out := openai.ChatCompletionRequest{Model: req.model, Messages: chatMessages(req.messages), Stream: true}
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

func chatMessages(ms []message) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, 0, len(ms))
	for _, m := range ms {
		cm := openai.ChatCompletionMessage{Role: string(m.role), Content: m.content, ToolCallID: m.callID}
		for _, c := range m.calls {
			cm.ToolCalls = append(cm.ToolCalls, openai.ToolCall{ID: c.id, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: c.name, Arguments: c.args}})
		}
		out = append(out, cm)
	}
	return out
}

package openaitest

import (
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Messages is the conversation sent with a chat request.
func (r Request) Messages() []openai.ChatCompletionMessage { return r.Chat.Messages }

// HasTools says whether the request offered tools.
func (r Request) HasTools() bool { return len(r.Chat.Tools) > 0 }

// System is the content of the first system message.
func (r Request) System() string {
	for _, m := range r.Chat.Messages {
		if m.Role == openai.ChatMessageRoleSystem {
			return m.Content
		}
	}
	return ""
}

// LastToolResult is the content of the last tool message, or, when the
// conversation has none after the last assistant message (markdown mode),
// the last user message.
func (r Request) LastToolResult() string {
	ms := r.Chat.Messages
	for i := len(ms) - 1; i >= 0; i-- {
		switch ms[i].Role {
		case openai.ChatMessageRoleTool, openai.ChatMessageRoleUser:
			return ms[i].Content
		case openai.ChatMessageRoleAssistant:
			return ""
		}
	}
	return ""
}

// LastUser is the content of the last user message.
func (r Request) LastUser() string {
	ms := r.Chat.Messages
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Role == openai.ChatMessageRoleUser {
			return ms[i].Content
		}
	}
	return ""
}

// Contains reports whether any message content or tool-call argument of the
// request contains s (handy to assert that a secret was never sent).
func (r Request) Contains(s string) bool { return strings.Contains(string(r.Body), s) }

// UnansweredCalls lists the tool-call ids of assistant messages that have no
// tool message answering them: a valid conversation has none.
func (r Request) UnansweredCalls() []string {
	answered := map[string]bool{}
	for _, m := range r.Chat.Messages {
		if m.Role == openai.ChatMessageRoleTool {
			answered[m.ToolCallID] = true
		}
	}
	var missing []string
	for _, m := range r.Chat.Messages {
		for _, tc := range m.ToolCalls {
			if !answered[tc.ID] {
				missing = append(missing, tc.ID)
			}
		}
	}
	return missing
}

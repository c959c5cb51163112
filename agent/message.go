package agent

import "encoding/json"

// role says who speaks in a message.
type role string

const (
	roleSystem    role = "system"
	roleUser      role = "user"
	roleAssistant role = "assistant"
	roleTool      role = "tool"
)

// message is one message of the conversation in quarry's own terms. The
// history holds these, never an SDK's types: the wire format converts them
// when it builds a request (openai_format.go), so a second format needs no
// change to the loop or the history.
type message struct {
	role    role
	content string
	// reasoning is the assistant's thinking for this message. It is sent
	// back only to providers that require it (see openaiWire.sendReasoning).
	reasoning string
	calls     []toolCall // assistant: the tool calls it made, in order
	callID    string     // tool: the call this message answers
}

// toolCall is one tool call as the history keeps it.
type toolCall struct {
	id, name string
	args     string // the arguments' JSON text, as the model sent it
	// extra is provider data that must go back with the call unchanged
	// (Gemini's thought signature); nil for most servers.
	extra json.RawMessage
}

func userMessage(text string) message { return message{role: roleUser, content: text} }

func assistantMessage(text, reasoning string, calls []toolCall) message {
	return message{role: roleAssistant, content: text, reasoning: reasoning, calls: calls}
}

// toolResult answers the call with that id: every call needs one before
// the next request, or the server rejects the conversation.
func toolResult(callID, content string) message {
	return message{role: roleTool, content: content, callID: callID}
}

// request is one model request in quarry's own terms.
type request struct {
	model    string
	messages []message
	tools    []toolSpec // offered tools; none in markdown mode
	// noToolCalls forbids calls this time (the step limit is reached) while
	// still describing the tools the history's calls used.
	noToolCalls bool
}

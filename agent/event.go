package agent

import (
	"time"

	"github.com/quarry-cli/quarry/kernel"
)

// EventKind tells which fields of an Event are set.
type EventKind string

const (
	EventText       EventKind = "text"        // Text: an assistant text delta
	EventReasoning  EventKind = "reasoning"   // Text: a delta of the model's thinking (reasoning models); never part of the answer
	EventCellStart  EventKind = "cell_start"  // Cell, Code
	EventCellOutput EventKind = "cell_output" // Cell, Chunk
	EventCellDone   EventKind = "cell_done"   // Cell, Code, Result
	EventUsage      EventKind = "usage"       // Usage (Turn and Total)
	EventRetry      EventKind = "retry"       // Text (why), Wait, Attempt; text deltas since the last response began are void (it is requested again)
	EventWarning    EventKind = "warning"     // Text
	EventIncomplete EventKind = "incomplete"  // Text: why the answer is not what the question needed (no code ran, cut off); before turn_done
	EventError      EventKind = "error"       // Text: the turn failed, in words
	EventTurnDone   EventKind = "turn_done"   // Text: the final answer (Markdown)

	// Emitted by the session around the agent's turns, on the same stream.
	EventProgress EventKind = "progress" // Text: a start-up step (engine, image build line, sandbox)
	EventSandbox  EventKind = "sandbox"  // Text: the sandbox's new state (starting, ready, busy, restarting, failed, closed)
	EventUndo     EventKind = "undo"     // Text: the question of the turn taken back
)

// Event is the one stream the front ends and the session record consume:
// the agent's turn and the session's start-up and sandbox state. A new kind
// adds a constant here and, when it needs data no field carries, one
// omitempty field; consumers ignore kinds they do not know. Text from the
// model and output from the kernel are untrusted: consumers sanitize before
// display.
type Event struct {
	Kind    EventKind      `json:"kind"`
	Time    time.Time      `json:"time"`
	Text    string         `json:"text,omitempty"`
	Cell    int            `json:"cell,omitempty"` // 1-based cell number in the session
	Code    string         `json:"code,omitempty"`
	Chunk   *kernel.Chunk  `json:"chunk,omitempty"`
	Result  *kernel.Result `json:"result,omitempty"`
	Usage   *Usage         `json:"usage,omitempty"`
	Wait    time.Duration  `json:"wait,omitempty"`
	Attempt int            `json:"attempt,omitempty"`
}

// Tokens counts model usage. Reasoning is the part of Completion the
// model spent thinking (servers that report it).
type Tokens struct {
	Prompt     int     `json:"prompt_tokens"`
	Completion int     `json:"completion_tokens"`
	Reasoning  int     `json:"reasoning_tokens,omitempty"`
	CostUSD    float64 `json:"cost_usd"`
}

// Usage is the usage of the current turn and of the whole conversation.
type Usage struct {
	Turn  Tokens `json:"turn"`
	Total Tokens `json:"total"`
	// Priced says the model has a price, so CostUSD is a cost; without
	// one it is 0 and the cost unknown.
	Priced bool `json:"priced,omitempty"`
}

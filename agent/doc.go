// Package agent turns a question and attached files into an answer by letting
// an OpenAI-compatible model write Python that runs in a kernel, step by step.
// The loop and the history speak quarry's own types (message, request,
// response); one wire format converts them: Chat Completions through
// github.com/sashabaranov/go-openai, whose types appear only in
// openai_format.go (conversion) and openai_stream.go (the stream iterator).
// It runs cells through the small Kernel interface it declares itself, and
// reports everything as one stream of Events that the TUI, the headless
// printer and the transcript consume.
//
// It must not import sandbox, ui, headless, render, session or any Docker,
// Bubble Tea or lipgloss package.
package agent

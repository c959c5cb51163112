// Package agent turns a question and attached files into an answer by letting
// an OpenAI-compatible model write Python that runs in a kernel, step by step.
// It talks to models through github.com/sashabaranov/go-openai, runs cells
// through the small Kernel interface it declares itself, and reports
// everything as one stream of Events that the TUI, the headless printer and
// the transcript consume.
//
// It must not import sandbox, ui, headless, render, session or any Docker,
// Bubble Tea or lipgloss package.
package agent

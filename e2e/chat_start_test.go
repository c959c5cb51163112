package e2e

import (
	"path/filepath"
	"testing"

	"github.com/quarry-cli/quarry/hosttest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// requireChat skips a chat test without tmux, the engine or the sandbox
// image, or fails it in CI.
func requireChat(t *testing.T) {
	t.Helper()
	hosttest.Tool(t, "tmux")
	sandboxtest.Engine(t)
}

// The chat's size in the tests, unless a test resizes it.
const chatWidth, chatHeight = 120, 60

// startChat runs the chat in tmux in dir against the fake model server at
// modelURL, its session folder dir/out, with files as arguments.
func startChat(t *testing.T, dir, modelURL string, files ...string) *pane {
	t.Helper()
	return startChatArgs(t, dir, modelURL, append([]string{"--output-dir", filepath.Join(dir, "out")}, files...))
}

// startChatArgs is startChat with quarry's arguments as given; dir is also
// HOME, so chats started in one dir share their saved sessions.
func startChatArgs(t *testing.T, dir, modelURL string, args []string) *pane {
	t.Helper()
	return startChatEnv(t, dir, modelEnv(modelURL, "gpt-4o-mini"), args)
}

// startChatEnv runs quarry with args in tmux with nothing of the
// environment but the terminal's, the engine's and model (the model's).
func startChatEnv(t *testing.T, dir string, model, args []string) *pane {
	t.Helper()
	env := append(hostEnv(dir), "TERM=xterm-256color", "COLORTERM=truecolor", "LANG=C.UTF-8")
	return startPane(t, paneOptions{dir: dir, width: chatWidth, height: chatHeight,
		env: append(env, model...), argv: append([]string{quarryBin(t)}, args...)})
}

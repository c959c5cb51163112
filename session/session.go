// Package session owns one chat session for both front ends: it wires the
// configuration, the sandbox (started in the background), the agent and the
// session's output folder and transcript, and adapts the sandbox to the
// agent's Kernel interface. It must not import ui, headless or render.
package session

import (
	"context"
	"errors"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/kernel"
)

// CONTRACT (lead): the exported shapes below are what ui and headless build
// on. The session owner fills in the bodies and may add to them.

// Options configure a session.
type Options struct {
	Config config.Config
	// OutputDir is this session's own output folder; empty means
	// <Config.OutputDir>/<session id>.
	OutputDir string
}

// Session is one conversation with its sandbox.
type Session struct {
	opts Options
}

// New prepares a session without any I/O.
func New(opts Options) *Session { return &Session{opts: opts} }

// Start connects to the engine, makes sure the image exists, sweeps orphans
// and starts the sandbox. Front ends call it in the background at launch.
func (s *Session) Start(ctx context.Context) error { return errors.New("session: not implemented yet") }

// Attach uploads a host file into the running sandbox and profiles it.
func (s *Session) Attach(ctx context.Context, path string) (kernel.Profile, error) {
	return kernel.Profile{}, errors.New("session: not implemented yet")
}

// Ask runs one agent turn; events go to emit and to the transcript.
func (s *Session) Ask(ctx context.Context, prompt string, emit func(agent.Event)) (string, error) {
	return "", errors.New("session: not implemented yet")
}

// Close removes the sandbox and closes the transcript. Safe to call twice.
func (s *Session) Close() error { return nil }

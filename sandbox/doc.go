// Package sandbox runs untrusted Python in a hardened, networkless Docker
// container: one container and one long-lived kernel per chat session, the
// sandbox image it runs from, and the harvest of its output folder onto the
// host. It talks to the engine only through github.com/moby/moby/client.
//
// It must not import agent, ui, headless, render or session, and knows
// nothing of models or terminals: results come back as kernel types.
package sandbox

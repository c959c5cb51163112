// Package headless runs one turn without a terminal UI (`quarry --prompt`):
// it validates the inputs, drives a session, prints progress to stderr and
// the answer (Markdown or JSON) to stdout, and maps outcomes to exit codes.
// It must not import ui or sandbox.
package headless

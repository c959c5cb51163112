// Package headless runs one turn without a terminal UI (`quarry --prompt`):
// it reads the prompt and data piped on standard input, drives a session
// that cli launched, prints the session's events as progress on stderr and
// the answer (Markdown or JSON) on stdout, and returns the failure in
// words; cli turns that into an exit status. It must not import ui or
// sandbox.
package headless

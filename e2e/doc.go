// Package e2e holds the end-to-end tests: every test that runs the built
// quarry binary as a black box (the chat in tmux and in real terminals
// under Xvfb, headless -p runs, rerun, resume, notebooks, the demo,
// databases, replays of recorded model streams) against the real engine
// and sandbox, with the model faked at the HTTP level. The binary is built
// once per test run (main_test.go); every chat test drives it through the
// one tmux driver (tmux_test.go). A test that calls a package's Go
// functions belongs in that package, not here; see README.md.
//
// The package has no code outside its tests and nothing imports it.
package e2e

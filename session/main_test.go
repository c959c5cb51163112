package session

import (
	"os"
	"testing"
)

// The session index goes to a folder of the test run's own, never to the
// user's ~/.local/state.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "quarry-session-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

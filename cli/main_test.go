package cli

import (
	"os"
	"testing"
)

// Sessions the tests run are indexed in a folder of the test run's own,
// never in the user's ~/.local/state.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "quarry-cli-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

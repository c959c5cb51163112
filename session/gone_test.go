package session

import (
	"testing"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// requireGone fails when a container or volume labelled with the session
// id still exists.
func requireGone(t *testing.T, id string) {
	t.Helper()
	sandboxtest.RequireNothingLeft(t, "io.quarry.session="+id)
}

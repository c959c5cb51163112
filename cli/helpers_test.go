package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

var errCaptured = errors.New("captured")

// parseFlags runs the root command on args with the chat and the headless
// mode replaced by a capture, and returns the flags they would have got.
func parseFlags(t *testing.T, args ...string) (rootFlags, error) {
	t.Helper()
	var got *rootFlags
	var out, errb bytes.Buffer
	a := newApp(Build{}, strings.NewReader(""), &out, &errb)
	capture := func(_ context.Context, f *rootFlags) error { got = f; return nil }
	a.chat, a.headless = capture, capture
	if code := a.execute(args); code != exitOK || got == nil {
		return rootFlags{}, errors.New(strings.TrimSpace(errb.String()))
	}
	return *got, nil
}

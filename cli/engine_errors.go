package cli

import (
	"errors"
	"fmt"

	"github.com/quarry-cli/quarry/engine"
)

// engineFailure is op's failure in the engine's words, with the fix for
// its cause when the cause is known.
func engineFailure(op string, err error) error {
	if errors.Is(err, engine.ErrUnreachable) { // Connect's error names its own fix
		return fmt.Errorf("%s: %w", op, err)
	}
	if fix, ok := engine.KnownFix(err); ok {
		return fmt.Errorf("%s: %w. To fix: %s", op, err, fix)
	}
	return fmt.Errorf("%s: %w", op, err)
}

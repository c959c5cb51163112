//go:build !unix

package session

import "os"

// openNoFollow opens path for reading; this system's open has no
// O_NOFOLLOW, so the check of the handle (Options.ReadCheck) decides.
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

//go:build !unix

package session

import "errors"

// privateDir: the warm pool's socket folder is checked on Unix only, so
// the pool is off elsewhere.
func privateDir(string) error {
	return errors.New("warm pool: only on Linux and macOS")
}

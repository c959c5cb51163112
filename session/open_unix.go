//go:build unix

package session

import (
	"os"
	"syscall"
)

// openNoFollow opens path for reading, refusing a link at its end.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}

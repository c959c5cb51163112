//go:build unix

package session

import (
	"errors"
	"os"
	"syscall"
)

// lockRecord takes the record's lock for as long as f is open; the kernel
// drops it when the process dies, kill -9 included. errInUse means another
// process holds it. A file system without locks is not an error.
func lockRecord(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errInUse
	}
	return nil
}

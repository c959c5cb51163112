//go:build unix

package sandbox

import (
	"errors"
	"syscall"
)

// processAlive: signal 0 checks existence; EPERM means it exists but
// belongs to another user.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

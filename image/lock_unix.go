//go:build unix

package image

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockCache holds apt's folder for one quarry process at a time (apt runs
// with its own locking off); the kernel drops the lock when the process
// dies. It waits for another holder, or for ctx.
func lockCache(ctx context.Context, dir string) (unlock func(), err error) {
	f, err := os.OpenFile(dir+"/lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("apt cache lock: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return func() {}, nil // a file system without locks: go on unlocked
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for another quarry's package download: %w", ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

//go:build unix

package session

import (
	"fmt"
	"os"
	"syscall"
)

// privateDir refuses a socket folder another user could enter or own:
// a sandbox handed out there would be theirs to take.
func privateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("warm pool: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("warm pool: %s is not a folder of this user's alone (mode 0700): remove it", dir)
	}
	return nil
}

//go:build unix

package mcp

import (
	"io/fs"
	"syscall"
)

// links is how many names (hard links) a file has.
func links(_ string, info fs.FileInfo) (uint64, error) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink), nil
	}
	return 0, errNoLinkCount
}

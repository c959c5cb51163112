//go:build unix

package mcp

import (
	"io/fs"
	"syscall"
)

// links is how many names (hard links) a file has.
func links(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

//go:build !unix

package mcp

import "io/fs"

// links: hard links are not counted here; every file counts as one name.
func links(fs.FileInfo) uint64 { return 1 }

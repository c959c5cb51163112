package mcp

import (
	"os"
	"strconv"
	"strings"
)

// handlePath is the path of the file f holds, as the kernel keeps it for
// the descriptor (its links followed when it was opened).
func handlePath(f *os.File) (string, error) {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil {
		return "", err
	}
	if strings.HasSuffix(p, " (deleted)") {
		return "", os.ErrNotExist
	}
	return p, nil
}

package mcp

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// handlePath is the path of the file f holds, as the kernel keeps it for
// the descriptor (fcntl F_GETPATH).
func handlePath(f *os.File) (string, error) {
	buf := make([]byte, unix.PathMax)
	if _, _, errno := unix.Syscall(unix.SYS_FCNTL, f.Fd(), unix.F_GETPATH, uintptr(unsafe.Pointer(&buf[0]))); errno != 0 {
		return "", errno
	}
	n := 0
	for n < len(buf) && buf[n] != 0 {
		n++
	}
	return string(buf[:n]), nil
}

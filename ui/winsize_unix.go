//go:build unix

package ui

import (
	"os"

	"golang.org/x/sys/unix"
)

// ttyCellSize reads the cell size in pixels from the terminal's window
// size, which xterm, kitty and foot fill in; 0, 0 when it does not.
func ttyCellSize(f *os.File) func() (int, int) {
	return func() (int, int) {
		ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
		if err != nil || ws.Col == 0 || ws.Row == 0 {
			return 0, 0
		}
		return int(ws.Xpixel) / int(ws.Col), int(ws.Ypixel) / int(ws.Row)
	}
}

package render

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi/kitty"
)

// KittyImage is a figure for a cell-based UI such as Bubble Tea, drawn with
// kitty's Unicode placeholders: the picture is sent once (Transmit, written
// raw, e.g. with tea.Raw) and shown wherever Lines are printed — ordinary
// text the renderer can diff, scroll and clip like any other line.
type KittyImage struct {
	ID       uint32   // 1..2^24-1, chosen by the caller, unique per figure
	Transmit string   // kitty escapes: upload and virtual placement (U=1)
	Lines    []string // rows lines of cols placeholder cells each
}

// KittyUnicode prepares PNG bytes (check them with CheckPNG first) as image
// id, placed virtually over cols × rows cells.
func KittyUnicode(data []byte, id uint32, cols, rows int) KittyImage {
	id &= 0xffffff
	if id == 0 {
		id = 1
	}
	img := KittyImage{ID: id}
	first := fmt.Sprintf("a=T,U=1,f=100,q=2,i=%d,c=%d,r=%d,", id, cols, rows)
	img.Transmit = kittyChunks(data, first)
	// The image id is the foreground colour of the placeholder cells.
	colour := fmt.Sprintf("\x1b[38;2;%d;%d;%dm", id>>16&255, id>>8&255, id&255)
	if id < 256 {
		colour = fmt.Sprintf("\x1b[38;5;%dm", id)
	}
	for r := 0; r < rows; r++ {
		var b strings.Builder
		b.WriteString(colour)
		for c := 0; c < cols; c++ {
			b.WriteRune(kitty.Placeholder)
			b.WriteRune(kitty.Diacritic(r))
			b.WriteRune(kitty.Diacritic(c))
		}
		b.WriteString("\x1b[39m")
		img.Lines = append(img.Lines, b.String())
	}
	return img
}

// KittyDelete frees image id in the terminal (its placements and data).
func KittyDelete(id uint32) string {
	return fmt.Sprintf("\x1b_Ga=d,d=I,i=%d,q=2\x1b\\", id&0xffffff)
}

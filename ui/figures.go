package ui

import (
	"errors"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
)

// figureMsg carries a decoded figure back to Update.
type figureMsg struct {
	cell int
	fig  *figure
}

// loadFigure decodes a figure's PNG (the bytes the harvest checked and
// handed over; the file is not read again) off the Update loop. With kitty
// (kittyID non-zero) it also prepares the transmission and placeholder
// lines, sized to fit maxCols.
func loadFigure(cell int, f kernel.File, kittyID uint32, maxCols int) tea.Cmd {
	return func() tea.Msg {
		fig := &figure{file: f}
		data := f.PNG
		var err error
		if data == nil {
			err = errors.New("no image data")
		} else {
			fig.img, err = render.DecodePNG(data)
		}
		fig.err = err
		if err == nil && kittyID != 0 {
			b := fig.img.Bounds()
			if cols, rows := render.ImageCells(b.Dx(), b.Dy(), min(maxCols, thumbMaxCols), thumbMaxRows); cols > 0 {
				ki := render.KittyUnicode(data, kittyID, cols, rows)
				fig.kitty, fig.transmit = &ki, ki.Transmit
			}
		}
		return figureMsg{cell: cell, fig: fig}
	}
}

// Thumbnail size in cells; half-blocks draw two pixel rows per text row.
const (
	thumbMaxCols = 60
	thumbMaxRows = 14
)

// figureLines is a figure in the transcript: the image (kitty placeholders
// when the terminal speaks kitty graphics, see kitty.go; otherwise a
// half-block thumbnail, which is plain styled text) unless images are off or
// it could not be decoded, and always the host path as an OSC 8 link.
// iTerm2 and Sixel images are drawn at the cursor, outside Bubble Tea's cell
// model, so those terminals get half-blocks inline (ctrl+f opens the file).
func figureLines(f *figure, rc renderCtx) []string {
	var out []string
	switch {
	case f.img == nil || rc.images == render.ProtocolOff:
	case f.kitty != nil && len(f.kitty.Lines) > 0 && ansi.StringWidth(f.kitty.Lines[0]) <= rc.width-2:
		for _, l := range f.kitty.Lines {
			out = append(out, "  "+l)
		}
	default:
		b := f.img.Bounds()
		cols, rows := render.ImageCells(b.Dx(), b.Dy(), min(rc.width-2, thumbMaxCols), thumbMaxRows)
		if cols > 0 {
			for _, l := range strings.Split(strings.TrimRight(render.HalfBlocks(f.img, cols, rows, rc.depth), "\n"), "\n") {
				out = append(out, "  "+l)
			}
		}
	}
	label := "figure "
	if f.err != nil {
		label = "figure (" + sanitizeLine(f.err.Error()) + ") "
	}
	out = append(out, truncate("  "+rc.th.dim.Render(label)+fileLink(f.file), rc.width))
	return out
}

// fileLink shows a host path as an OSC 8 hyperlink.
func fileLink(f kernel.File) string { return render.Hyperlink(f.Path, f.Path) }

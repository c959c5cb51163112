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
		if f.Inline != nil {
			data = f.Inline // drawn for the chat's width by the kernel
		}
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

// halfBlockRows is the most rows a half-block figure takes on a screen of
// height rows: half of them, or 16 when that leaves the input, the status,
// the hints and the caption their 8.
func halfBlockRows(height int) int {
	return max(height/2, min(height-8, 16), 6)
}

// Kitty placeholders' size in cells.
const (
	thumbMaxCols = 60
	thumbMaxRows = 14
)

// figureLines is a figure in the transcript: the image unless images are off
// or it could not be decoded, and always the host path as an OSC 8 link. The
// image is kitty placeholders when the terminal speaks kitty graphics (see
// kitty.go); blank cells the overlay paints a Sixel or iTerm2 image over
// (overlay.go); otherwise a half-block picture, which is plain styled text.
func figureLines(f *figure, rc renderCtx) []string {
	var out []string
	switch {
	case f.img == nil || rc.images == render.ProtocolOff:
	case f.inline != nil && f.inline.proto == rc.images && f.inline.cols+2 <= rc.width:
		out = reservedLines(f.inline)
	case f.kitty != nil && len(f.kitty.Lines) > 0 && ansi.StringWidth(f.kitty.Lines[0]) <= rc.width-2:
		for _, l := range f.kitty.Lines {
			out = append(out, "  "+l)
		}
	default:
		// Half-blocks are the terminal's own pixels, two per cell: the more
		// cells, the more legible. Up to the chat's width, in half the
		// screen's rows (at least 16 when the screen has them), so the
		// question and the answer around it stay in view.
		b := f.img.Bounds()
		cols, rows := render.ImageCells(b.Dx(), b.Dy(), max(rc.width-2, 10), halfBlockRows(rc.height))
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
	label = truncate(label, max(rc.width/2, 8))
	out = append(out, truncate("  "+rc.th.dim.Render(label)+fileLink(f.file, rc.width-2-ansi.StringWidth(label)), rc.width))
	return out
}

// fileLink shows a host path as an OSC 8 hyperlink to it, in width
// columns: a long path loses its start, never its file name.
func fileLink(f kernel.File, width int) string {
	return render.Hyperlink(f.Path, shortenPath(sanitizeLine(f.Path), max(width, 1)))
}

// prepareFigure makes a decoded figure ready for the overlay at the size the
// window gives it, when the overlay paints figures and it is not ready yet.
func (m *Model) prepareFigure(f *figure) tea.Cmd {
	if !m.overlaid() || f.img == nil || m.width <= 0 {
		return nil
	}
	cols, rows := inlineBox(m.width, m.height)
	cw, ch := m.term.CellW, m.term.CellH
	if cw <= 0 || ch <= 0 {
		cw, ch = 10, 20 // iTerm2 scales to the cells itself; this only sets their number
	}
	if im := f.inline; im != nil && im.proto == m.images && im.cellW == cw && im.cellH == ch && im.bg == m.bg &&
		im.box == [2]int{cols, rows} {
		return nil
	}
	data := f.file.PNG
	if f.file.Inline != nil {
		data = f.file.Inline
	}
	return prepareInline(f.key, m.images, f.img, data, f.file.Name, cols, rows, cw, ch, m.bg)
}

// refreshFigures prepares again the figures whose size, protocol or
// background changed.
func (m *Model) refreshFigures() tea.Cmd {
	cmds := []tea.Cmd{m.figureBoxCmd()}
	for _, f := range m.figs {
		if cmd := m.prepareFigure(f); cmd != nil {
			cmds = append(cmds, cmd)
		}
	}
	return tea.Batch(cmds...)
}

// bumpFigureBlocks makes the cells with figures render again.
func (m *Model) bumpFigureBlocks() {
	for _, b := range m.cells {
		if len(b.cell.figures) > 0 {
			b.ver++
		}
	}
}

func (m *Model) inTmux() bool {
	term := m.opts.Getenv("TERM")
	return m.opts.Getenv("TMUX") != "" || strings.HasPrefix(term, "screen") || strings.HasPrefix(term, "tmux")
}

// figureBoxCmd tells the session the size figures are shown at, when it
// changed, so the kernel draws them for it: as many pixels as the figure's
// cells hold, with text about as high as the terminal's own.
func (m *Model) figureBoxCmd() tea.Cmd {
	var b kernel.FigureBox
	if m.overlaid() && m.term.CellW > 0 && m.term.CellH > 0 && m.width > 0 {
		cols, rows := inlineBox(m.width, m.height)
		b = kernel.FigureBox{W: cols * m.term.CellW, H: rows * m.term.CellH, FontPx: max(m.term.CellH*4/5, 8)}
	}
	if b == m.sentBox {
		return nil
	}
	m.sentBox = b
	backend := m.opts.Backend
	return func() tea.Msg {
		backend.SetFigureBox(b)
		return nil
	}
}

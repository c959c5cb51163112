package ui

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"strconv"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/quarry-cli/quarry/render"
)

// inlineImage is a figure prepared for the overlay (overlay.go) at its size
// in cells: a Sixel picture of exactly those cells in pixels, or the PNG for
// iTerm2's protocol, which scales it to the cells itself. Immutable once
// made, but for the cache of escapes the writer fills.
type inlineImage struct {
	key          int
	proto        render.Protocol
	cols, rows   int
	cellW, cellH int
	sixel        *render.SixelFigure
	png          []byte      // iTerm2
	img          image.Image // iTerm2: cropped when partly visible
	name         string
	bg           color.Color // of the Sixel padding
	box          [2]int      // the cells it was fitted into

	mu    sync.Mutex
	cache map[[2]int]string
}

// inlineBox is the most cells a figure may take: the chat's width less the
// gutter, at most 100 columns, and rows that leave room for its caption on
// the screen.
func inlineBox(width, height int) (cols, rows int) {
	return max(min(width-2, 100), 10), max(min(height-8, 30), 6)
}

// inlineCells is the cells a w × h pixel figure takes at cellW × cellH
// pixels a cell, shrunk to fit cols × rows and never enlarged.
func inlineCells(w, h, cellW, cellH, cols, rows int) (int, int) {
	if w <= 0 || h <= 0 || cellW <= 0 || cellH <= 0 {
		return 0, 0
	}
	s := min(1, float64(cols*cellW)/float64(w), float64(rows*cellH)/float64(h))
	c := int(float64(w)*s+float64(cellW)-1) / cellW
	r := int(float64(h)*s+float64(cellH)-1) / cellH
	return max(1, min(c, cols)), max(1, min(r, rows))
}

// inlineMsg carries a prepared figure back to Update.
type inlineMsg struct{ img *inlineImage }

// prepareInline makes a figure ready for the overlay off the event loop.
func prepareInline(key int, proto render.Protocol, img image.Image, data []byte, name string, cols, rows, cellW, cellH int, bg color.Color) tea.Cmd {
	return func() tea.Msg {
		b := img.Bounds()
		c, r := inlineCells(b.Dx(), b.Dy(), cellW, cellH, cols, rows)
		im := &inlineImage{key: key, proto: proto, cols: c, rows: r, cellW: cellW, cellH: cellH, bg: bg,
			box: [2]int{cols, rows}, cache: map[[2]int]string{}}
		switch proto {
		case render.ProtocolSixel:
			im.sixel = render.NewSixelFigure(img, c*cellW, r*cellH, bg)
		case render.ProtocolITerm:
			im.png, im.img, im.name = data, img, name
		}
		return inlineMsg{img: im}
	}
}

// escape draws rows skip to skip+rows-1 of the figure at the cursor.
func (im *inlineImage) escape(skip, rows int) string {
	im.mu.Lock()
	defer im.mu.Unlock()
	k := [2]int{skip, rows}
	if s, ok := im.cache[k]; ok {
		return s
	}
	var s string
	switch im.proto {
	case render.ProtocolSixel:
		s = im.sixel.Sixel(skip*im.cellH, (skip+rows)*im.cellH)
	case render.ProtocolITerm:
		data := im.png
		if skip > 0 || rows < im.rows {
			data = cropPNG(im.img, skip, rows, im.rows)
		}
		if data != nil {
			s = render.ITerm(data, im.name, im.cols, rows)
		}
	}
	if len(im.cache) > 8 { // a figure scrolled through line by line
		clear(im.cache)
	}
	im.cache[k] = s
	return s
}

// cropPNG is the band of rows skip..skip+rows-1 of a picture shown on total
// rows, as a PNG; nil if it cannot be encoded.
func cropPNG(img image.Image, skip, rows, total int) []byte {
	b := img.Bounds()
	y0 := b.Min.Y + b.Dy()*skip/total
	y1 := b.Min.Y + b.Dy()*(skip+rows)/total
	if y1 <= y0 {
		return nil
	}
	band := image.NewNRGBA(image.Rect(0, 0, b.Dx(), y1-y0))
	draw.Draw(band, band.Bounds(), img, image.Pt(b.Min.X, y0), draw.Src)
	var buf bytes.Buffer
	if err := png.Encode(&buf, band); err != nil {
		return nil
	}
	return buf.Bytes()
}

// The view marks each reserved row of a figure; View reads the marks to
// place the figures and removes them.
const figurePrefix = "\x1b_quarry-fig:"

func figureMark(key, row int) string {
	return figurePrefix + strconv.Itoa(key) + ";" + strconv.Itoa(row) + "\x1b\\"
}

// reservedLines are the blank, marked rows a figure takes in the transcript.
func reservedLines(im *inlineImage) []string {
	out := make([]string, im.rows)
	blank := strings.Repeat(" ", im.cols)
	for r := range out {
		out[r] = "  " + figureMark(im.key, r) + blank
	}
	return out
}

// placeFigures finds the figure marks in a finished frame, removes them and
// returns where each figure is: its first visible row, its column, how many
// rows show and how many are cut off above.
func placeFigures(content string, images map[int]*inlineImage) (string, []placement) {
	if !strings.Contains(content, figurePrefix) {
		return content, nil
	}
	lines := strings.Split(content, "\n")
	var plan []placement
	at := map[int]int{} // key → index in plan
	for y, l := range lines {
		for {
			i := strings.Index(l, figurePrefix)
			if i < 0 {
				break
			}
			end := strings.Index(l[i:], "\x1b\\")
			if end < 0 {
				break
			}
			k, r, _ := strings.Cut(l[i+len(figurePrefix):i+end], ";")
			key, err1 := strconv.Atoi(k)
			row, err2 := strconv.Atoi(r)
			x := ansi.StringWidth(l[:i])
			l = l[:i] + l[i+end+2:]
			im := images[key]
			if err1 != nil || err2 != nil || im == nil {
				continue
			}
			if j, ok := at[key]; ok && plan[j].y+plan[j].rows == y {
				plan[j].rows++
				continue
			}
			at[key] = len(plan)
			plan = append(plan, placement{img: im, x: x, y: y, rows: 1, skip: row})
		}
		lines[y] = l
	}
	// A figure whose right edge was cut by the window is not painted: it
	// would spill over what is beside it.
	kept := plan[:0]
	for _, p := range plan {
		if p.x+p.img.cols <= ansi.StringWidth(lines[p.y]) {
			kept = append(kept, p)
		}
	}
	return strings.Join(lines, "\n"), kept
}

package render

import (
	"image"
	"strconv"
	"strings"
)

// HalfBlocks draws img as Unicode upper half blocks (▀), each cell two
// pixels: the top one as foreground, the bottom one as background. The
// picture is box-filtered down to fit cols × rows cells, keeping its aspect
// ratio. True colour, or the xterm 256-colour palette; without colour a
// grey ramp of shade characters. Lines are joined by \n, no trailing one.
func HalfBlocks(img image.Image, cols, rows int, depth ColorDepth) string {
	b := img.Bounds()
	c, r := ImageCells(b.Dx(), b.Dy(), cols, rows)
	if c == 0 {
		return ""
	}
	px := boxScale(img, c, r*2)
	var sb strings.Builder
	sb.Grow(c * r * 40)
	for y := 0; y < r; y++ {
		if y > 0 {
			sb.WriteByte('\n')
		}
		if depth == ColorNone {
			for x := 0; x < c; x++ {
				sb.WriteString(shade(px[2*y*c+x], px[(2*y+1)*c+x]))
			}
			continue
		}
		var lastFg, lastBg string
		for x := 0; x < c; x++ {
			fg := colorParams(px[2*y*c+x], depth)
			bg := colorParams(px[(2*y+1)*c+x], depth)
			if fg != lastFg || bg != lastBg {
				sb.WriteString("\x1b[38;" + fg + ";48;" + bg + "m")
				lastFg, lastBg = fg, bg
			}
			sb.WriteString("▀")
		}
		sb.WriteString("\x1b[0m")
	}
	return sb.String()
}

// colorParams is the SGR colour after "38;" or "48;".
func colorParams(p rgb, depth ColorDepth) string {
	if depth == ColorTrue {
		return "2;" + strconv.Itoa(int(p.r)) + ";" + strconv.Itoa(int(p.g)) + ";" + strconv.Itoa(int(p.b))
	}
	return "5;" + strconv.Itoa(xterm256(p))
}

// xterm256 maps a colour to the nearest of the 6×6×6 cube or the grey ramp.
func xterm256(p rgb) int {
	levels := [6]int{0, 95, 135, 175, 215, 255}
	idx := func(v uint8) int {
		if v < 48 {
			return 0
		}
		if v < 115 {
			return 1
		}
		return (int(v) - 35) / 40
	}
	ri, gi, bi := idx(p.r), idx(p.g), idx(p.b)
	cube := 16 + 36*ri + 6*gi + bi
	cr, cg, cb := levels[ri], levels[gi], levels[bi]
	avg := (int(p.r) + int(p.g) + int(p.b)) / 3
	grey := 232 + min(23, max(0, (avg-3)/10))
	gv := 8 + 10*(grey-232)
	dist := func(r, g, b int) int {
		dr, dg, db := int(p.r)-r, int(p.g)-g, int(p.b)-b
		return dr*dr + dg*dg + db*db
	}
	if dist(gv, gv, gv) < dist(cr, cg, cb) {
		return grey
	}
	return cube
}

// shade draws two pixels without colour: darker is denser, assuming a dark
// ink on a light page (charts).
func shade(top, bottom rgb) string {
	lum := (luma(top) + luma(bottom)) / 2
	ramp := []string{"█", "▓", "▒", "░", " "}
	return ramp[lum*len(ramp)/256]
}

func luma(p rgb) int {
	return (299*int(p.r) + 587*int(p.g) + 114*int(p.b)) / 1000
}

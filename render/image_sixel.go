package render

import (
	"image"
	"image/color"
	"sort"
	"strconv"
	"strings"
)

// SixelFigure is a figure prepared for Sixel at an exact size in pixels:
// scaled and reduced to at most 256 colours once, so that any band of its
// rows (a figure partly scrolled out of view) encodes without redoing either.
type SixelFigure struct {
	W, H    int
	palette []rgb
	index   []uint8
}

// NewSixelFigure fits img into w × h pixels, keeping its aspect ratio and
// never enlarging it, at the top left; the rest is bg. Every pixel is
// painted, so the figure hides whatever was drawn in its place before.
// Colours are the most frequent ones at 5 bits per channel, each pixel
// mapped to the nearest: charts have few colours, so this beats dithering.
func NewSixelFigure(img image.Image, w, h int, bg color.Color) *SixelFigure {
	w, h = max(w, 1), max(h, 1)
	b := img.Bounds()
	iw, ih := b.Dx(), b.Dy()
	if iw > w || ih > h {
		if iw*h > ih*w {
			iw, ih = w, max(1, ih*w/iw)
		} else {
			iw, ih = max(1, iw*h/ih), h
		}
	}
	px := boxScale(img, iw, ih)
	canvas := make([]rgb, w*h)
	fill := rgb{255, 255, 255}
	if bg != nil {
		c := color.NRGBAModel.Convert(bg).(color.NRGBA)
		fill = rgb{c.R, c.G, c.B}
	}
	for y := 0; y < h; y++ {
		row := canvas[y*w : (y+1)*w]
		if y < ih {
			copy(row, px[y*iw:(y+1)*iw])
		}
		for x := range row {
			if y >= ih || x >= iw {
				row[x] = fill
			}
		}
	}
	palette, index := quantize(canvas)
	return &SixelFigure{W: w, H: h, palette: palette, index: index}
}

// Sixel draws rows top to bottom-1 of the figure (0, H for all of it) as a
// Sixel DCS string, drawn at the cursor.
func (f *SixelFigure) Sixel(top, bottom int) string {
	top, bottom = max(top, 0), min(bottom, f.H)
	w, h := f.W, bottom-top
	if h <= 0 {
		return ""
	}
	index := f.index[top*w : bottom*w]
	var sb strings.Builder
	sb.Grow(w * h / 2)
	sb.WriteString("\x1bP0;1;0q\"1;1;" + strconv.Itoa(w) + ";" + strconv.Itoa(h))
	for i, c := range f.palette {
		sb.WriteString("#" + strconv.Itoa(i) + ";2;" +
			strconv.Itoa(int(c.r)*100/255) + ";" + strconv.Itoa(int(c.g)*100/255) + ";" + strconv.Itoa(int(c.b)*100/255))
	}
	line := make([]byte, w)
	for band := 0; band < h; band += 6 {
		var used [256]bool
		for y := band; y < min(band+6, h); y++ {
			for x := 0; x < w; x++ {
				used[index[y*w+x]] = true
			}
		}
		var colours []int
		for c, ok := range used {
			if ok {
				colours = append(colours, c)
			}
		}
		for n, c := range colours {
			for x := 0; x < w; x++ {
				var bits byte
				for dy := 0; dy < 6 && band+dy < h; dy++ {
					if int(index[(band+dy)*w+x]) == c {
						bits |= 1 << dy
					}
				}
				line[x] = 63 + bits
			}
			sb.WriteString("#" + strconv.Itoa(c))
			writeSixelRLE(&sb, line)
			if n < len(colours)-1 {
				sb.WriteByte('$')
			}
		}
		if band+6 < h {
			sb.WriteByte('-')
		}
	}
	sb.WriteString("\x1b\\")
	return sb.String()
}

// writeSixelRLE writes one colour's sixel row run-length encoded.
func writeSixelRLE(sb *strings.Builder, line []byte) {
	for i := 0; i < len(line); {
		j := i
		for j < len(line) && line[j] == line[i] {
			j++
		}
		if n := j - i; n > 3 {
			sb.WriteString("!" + strconv.Itoa(n))
			sb.WriteByte(line[i])
		} else {
			for k := 0; k < n; k++ {
				sb.WriteByte(line[i])
			}
		}
		i = j
	}
}

// quantize picks up to 256 colours by popularity and maps every pixel to
// its nearest palette entry.
func quantize(px []rgb) ([]rgb, []uint8) {
	key := func(p rgb) int { return int(p.r>>3)<<10 | int(p.g>>3)<<5 | int(p.b>>3) }
	type bin struct {
		key, n      int
		r, g, b, nn int
	}
	bins := map[int]*bin{}
	for _, p := range px {
		k := key(p)
		bn := bins[k]
		if bn == nil {
			bn = &bin{key: k}
			bins[k] = bn
		}
		bn.n++
		bn.r += int(p.r)
		bn.g += int(p.g)
		bn.b += int(p.b)
	}
	all := make([]*bin, 0, len(bins))
	for _, bn := range bins {
		all = append(all, bn)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].n != all[j].n {
			return all[i].n > all[j].n
		}
		return all[i].key < all[j].key
	})
	if len(all) > 256 {
		all = all[:256]
	}
	palette := make([]rgb, len(all))
	for i, bn := range all {
		palette[i] = rgb{uint8(bn.r / bn.n), uint8(bn.g / bn.n), uint8(bn.b / bn.n)}
	}
	nearest := map[int]uint8{}
	index := make([]uint8, len(px))
	for i, p := range px {
		k := key(p)
		c, ok := nearest[k]
		if !ok {
			best, bestD := 0, 1<<30
			for j, q := range palette {
				dr, dg, db := int(p.r)-int(q.r), int(p.g)-int(q.g), int(p.b)-int(q.b)
				if d := dr*dr + dg*dg + db*db; d < bestD {
					best, bestD = j, d
				}
			}
			c = uint8(best)
			nearest[k] = c
		}
		index[i] = c
	}
	return palette, index
}

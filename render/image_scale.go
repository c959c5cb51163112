package render

import (
	"image"
	"image/color"
)

// rgb is an opaque pixel, composited over white: matplotlib figures with a
// transparent background would otherwise vanish on a dark terminal.
type rgb struct{ r, g, b uint8 }

// boxScale shrinks img to tw × th by averaging every source pixel into the
// target pixel it falls in (a box filter): one pass over the source, no
// per-pixel interface calls for the common decoded types. Upscaling falls
// back to nearest neighbour.
func boxScale(img image.Image, tw, th int) []rgb {
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	out := make([]rgb, tw*th)
	if tw <= 0 || th <= 0 || sw <= 0 || sh <= 0 {
		return out
	}
	type acc struct{ r, g, b, n uint32 }
	sums := make([]acc, tw*th)
	txOf := make([]int, sw)
	for x := range txOf {
		txOf[x] = x * tw / sw
	}
	add := func(x, y int, r, g, bl, a uint32) {
		if a != 255 { // 8-bit non-premultiplied in, composite over white
			r = (r*a + 255*(255-a)) / 255
			g = (g*a + 255*(255-a)) / 255
			bl = (bl*a + 255*(255-a)) / 255
		}
		s := &sums[(y*th/sh)*tw+txOf[x]]
		s.r += r
		s.g += g
		s.b += bl
		s.n++
	}
	switch src := img.(type) {
	case *image.NRGBA:
		for y := 0; y < sh; y++ {
			row := src.Pix[y*src.Stride : y*src.Stride+sw*4]
			bins := sums[(y*th/sh)*tw : (y*th/sh+1)*tw]
			for x := 0; x < sw; x++ {
				p := row[x*4 : x*4+4 : x*4+4]
				if p[3] != 255 {
					add(x, y, uint32(p[0]), uint32(p[1]), uint32(p[2]), uint32(p[3]))
					continue
				}
				s := &bins[txOf[x]] // opaque: the common case, inlined
				s.r += uint32(p[0])
				s.g += uint32(p[1])
				s.b += uint32(p[2])
				s.n++
			}
		}
	case *image.RGBA:
		for y := 0; y < sh; y++ {
			row := src.Pix[y*src.Stride : y*src.Stride+sw*4]
			for x := 0; x < sw; x++ {
				p := row[x*4 : x*4+4]
				r, g, bl, a := uint32(p[0]), uint32(p[1]), uint32(p[2]), uint32(p[3])
				if a > 0 && a < 255 { // un-premultiply
					r, g, bl = r*255/a, g*255/a, bl*255/a
				}
				add(x, y, r, g, bl, a)
			}
		}
	default:
		for y := 0; y < sh; y++ {
			for x := 0; x < sw; x++ {
				c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
				add(x, y, uint32(c.R), uint32(c.G), uint32(c.B), uint32(c.A))
			}
		}
	}
	for i, s := range sums {
		if s.n == 0 {
			continue
		}
		out[i] = rgb{uint8(s.r / s.n), uint8(s.g / s.n), uint8(s.b / s.n)}
	}
	// Upscaled axes leave empty bins: copy the nearest filled neighbour.
	for y := 0; y < th; y++ {
		for x := 0; x < tw; x++ {
			if sums[y*tw+x].n == 0 {
				sx, sy := x*sw/tw, y*sh/th
				out[y*tw+x] = out[(sy*th/sh)*tw+sx*tw/sw]
			}
		}
	}
	return out
}

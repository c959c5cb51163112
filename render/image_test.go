package render

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/quarry-cli/quarry/kernel"
)

// testPNG draws a small chart-like picture: white page, a red bar, a blue
// bar, a black axis, a transparent corner.
func testPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{255, 255, 255, 255}
			switch {
			case x < w/10 && y < h/10:
				c = color.NRGBA{0, 0, 0, 0} // transparent: composited over white
			case y == h-2 || x == 1:
				c = color.NRGBA{0, 0, 0, 255}
			case x > w/5 && x < 2*w/5 && y > h/3:
				c = color.NRGBA{220, 40, 40, 255}
			case x > 3*w/5 && x < 4*w/5 && y > h/2:
				c = color.NRGBA{40, 80, 220, 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func noisyPNG(t testing.TB, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	seed := uint32(1)
	for i := range img.Pix {
		seed = seed*1664525 + 1013904223
		img.Pix[i] = uint8(seed >> 24)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pngHeaderOnly is a PNG signature and a valid IHDR chunk declaring w × h,
// and nothing else: what a hostile sandbox would write.
func pngHeaderOnly(w, h uint32) []byte {
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	var b bytes.Buffer
	b.Write([]byte("\x89PNG\r\n\x1a\n"))
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	chunk := append([]byte("IHDR"), ihdr[:]...)
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func TestCheckPNG(t *testing.T) {
	good := testPNG(t, 40, 20)
	if w, h, err := kernel.CheckPNG(good); err != nil || w != 40 || h != 20 {
		t.Fatalf("good PNG: %d×%d, %v", w, h, err)
	}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"not png", []byte("GIF89a......"), "bad signature"},
		{"empty", nil, "bad signature"},
		{"truncated", good[:12], "png header"},
		{"huge declared", pngHeaderOnly(100000, 100000), "over the limit"},
		{"one side too long", pngHeaderOnly(10001, 10), "over the limit"},
		{"area too large", pngHeaderOnly(8000, 8000), "over the limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := kernel.CheckPNG(c.data)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if _, err := DecodePNG(c.data); err == nil {
				t.Fatal("DecodePNG decoded a rejected PNG")
			}
		})
	}
}

func TestHalfBlocksGolden(t *testing.T) {
	img, err := DecodePNG(testPNG(t, 64, 32))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		depth ColorDepth
	}{{"truecolor", ColorTrue}, {"256", Color256}, {"nocolor", ColorNone}} {
		t.Run(c.name, func(t *testing.T) {
			out := HalfBlocks(img, 16, 8, c.depth)
			lines := strings.Split(out, "\n")
			if len(lines) != 4 { // 16 cols of a 2:1 picture = 8 pixel rows = 4 lines
				t.Fatalf("%d lines, want 4", len(lines))
			}
			for _, l := range lines {
				if n := len([]rune(stripSGR(l))); n != 16 {
					t.Fatalf("line is %d cells, want 16: %q", n, l)
				}
			}
			golden.RequireEqual(t, out)
		})
	}
}

var sgrRe = regexp.MustCompile("\x1b\\[[0-9;:]*m")

func stripSGR(s string) string { return sgrRe.ReplaceAllString(s, "") }

func TestHalfBlocksColours(t *testing.T) {
	img, _ := DecodePNG(testPNG(t, 64, 32))
	out := HalfBlocks(img, 16, 8, ColorTrue)
	if !strings.Contains(out, "38;2;255;255;255") {
		t.Error("no white (the transparent corner is composited over white too)")
	}
	if !strings.Contains(out, ";2;220;40;40") {
		t.Error("red bar missing")
	}
	if strings.Contains(HalfBlocks(img, 16, 8, Color256), ";2;") {
		t.Error("true colour in 256-colour output")
	}
}

func TestXterm256(t *testing.T) {
	cases := map[rgb]int{{0, 0, 0}: 16, {255, 255, 255}: 231, {255, 0, 0}: 196, {128, 128, 128}: 244}
	for c, want := range cases {
		if got := xterm256(c); got != want {
			t.Errorf("xterm256(%v) = %d, want %d", c, got, want)
		}
	}
}

func TestITerm(t *testing.T) {
	data := testPNG(t, 20, 10)
	out := ITerm(data, "chart\x1b]0;x\x07.png", 20, 5)
	want := "\x1b]1337;File=inline=1;name=" + base64.StdEncoding.EncodeToString([]byte("chart.png")) +
		";size=" + strconv.Itoa(len(data)) + ";width=20;height=5;preserveAspectRatio=0:" +
		base64.StdEncoding.EncodeToString(data) + "\x07"
	if out != want {
		t.Fatalf("got %q", out[:80])
	}
}

// decodeSixel is a small Sixel reader for the test: it returns the image
// as palette colours.
func decodeSixel(t *testing.T, s string) (w, h int, pix map[[2]int]rgb) {
	t.Helper()
	if !strings.HasPrefix(s, "\x1bP0;1;0q\"1;1;") || !strings.HasSuffix(s, "\x1b\\") {
		t.Fatalf("not a sixel DCS: %q", s[:min(len(s), 30)])
	}
	body := strings.TrimSuffix(strings.TrimPrefix(s, "\x1bP0;1;0q\"1;1;"), "\x1b\\")
	var i int
	num := func() int {
		j := i
		for i < len(body) && body[i] >= '0' && body[i] <= '9' {
			i++
		}
		n, _ := strconv.Atoi(body[j:i])
		return n
	}
	w = num()
	i++ // ;
	h = num()
	pal := map[int]rgb{}
	pix = map[[2]int]rgb{}
	cur, x, y := 0, 0, 0
	for i < len(body) {
		c := body[i]
		switch {
		case c == '#':
			i++
			n := num()
			if i < len(body) && body[i] == ';' {
				i += 3 // ;2;
				r := num()
				i++
				g := num()
				i++
				b := num()
				pal[n] = rgb{uint8(r * 255 / 100), uint8(g * 255 / 100), uint8(b * 255 / 100)}
			} else {
				cur = n
			}
		case c == '$':
			x = 0
			i++
		case c == '-':
			x, y = 0, y+6
			i++
		case c == '!':
			i++
			n := num()
			bits := body[i] - 63
			for k := 0; k < n; k++ {
				for dy := 0; dy < 6; dy++ {
					if bits&(1<<dy) != 0 {
						pix[[2]int{x, y + dy}] = pal[cur]
					}
				}
				x++
			}
			i++
		case c >= 63 && c <= 126:
			for dy := 0; dy < 6; dy++ {
				if (c-63)&(1<<dy) != 0 {
					pix[[2]int{x, y + dy}] = pal[cur]
				}
			}
			x++
			i++
		default:
			t.Fatalf("unexpected byte %q at %d", c, i)
		}
	}
	if len(pal) > 256 {
		t.Fatalf("%d palette entries", len(pal))
	}
	return w, h, pix
}

func TestSixelRoundTrip(t *testing.T) {
	img, _ := DecodePNG(testPNG(t, 100, 50))
	f := NewSixelFigure(img, 120, 53, color.NRGBA{10, 20, 30, 255}) // a box wider and taller: padded with bg
	w, h, pix := decodeSixel(t, f.Sixel(0, f.H))
	if w != 120 || h != 53 {
		t.Fatalf("raster %d×%d, want 120×53", w, h)
	}
	if len(pix) != w*h {
		t.Fatalf("%d pixels painted, want every one of %d", len(pix), w*h)
	}
	near := func(a, b rgb) bool {
		d := func(x, y uint8) int { return max(int(x)-int(y), int(y)-int(x)) }
		return d(a.r, b.r) < 8 && d(a.g, b.g) < 8 && d(a.b, b.b) < 8
	}
	checks := map[[2]int]rgb{{30, 40}: {220, 40, 40}, {70, 40}: {40, 80, 220}, {50, 5}: {255, 255, 255},
		{1, 20}: {0, 0, 0}, {110, 10}: {10, 20, 30}, {10, 52}: {10, 20, 30}}
	for p, want := range checks {
		if got := pix[p]; !near(got, want) {
			t.Errorf("pixel %v = %v, want %v", p, got, want)
		}
	}
	// A band of rows, as for a figure partly scrolled away: the same pixels.
	w, h, band := decodeSixel(t, f.Sixel(20, 45))
	if w != 120 || h != 25 || len(band) != w*h {
		t.Fatalf("band %d×%d with %d pixels", w, h, len(band))
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if band[[2]int{x, y}] != pix[[2]int{x, y + 20}] {
				t.Fatalf("band pixel %d,%d differs from the whole figure's", x, y)
			}
		}
	}
	if f.Sixel(60, 70) != "" {
		t.Error("a band below the figure drew something")
	}
	// A larger figure is scaled down to fit, keeping its aspect ratio.
	big, _ := DecodePNG(testPNG(t, 400, 100))
	g := NewSixelFigure(big, 100, 100, nil)
	_, _, gp := decodeSixel(t, g.Sixel(0, g.H))
	if !near(gp[[2]int{30, 15}], rgb{220, 40, 40}) || !near(gp[[2]int{50, 60}], rgb{255, 255, 255}) {
		t.Errorf("scaled figure: %v %v", gp[[2]int{30, 15}], gp[[2]int{50, 60}])
	}
}

func TestQuantizeCapsPalette(t *testing.T) {
	px := make([]rgb, 0, 4096)
	for i := 0; i < 4096; i++ {
		px = append(px, rgb{uint8(i), uint8(i >> 4 * 16), uint8(i >> 8 * 16)})
	}
	pal, idx := quantize(px)
	if len(pal) > 256 || len(idx) != len(px) {
		t.Fatalf("palette %d, index %d", len(pal), len(idx))
	}
}

func TestImageCells(t *testing.T) {
	cases := []struct{ w, h, cols, rows, c, r int }{
		{1000, 600, 60, 20, 60, 18},
		{600, 1000, 60, 20, 24, 20},
		{100, 100, 10, 10, 10, 5},
		{0, 10, 10, 10, 0, 0},
	}
	for _, c := range cases {
		if gc, gr := ImageCells(c.w, c.h, c.cols, c.rows); gc != c.c || gr != c.r {
			t.Errorf("ImageCells(%d,%d,%d,%d) = %d,%d want %d,%d", c.w, c.h, c.cols, c.rows, gc, gr, c.c, c.r)
		}
	}
}

func TestTmuxPassthrough(t *testing.T) {
	out := TmuxPassthrough(KittyUnicode(noisyPNG(t, 64, 64), 9, 4, 2).Transmit)
	wraps := strings.Count(out, "\x1bPtmux;")
	if wraps < 2 || wraps != strings.Count(out, "\x1b\x1b_G") {
		t.Errorf("want one tmux wrapper per kitty chunk: %d wrappers, %d chunks", wraps, strings.Count(out, "\x1b\x1b_G"))
	}
	if !strings.HasPrefix(out, "\x1bPtmux;\x1b\x1b_G") || !strings.HasSuffix(out, "\x1b\x1b\\\x1b\\") {
		t.Errorf("tmux passthrough: %q … %q", out[:20], out[len(out)-10:])
	}
}

func TestHyperlink(t *testing.T) {
	got := Hyperlink("/home/ana/quarry output/a;b\x1b]52;c;x\x07.png", "chart\x1b[2J.png")
	want := "\x1b]8;;file:///home/ana/quarry%20output/a%3Bb%1B%5D52%3Bc%3Bx%07.png\x1b\\chart.png\x1b]8;;\x1b\\"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if FileURL("/tmp/東京.png") != "file:///tmp/%E6%9D%B1%E4%BA%AC.png" {
		t.Errorf("non-ASCII: %s", FileURL("/tmp/東京.png"))
	}
}

func BenchmarkHalfBlocks1000x600(b *testing.B) {
	data := testPNG(b, 1000, 600)
	b.Run("decode+blocks", func(b *testing.B) {
		for b.Loop() {
			img, err := DecodePNG(data)
			if err != nil {
				b.Fatal(err)
			}
			HalfBlocks(img, 80, 24, ColorTrue)
		}
	})
	img, _ := DecodePNG(data)
	b.Run("blocks", func(b *testing.B) {
		for b.Loop() {
			HalfBlocks(img, 80, 24, ColorTrue)
		}
	})
}

func BenchmarkSixel1000x600(b *testing.B) {
	img, _ := DecodePNG(testPNG(b, 1000, 600))
	b.Run("prepare", func(b *testing.B) {
		for b.Loop() {
			NewSixelFigure(img, 800, 480, nil)
		}
	})
	f := NewSixelFigure(img, 800, 480, nil)
	b.Run("encode", func(b *testing.B) {
		for b.Loop() {
			f.Sixel(0, f.H)
		}
	})
}

func TestKittyUnicode(t *testing.T) {
	data := noisyPNG(t, 64, 64)
	for _, id := range []uint32{7, 70000} {
		img := KittyUnicode(data, id, 12, 3)
		if !strings.HasPrefix(img.Transmit, "\x1b_Ga=T,U=1,f=100,q=2,i="+strconv.Itoa(int(id))+",c=12,r=3,m=1;") {
			t.Errorf("transmit keys: %q", img.Transmit[:50])
		}
		if len(img.Lines) != 3 {
			t.Fatalf("%d lines", len(img.Lines))
		}
		for r, l := range img.Lines {
			if w := ansi.StringWidth(l); w != 12 {
				t.Errorf("line %d is %d cells wide, want 12", r, w)
			}
			if n := strings.Count(l, "\U0010EEEE"); n != 12 {
				t.Errorf("line %d has %d placeholders", r, n)
			}
		}
	}
	if !strings.Contains(KittyUnicode(data, 70000, 1, 1).Lines[0], "38;2;1;17;112") {
		t.Error("24-bit id colour")
	}
	if KittyDelete(7) != "\x1b_Ga=d,d=I,i=7,q=2\x1b\\" {
		t.Error("KittyDelete")
	}
}

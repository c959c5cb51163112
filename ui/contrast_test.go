package ui

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi/kitty"
)

// Terminal backgrounds the themes must read on: white, Solarized Light and
// a cream for light; black, two common greys and Solarized Dark for dark.
var (
	lightBackgrounds = []color.Color{color.RGBA{255, 255, 255, 255}, color.RGBA{0xFD, 0xF6, 0xE3, 255}, color.RGBA{0xF5, 0xF5, 0xF0, 255}}
	darkBackgrounds  = []color.Color{color.RGBA{0, 0, 0, 255}, color.RGBA{0x1E, 0x1E, 0x2E, 255}, color.RGBA{0x28, 0x2A, 0x36, 255}, color.RGBA{0x00, 0x2B, 0x36, 255}}
)

// The least contrast of text with its background (WCAG's ratio): 4.5 for
// text (AA), 3 for the faint hints and rules meant to step back.
const (
	minContrast      = 4.5
	minContrastFaint = 3.0
)

// TestThemesReadable draws a whole conversation (answer, cell, table, status
// bar, hints, chips) in each theme and checks every glyph on the screen
// against its background: the cell's own, or each terminal background of
// the theme; in true colour and as a 256-colour terminal shows it.
func TestThemesReadable(t *testing.T) {
	for _, dark := range []bool{false, true} {
		m, _ := newTestModel(t, 80, 40, dark)
		conversation(m)
		m.transcript.add(&block{kind: kindAssistant, text: "# Report\n\n## Variance\n\nUse `df.head()`, see [pandas](https://pandas.pydata.org).\n\n---"})
		m.notice(levelWarn, "Retrying in 2s: the server is busy.")
		m.notice(levelError, "The sandbox did not start.")
		m.notice(levelInfo, "Model: gpt-test")
		m.status.hint = "Press Ctrl+C again to quit."
		content, _ := m.render()
		buf := uv.NewScreenBuffer(80, 40)
		uv.NewStyledString(content).Draw(buf, buf.Bounds())
		bgs, defaultFg := lightBackgrounds, color.Color(color.RGBA{0x1a, 0x1a, 0x1a, 255})
		if dark {
			bgs, defaultFg = darkBackgrounds, color.RGBA{0xd0, 0xd0, 0xd0, 255}
		}
		worst := map[string]float64{}
		for _, profile := range []colorprofile.Profile{colorprofile.TrueColor, colorprofile.ANSI256} {
			for y := range 40 {
				for x := range 80 {
					c := buf.CellAt(x, y)
					if c == nil || strings.TrimSpace(c.Content) == "" || strings.ContainsAny(c.Content, "▀█▓▒░") ||
						strings.ContainsRune(c.Content, kitty.Placeholder) {
						continue // blanks and picture cells
					}
					fg := c.Style.Fg
					if fg == nil {
						fg = defaultFg
					}
					cellBgs := bgs
					if c.Style.Bg != nil {
						cellBgs = []color.Color{c.Style.Bg}
					}
					if c.Style.Attrs&uv.AttrReverse != 0 {
						cellBgs, fg = []color.Color{fg}, cellBgs[0]
					}
					need := minContrast
					if isFaint(c, buf, x, y) {
						need = minContrastFaint
					}
					for _, bg := range cellBgs {
						r := contrast(profile.Convert(fg), profile.Convert(bg))
						key := fmt.Sprintf("%v fg %v on %v", profile, hex(fg), hex(bg))
						if w, ok := worst[key]; !ok || r < w {
							worst[key] = r
						}
						if r < need {
							t.Errorf("dark=%v %v: %q at %d,%d: %s on %s has contrast %.2f, want %.1f", dark, profile, c.Content, x, y, hex(profile.Convert(fg)), hex(profile.Convert(bg)), r, need)
						}
					}
				}
			}
		}
		if testing.Verbose() {
			for k, r := range worst {
				t.Logf("dark=%v %s: %.2f", dark, k, r)
			}
		}
	}
}

// isFaint: the decorations that step back on purpose: rules, the code
// gutter, table borders, and the key-hint line at the bottom.
func isFaint(c *uv.Cell, buf uv.ScreenBuffer, x, y int) bool {
	if strings.ContainsAny(c.Content, "─│╭╮╰╯┬┴├┤┼⋯") {
		return true
	}
	dash := func(x int) bool { n := buf.CellAt(x, y); return n != nil && n.Content == "-" }
	if c.Content == "-" && (dash(x-1) || dash(x+1)) {
		return true // Markdown's horizontal rule
	}
	return y == buf.Bounds().Dy()-1
}

func hex(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
}

// contrast is WCAG 2's contrast ratio of two colours.
func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		s := float64(v>>8) / 255
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

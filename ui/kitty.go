package ui

import "math/rand/v2"

// Kitty graphics inside Bubble Tea. The cell renderer owns every cell, so an
// image drawn at the cursor is painted around its frames (overlay.go, for
// Sixel and iTerm2). Kitty's Unicode placeholders need none of that: the image is transmitted once (tea.Raw) with a virtual placement of
// cols×rows cells, and the view shows it with ordinary text cells — U+10EEEE
// plus row and column diacritics, coloured with the image id — which the
// renderer diffs, scrolls and clips like any other text. render.KittyUnicode
// builds both halves; this file only hands out ids.

// newKittyIDs picks ids from a random base so two programs in one terminal
// are unlikely to share one; 0 is not a valid id.
func newKittyIDs() func() uint32 {
	next := rand.Uint32N(0xF00000) + 0x010000
	return func() uint32 {
		next++
		return next & 0xFFFFFF
	}
}

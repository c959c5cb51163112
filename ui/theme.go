package ui

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// theme holds every style of the chat for one background. Colours are picked
// for light or dark backgrounds and checked for contrast on common ones, in
// true colour and in 256 colours (contrast_test.go); NO_COLOR is honoured by
// Bubble Tea's renderer, which drops colours for the Ascii profile.
type theme struct {
	dark bool

	user      lipgloss.Style // the "you" gutter
	assistant lipgloss.Style // the "quarry" gutter
	dim       lipgloss.Style
	accent    lipgloss.Style
	ok        lipgloss.Style
	warn      lipgloss.Style
	fail      lipgloss.Style
	code      lipgloss.Style // gutter of code cells
	chip      lipgloss.Style
	chipBusy  lipgloss.Style
	status    lipgloss.Style
	statusKey lipgloss.Style
	help      lipgloss.Style
	prompt    lipgloss.Style
	header    lipgloss.Style // table viewer header
	selected  lipgloss.Style // table viewer selected column
	border    color.Color
}

// newTheme makes the styles for a background; without colours (NO_COLOR)
// the status bar is drawn in reverse video, so it still reads as a bar.
func newTheme(dark, noColor bool) *theme {
	ld := lipgloss.LightDark(dark)
	c := func(light, darkc string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(darkc)) }
	t := &theme{dark: dark}
	t.user = lipgloss.NewStyle().Bold(true).Foreground(c("#1D4ED8", "#7AA2F7"))
	t.assistant = lipgloss.NewStyle().Bold(true).Foreground(c("#6D28D9", "#BB9AF7"))
	t.dim = lipgloss.NewStyle().Foreground(c("#5B6170", "#A0A6BE"))
	t.accent = lipgloss.NewStyle().Foreground(c("#0E7490", "#7DCFFF"))
	t.ok = lipgloss.NewStyle().Foreground(c("#15803D", "#9ECE6A"))
	t.warn = lipgloss.NewStyle().Foreground(c("#92400E", "#E0AF68"))
	t.fail = lipgloss.NewStyle().Foreground(c("#B91C1C", "#F7768E"))
	t.code = lipgloss.NewStyle().Foreground(c("#7D8590", "#7C82A0"))
	t.chip = lipgloss.NewStyle().Padding(0, 1).Foreground(c("#111827", "#D0D0D0")).Background(c("#E4E4E4", "#3A3A3A"))
	t.chipBusy = t.chip.Foreground(c("#4B5563", "#A8A8A8"))
	t.status = lipgloss.NewStyle().Foreground(c("#303030", "#D0D0D0")).Background(c("#E4E4E4", "#303030"))
	if noColor {
		t.status = t.status.Reverse(true)
	}
	t.statusKey = t.status.Bold(true)
	t.help = lipgloss.NewStyle().Foreground(c("#5B6170", "#8A90AA"))
	t.prompt = lipgloss.NewStyle().Bold(true).Foreground(c("#6D28D9", "#BB9AF7"))
	t.header = lipgloss.NewStyle().Bold(true).Foreground(c("#111827", "#C0CAF5"))
	t.selected = lipgloss.NewStyle().Bold(true).Reverse(true)
	t.border = c("#D1D5DB", "#3B4261")
	return t
}

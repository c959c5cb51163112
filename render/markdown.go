package render

import (
	"fmt"

	"charm.land/glamour/v2"
)

// Style is a glamour style name quarry uses.
type Style string

const (
	StyleDark    Style = "dark"
	StyleLight   Style = "light"
	StyleNoColor Style = "nocolor" // NO_COLOR: no colour; emphasis and headings as bold, italic, underline
	StyleNoTTY   Style = "notty"   // no escapes at all: dumb terminals
	StyleASCII   Style = "ascii"
)

// Colour tells whether the style draws in colour.
func (s Style) Colour() bool { return s == StyleDark || s == StyleLight }

// DetectStyle picks the style for a terminal: TERM=dumb means no escapes,
// NO_COLOR (any value) no colour; otherwise the background decides.
func DetectStyle(getenv func(string) string, darkBackground bool) Style {
	if getenv("TERM") == "dumb" {
		return StyleNoTTY
	}
	if getenv("NO_COLOR") != "" {
		return StyleNoColor
	}
	if darkBackground {
		return StyleDark
	}
	return StyleLight
}

const maxRenderers = 8

type rendererKey struct {
	width int
	style Style
}

// Markdown renders Markdown with glamour, keeping one renderer per (width,
// style) because building one is costly. It is NOT safe for concurrent use:
// glamour renderers are not, and neither is the cache. Give each goroutine
// (or each tea.Model) its own.
type Markdown struct {
	renderers map[rendererKey]*glamour.TermRenderer
}

// NewMarkdown returns an empty renderer cache.
func NewMarkdown() *Markdown {
	return &Markdown{
		renderers: map[rendererKey]*glamour.TermRenderer{},
	}
}

func (m *Markdown) renderer(width int, style Style) (*glamour.TermRenderer, error) {
	if width < 10 {
		width = 10
	}
	key := rendererKey{width, style}
	if r, ok := m.renderers[key]; ok {
		return r, nil
	}
	if len(m.renderers) >= maxRenderers {
		// A window dragged wider and narrower would otherwise keep one
		// renderer per width it ever had.
		clear(m.renderers)
	}
	look := glamour.WithStandardStyle(string(style))
	switch style {
	case StyleDark, StyleLight:
		look = glamour.WithStyles(markdownStyle(style == StyleDark))
	case StyleNoColor:
		look = glamour.WithStyles(noColorStyle())
	}
	r, err := glamour.NewTermRenderer(look, glamour.WithWordWrap(width))
	if err != nil {
		return nil, fmt.Errorf("markdown renderer %q: %w", style, err)
	}
	m.renderers[key] = r
	return r, nil
}

// Render sanitizes text and renders it at width columns.
func (m *Markdown) Render(text string, width int, style Style) (string, error) {
	return m.renderClean(Sanitize(text), width, style)
}

func (m *Markdown) renderClean(text string, width int, style Style) (string, error) {
	r, err := m.renderer(width, style)
	if err != nil {
		return "", err
	}
	out, err := r.Render(markLongPaths(protectMarkdownHyphens(joinItemParagraphs(text)), width))
	if err != nil {
		return "", fmt.Errorf("markdown render: %w", err)
	}
	return unmarkPaths(compactTables(hangListItems(unprotectHyphens(sanitizeRendered(out)), max(width, 10), text))), nil
}

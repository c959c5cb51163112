package render

import (
	"charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
)

// Markdown colours of the chat's two themes (ui/theme.go uses the same):
// text, headings and links in the accent, inline code, rules.
type markdownColors struct {
	text, heading, code, codeBg, link, rule string
}

var (
	markdownDark  = markdownColors{text: "#C0CAF5", heading: "#7DCFFF", code: "#F7768E", codeBg: "#292E42", link: "#7AA2F7", rule: "#8A90AA"}
	markdownLight = markdownColors{text: "#1F2937", heading: "#0E7490", code: "#B91C1C", codeBg: "#F3F4F6", link: "#1D4ED8", rule: "#5B6170"}
)

// markdownStyle is glamour's dark or light style in the chat's colours, with
// headings shown as bold coloured lines rather than with their "##" markup
// (an H1 underlined as well).
func markdownStyle(dark bool) ansi.StyleConfig {
	s, c := styles.LightStyleConfig, markdownLight
	if dark {
		s, c = styles.DarkStyleConfig, markdownDark
	}
	str := func(v string) *string { return &v }
	yes := true
	s.Document.Color = str(c.text)
	s.Heading = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{BlockSuffix: "\n", Color: str(c.heading), Bold: &yes}}
	s.H1 = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Underline: &yes}}
	for _, h := range []*ansi.StyleBlock{&s.H2, &s.H3, &s.H4, &s.H5, &s.H6} {
		*h = ansi.StyleBlock{}
	}
	s.Code = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "\u00a0", Suffix: "\u00a0", Color: str(c.code), BackgroundColor: str(c.codeBg)}}
	s.Link = ansi.StylePrimitive{Color: str(c.link), Underline: &yes}
	s.LinkText = ansi.StylePrimitive{Color: str(c.link), Bold: &yes}
	s.HorizontalRule.Color = str(c.rule)
	return s
}

// noColorStyle is the chat's Markdown without colour (NO_COLOR):
// glamour's own notty style shows bold, italics and headings as their raw
// markup (**Budget**, ## Revenue); here they are bold, italic and
// underlined text instead, attributes NO_COLOR leaves alone. Lists, tables
// and code keep the notty forms.
func noColorStyle() ansi.StyleConfig {
	s := styles.NoTTYStyleConfig
	yes := true
	s.Heading = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{BlockSuffix: "\n", Bold: &yes}}
	s.H1 = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Underline: &yes}}
	for _, h := range []*ansi.StyleBlock{&s.H2, &s.H3, &s.H4, &s.H5, &s.H6} {
		*h = ansi.StyleBlock{}
	}
	s.Strong = ansi.StylePrimitive{Bold: &yes}
	s.Emph = ansi.StylePrimitive{Italic: &yes}
	s.Strikethrough = ansi.StylePrimitive{CrossedOut: &yes}
	return s
}

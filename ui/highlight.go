package ui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

// highlightPython colours already-sanitized Python with chroma, using a
// named style per background. It does not go through glamour: glamour
// registers its code colours in chroma's global registry once per process,
// so a light/dark switch would keep the first background's colours. Only
// foreground colours and bold are used, so the terminal background shows.
func highlightPython(code string, dark bool) string {
	lexer := lexers.Get("python")
	if lexer == nil {
		return code
	}
	name := "github"
	if dark {
		name = "github-dark"
	}
	style := styles.Get(name)
	it, err := chroma.Coalesce(lexer).Tokenise(nil, code)
	if err != nil {
		return code
	}
	var b strings.Builder
	for tok := it(); tok != chroma.EOF; tok = it() {
		e := style.Get(tok.Type)
		st := lipgloss.NewStyle()
		if e.Colour.IsSet() {
			st = st.Foreground(lipgloss.Color(e.Colour.String()))
		}
		if e.Bold == chroma.Yes {
			st = st.Bold(true)
		}
		if e.Italic == chroma.Yes {
			st = st.Italic(true)
		}
		// Style each line separately so every line stands on its own.
		for i, part := range strings.Split(tok.Value, "\n") {
			if i > 0 {
				b.WriteByte('\n')
			}
			if part != "" {
				b.WriteString(st.Render(part))
			}
		}
	}
	return b.String()
}

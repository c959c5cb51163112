package ui

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/quarry-cli/quarry/ground"
)

// An answer's numbers, checked by the session against the cells' outputs:
// an unverified one is drawn ⟦in brackets⟧ with a dotted underline, in the
// warning colour (the brackets and the underline stay under NO_COLOR), and
// listed under the answer; ctrl+g steps through all of them (numbersView),
// the one it is on drawn in reverse video in the answer and scrolled into
// view.

// Private-use runes bracket a marked number in the Markdown given to
// glamour; after rendering they become the mark. Each is one column wide,
// as the glyph it becomes, so a table keeps its alignment. The model's own
// are removed first, so only quarry's exist.
const (
	markOpen     = '\ue000' // an unverified number
	markClose    = '\ue001'
	markOpenHL   = '\ue002' // an unverified number ctrl+g is on
	markCloseHL  = '\ue003'
	markOpenCur  = '\ue004' // a grounded number ctrl+g is on
	markCloseCur = '\ue005'

	underlineOn  = "\x1b[4:4m" // dotted; a plain underline where dotted is not drawn
	underlineOff = "\x1b[24m"
	reverseOn    = "\x1b[7m"
	reverseOff   = "\x1b[27m"

	unverifiedOpen  = ground.UnverifiedOpen
	unverifiedClose = ground.UnverifiedClose
)

const markRunes = "\ue000\ue001\ue002\ue003\ue004\ue005"

// markedAnswer is the answer's Markdown with its unverified numbers and the
// one at index cur (-1: none) bracketed; the claims' offsets are into the
// same text the turn_done event carried.
func markedAnswer(md string, cs []ground.Claim, cur int) string {
	type span struct {
		a, b        int
		open, close rune
	}
	var spans []span
	for i, c := range cs {
		if c.Start < 0 || c.End > len(md) || c.Start >= c.End || md[c.Start:c.End] != c.Text {
			continue
		}
		switch {
		case i == cur && !c.Grounded:
			spans = append(spans, span{c.Start, c.End, markOpenHL, markCloseHL})
		case i == cur:
			spans = append(spans, span{c.Start, c.End, markOpenCur, markCloseCur})
		case !c.Grounded:
			spans = append(spans, span{c.Start, c.End, markOpen, markClose})
		}
	}
	if len(spans) == 0 {
		return stripMarks(md)
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].a < spans[j].a })
	var b strings.Builder
	at := 0
	for _, s := range spans {
		if s.a < at {
			continue
		}
		b.WriteString(stripMarks(md[at:s.a]))
		b.WriteRune(s.open)
		b.WriteString(stripMarks(md[s.a:s.b]))
		b.WriteRune(s.close)
		at = s.b
	}
	b.WriteString(stripMarks(md[at:]))
	return b.String()
}

func stripMarks(s string) string {
	if !strings.ContainsAny(s, markRunes) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(markRunes, r) {
			return -1
		}
		return r
	}, s)
}

// markStyle is what a bracket rune becomes: the glyph drawn in its place
// (one column) and the style of the number it opens.
type markStyle struct {
	glyph string
	on    string // set at the open rune, and again after every SGR inside
	close bool
}

// markStyles gives each rune its mark; warn is the warning colour's SGR.
func markStyles(warn string) map[rune]markStyle {
	unverified := warn + underlineOn
	return map[rune]markStyle{
		markOpen:     {glyph: unverifiedOpen, on: unverified},
		markClose:    {glyph: unverifiedClose, close: true},
		markOpenHL:   {glyph: unverifiedOpen, on: unverified + reverseOn},
		markCloseHL:  {glyph: unverifiedClose, close: true},
		markOpenCur:  {glyph: " ", on: reverseOn},
		markCloseCur: {glyph: " ", close: true},
	}
}

// markOff ends any mark's style; the text after it is glamour's again at
// its next SGR.
const markOff = underlineOff + reverseOff + "\x1b[39m"

// applyMarks turns the bracket runes in rendered lines into the marks.
// Glamour may reset the style inside a number (between its words), so the
// mark's style is set again after every SGR sequence within it. It reports
// the line the ctrl+g number starts on (-1: none).
func applyMarks(lines []string, warn string) ([]string, int) {
	styles := markStyles(warn)
	on := "" // the open mark's style, "" outside a mark
	curLine := -1
	for i, l := range lines {
		if on == "" && !strings.ContainsAny(l, markRunes) {
			continue
		}
		var b strings.Builder
		b.WriteString(on)
		for j := 0; j < len(l); {
			r, w := utf8.DecodeRuneInString(l[j:])
			if st, ok := styles[r]; ok {
				if r == markOpenHL || r == markOpenCur {
					curLine = i
				}
				if st.close {
					b.WriteString(st.glyph + markOff)
					on = ""
				} else {
					on = st.on
					b.WriteString(on + st.glyph)
				}
				j += w
				continue
			}
			if on != "" && l[j] == 0x1b && j+1 < len(l) && l[j+1] == '[' {
				k := j + 2
				for k < len(l) && (l[k] < 0x40 || l[k] > 0x7e) {
					k++
				}
				if k < len(l) {
					k++
				}
				b.WriteString(l[j:k])
				if l[k-1] == 'm' {
					b.WriteString(on)
				}
				j = k
				continue
			}
			b.WriteString(l[j : j+w])
			j += w
		}
		if on != "" {
			b.WriteString(markOff)
		}
		lines[i] = b.String()
	}
	return lines, curLine
}

// answerLines is a finished answer: the gutter, the Markdown with its
// unverified numbers marked (and the one ctrl+g is on), and the footer
// listing the unverified ones.
func (b *block) answerLines(rc renderCtx) []string {
	head := []string{rc.th.assistant.Render("quarry")}
	un := ground.Unverified(b.numbers)
	b.curLine = -1
	if len(un) == 0 && b.current == 0 {
		return append(head, splitLines(rc.markdown(b.text, rc.width), rc.width)...)
	}
	body, cur := applyMarks(splitLines(rc.markdown(markedAnswer(b.text, b.numbers, b.current-1), rc.width), rc.width), warnSGR(rc.th))
	if cur >= 0 {
		b.curLine = len(head) + cur
	}
	out := append(head, body...)
	if len(un) > 0 {
		out = append(out, rc.th.warn.Render(unverifiedFooter(un, rc.width)))
	}
	return out
}

// warnSGR is the warning colour as an SGR sequence, to set inside text
// glamour styled.
func warnSGR(th *theme) string {
	s := th.warn.Render("x")
	if i := strings.IndexByte(s, 'x'); i > 0 {
		return s[:i]
	}
	return ""
}

// unverifiedFooter names the unverified numbers as written, as many as fit
// in width with the hint to ctrl+g kept whole.
func unverifiedFooter(un []ground.Claim, width int) string {
	const hint = " · ctrl+g: sources"
	mark := "  " + unverifiedOpen + unverifiedClose + " "
	what := fmt.Sprintf("%d numbers are in no cell's output: ", len(un))
	if len(un) == 1 {
		what = "1 number is in no cell's output: "
	}
	texts := make([]string, 0, len(un))
	for _, c := range un {
		texts = append(texts, sanitizeLine(c.Text))
	}
	for n := len(texts); n >= 1; n-- {
		list := strings.Join(texts[:n], ", ")
		if n < len(texts) {
			list += ", …"
		}
		if s := mark + what + list + hint; ansi.StringWidth(s) <= width {
			return s
		}
	}
	for _, s := range []string{
		mark + fmt.Sprintf("%d unverified", len(un)) + hint,
		mark + fmt.Sprintf("%d unverified · ctrl+g", len(un)),
	} {
		if ansi.StringWidth(s) <= width {
			return s
		}
	}
	return truncate(mark+fmt.Sprintf("%d unverified", len(un)), width)
}

// numbersView steps through the last checked answer's numbers and shows
// where each comes from; it sits where the input is, under the answer,
// and the answer shows the number it is on.
type numbersView struct {
	claims []ground.Claim
	at     int
	block  *block // the answer, which draws claims[at] highlighted
}

func (v *numbersView) next(step int) {
	n := len(v.claims)
	v.at = ((v.at+step)%n + n) % n
	v.block.setCurrent(v.at)
}

// setCurrent makes the answer draw claim i (-1: none) highlighted.
func (b *block) setCurrent(i int) {
	if i+1 != b.current {
		b.current = max(i+1, 0)
		b.ver++
	}
}

// Render is the view's lines at width: which number, and its source.
func (v *numbersView) Render(rc renderCtx) string {
	c := v.claims[v.at]
	un := len(ground.Unverified(v.claims))
	head := fmt.Sprintf("Numbers: %d of %d (%d unverified) · ctrl+g/↓ next · ↑ back · esc close", v.at+1, len(v.claims), un)
	if ansi.StringWidth(head) > rc.width {
		head = fmt.Sprintf("Numbers: %d of %d · ↓ ↑ · esc", v.at+1, len(v.claims))
	}
	var where string
	switch {
	case !c.Grounded:
		where = rc.th.warn.Render(unverifiedOpen + unverifiedClose + " unverified: in no cell's output")
	case c.Source == nil:
		where = rc.th.ok.Render("✓ grounded")
	case c.Cell != nil:
		where = rc.th.ok.Render("✓ cell "+fmt.Sprint(*c.Cell)) + " · " + sanitizeLine(*c.Source)
	default:
		where = rc.th.ok.Render("✓ attached file") + " · " + sanitizeLine(*c.Source)
	}
	lines := []string{
		truncate(rc.th.dim.Render(head), rc.width),
		truncate(rc.th.prompt.Render("▸ "+sanitizeLine(c.Text))+"  "+where, rc.width),
	}
	return strings.Join(lines, "\n")
}

// numbersKey handles a key while the view is open; false lets the key
// act as usual after the view closed.
func (m *Model) numbersKey(k string) bool {
	switch k {
	case "ctrl+g", "down", "tab", "n":
		m.numbersView.next(1)
		m.showCurrent()
	case "up", "shift+tab", "p":
		m.numbersView.next(-1)
		m.showCurrent()
	case "esc", "q", "enter":
		m.closeNumbers()
	default:
		m.closeNumbers()
		return false
	}
	return true
}

// openNumbers opens the view on the last answer that has numbers, on its
// first number.
func (m *Model) openNumbers() {
	for i := len(m.transcript.blocks) - 1; i >= 0; i-- {
		if b := m.transcript.blocks[i]; b.kind == kindAssistant && len(b.numbers) > 0 {
			m.numbersView = &numbersView{claims: b.numbers, block: b}
			b.setCurrent(0)
			m.showCurrent()
			return
		}
	}
	m.status.hint = "No checked numbers yet."
}

// closeNumbers closes the view; the answer is drawn without the highlight.
func (m *Model) closeNumbers() {
	if m.numbersView != nil {
		m.numbersView.block.setCurrent(-1)
		m.numbersView = nil
	}
}

// showCurrent scrolls the transcript so that the number the view is on is
// on screen.
func (m *Model) showCurrent() {
	v := m.numbersView
	for i, b := range m.transcript.blocks {
		if b == v.block {
			rc := m.rc()
			b.lines(rc) // renders the highlight, and finds its line
			if b.curLine >= 0 {
				m.transcript.show(rc, m.transcriptHeight(), i, b.curLine)
			}
			return
		}
	}
}

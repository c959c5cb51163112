package ui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/quarry-cli/quarry/ground"
)

// An answer's numbers, checked by the session against the cells' outputs:
// the unverified ones are marked in the answer (a dotted underline and a
// "?" after them, which read without colour too) and listed under it;
// ctrl+g steps through all of them (numbersView).

// Private-use runes bracket an unverified number in the Markdown given to
// glamour; after rendering they become the mark. The model's own are
// removed first, so only quarry's exist.
const (
	markOpen  = '\ue000'
	markClose = '\ue001'

	underlineOn  = "\x1b[4:4m" // dotted; a plain underline where dotted is not drawn
	underlineOff = "\x1b[24m"
)

// markedAnswer is the answer's Markdown with its unverified numbers
// bracketed; the claims' offsets are into the same text the turn_done
// event carried.
func markedAnswer(md string, cs []ground.Claim) string {
	var spans [][2]int
	for _, c := range cs {
		if !c.Grounded && c.Start >= 0 && c.End <= len(md) && c.Start < c.End && md[c.Start:c.End] == c.Text {
			spans = append(spans, [2]int{c.Start, c.End})
		}
	}
	if len(spans) == 0 {
		return md
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	var b strings.Builder
	at := 0
	for _, s := range spans {
		if s[0] < at {
			continue
		}
		b.WriteString(stripMarks(md[at:s[0]]))
		b.WriteRune(markOpen)
		b.WriteString(stripMarks(md[s[0]:s[1]]))
		b.WriteRune(markClose)
		at = s[1]
	}
	b.WriteString(stripMarks(md[at:]))
	return b.String()
}

func stripMarks(s string) string {
	if !strings.ContainsAny(s, string([]rune{markOpen, markClose})) {
		return s
	}
	return strings.NewReplacer(string(markOpen), "", string(markClose), "").Replace(s)
}

// applyMarks turns the brackets in rendered lines into the mark. Glamour
// may reset the style inside a number (between its words), so the
// underline is set again after every SGR sequence within it.
func applyMarks(lines []string) []string {
	open := false
	for i, l := range lines {
		if !open && !strings.ContainsAny(l, string([]rune{markOpen, markClose})) {
			continue
		}
		var b strings.Builder
		if open {
			b.WriteString(underlineOn)
		}
		for j := 0; j < len(l); {
			switch {
			case strings.HasPrefix(l[j:], string(markOpen)):
				open = true
				b.WriteString(underlineOn)
				j += len(string(markOpen))
			case strings.HasPrefix(l[j:], string(markClose)):
				open = false
				b.WriteString(underlineOff + "?")
				j += len(string(markClose))
			case open && l[j] == 0x1b && j+1 < len(l) && l[j+1] == '[':
				k := j + 2
				for k < len(l) && (l[k] < 0x40 || l[k] > 0x7e) {
					k++
				}
				if k < len(l) {
					k++
				}
				b.WriteString(l[j:k])
				if l[k-1] == 'm' {
					b.WriteString(underlineOn)
				}
				j = k
			default:
				b.WriteByte(l[j])
				j++
			}
		}
		if open {
			b.WriteString(underlineOff)
		}
		lines[i] = b.String()
	}
	return lines
}

// answerLines is a finished answer: the gutter, the Markdown with its
// unverified numbers marked, and the footer listing them.
func (b *block) answerLines(rc renderCtx) []string {
	head := []string{rc.th.assistant.Render("quarry")}
	un := ground.Unverified(b.numbers)
	if len(un) == 0 {
		return append(head, splitLines(rc.markdown(b.text, rc.width), rc.width)...)
	}
	body := applyMarks(splitLines(rc.markdown(markedAnswer(b.text, b.numbers), rc.width), rc.width))
	return append(append(head, body...), truncate(rc.th.warn.Render(unverifiedFooter(un)), rc.width))
}

// unverifiedFooter names the unverified numbers as written.
func unverifiedFooter(un []ground.Claim) string {
	texts := make([]string, 0, len(un))
	for _, c := range un {
		texts = append(texts, sanitizeLine(c.Text))
	}
	what := "numbers are"
	if len(un) == 1 {
		what = "number is"
	}
	return fmt.Sprintf("  ? %d %s in no cell's output: %s · ctrl+g: sources", len(un), what, strings.Join(texts, ", "))
}

// numbersView steps through the last checked answer's numbers and shows
// where each comes from; it sits where the input is, under the answer.
type numbersView struct {
	claims []ground.Claim
	at     int
}

func (v *numbersView) next(step int) {
	n := len(v.claims)
	v.at = ((v.at+step)%n + n) % n
}

// Render is the view's lines at width: which number, and its source.
func (v *numbersView) Render(rc renderCtx) string {
	c := v.claims[v.at]
	un := len(ground.Unverified(v.claims))
	head := fmt.Sprintf("Numbers: %d of %d (%d unverified) · ctrl+g/↓ next · ↑ back · esc close", v.at+1, len(v.claims), un)
	var where string
	switch {
	case !c.Grounded:
		where = rc.th.warn.Render("? unverified: in no cell's output")
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
	case "up", "shift+tab", "p":
		m.numbersView.next(-1)
	case "esc", "q", "enter":
		m.numbersView = nil
	default:
		m.numbersView = nil
		return false
	}
	return true
}

// openNumbers opens the view on the last answer that has numbers.
func (m *Model) openNumbers() {
	for i := len(m.transcript.blocks) - 1; i >= 0; i-- {
		if b := m.transcript.blocks[i]; b.kind == kindAssistant && len(b.numbers) > 0 {
			m.numbersView = &numbersView{claims: b.numbers}
			return
		}
	}
	m.status.hint = "No checked numbers yet."
}

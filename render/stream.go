package render

import (
	"fmt"
	"strings"
)

// Stream renders one answer that grows while the model streams it. It keeps
// the rendering of the stable prefix — the text up to the last safe Markdown
// boundary — and re-renders only the last stable block plus the tail on each
// update, so an update costs the size of the tail, not of the whole answer
// (re-rendering everything on every chunk grows with the square of it).
//
// A safe boundary is a blank line outside a fenced code block whose next
// line is complete and starts a top-level block that can neither continue
// nor merge with the one before (not indented, not a list item, not a
// definition, not HTML, not a link definition).
//
// Why the last block is rendered again: glamour lays out a block depending
// on whether it is the document's first and lets a block's trailing styled
// newline share a line with the next block, so the stable output ends at the
// last complete line that cannot change, and the junction is rendered with
// its neighbour. TestStreamEqualsFullRender and TestStreamRandomDocuments
// compare the bytes with a full render at many cuts.
//
// Not safe for concurrent use: it shares its Markdown's renderers.
type Stream struct {
	md    *Markdown
	width int
	style Style

	clean     string // sanitized text covered by committed blocks
	lastStart int    // offset in clean where the last committed block starts
	out       string // rendered output that can no longer change
	skip      string // complete lines of render(context + last block): already in out
	fallbacks int    // full renders because the layout was not as expected (tests)
}

// NewStream starts a streaming rendering at width columns.
func (m *Markdown) NewStream(width int, style Style) *Stream {
	return &Stream{md: m, width: width, style: style}
}

// Resize changes the width; the cached prefix is dropped when it changes.
func (s *Stream) Resize(width int) {
	if width != s.width {
		s.width = width
		s.reset()
	}
}

func (s *Stream) reset() {
	s.clean, s.lastStart, s.out, s.skip = "", 0, "", ""
}

// Render returns the rendering of full, the whole answer so far (not a
// delta). A text that does not extend the previous one starts over.
func (s *Stream) Render(full string) (string, error) {
	text := Sanitize(full)
	if !strings.HasPrefix(text, s.clean) {
		s.reset()
	}
	if hasLinkDefinition(text) {
		// A link definition changes links anywhere before it, even in
		// blocks already rendered: such answers are rendered whole.
		s.reset()
		return s.md.renderClean(text, s.width, s.style)
	}
	for _, cut := range boundaries(text, len(s.clean)) {
		if err := s.commit(text, cut); err != nil {
			s.reset()
			return s.fallback(text)
		}
	}
	if s.clean == "" {
		return s.md.renderClean(text, s.width, s.style)
	}
	out, err := s.md.renderClean(s.context()+text[s.lastStart:], s.width, s.style)
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(out, s.skip) {
		return s.fallback(text)
	}
	return s.out + out[len(s.skip):], nil
}

func (s *Stream) fallback(text string) (string, error) {
	s.fallbacks++
	return s.md.renderClean(text, s.width, s.style)
}

// context is what precedes the last committed block when it is rendered
// again: nothing for the document's first block, else a plain paragraph so
// that glamour treats the block as a later sibling.
func (s *Stream) context() string {
	if s.lastStart == 0 {
		return ""
	}
	return sentinel
}

const sentinel = "x\n\n"

// commit makes text[len(s.clean):cut] the new last committed block.
func (s *Stream) commit(text string, cut int) error {
	start := len(s.clean)
	if start == 0 {
		r, err := s.md.renderClean(text[:cut], s.width, s.style)
		if err != nil {
			return err
		}
		s.out = completeLines(r)
		s.skip = s.out
		s.clean, s.lastStart = text[:cut], 0
		return nil
	}
	// The junction of the last block and the new one, then the new one.
	joined, err := s.md.renderClean(s.context()+text[s.lastStart:cut], s.width, s.style)
	if err != nil {
		return err
	}
	done := completeLines(joined)
	if !strings.HasPrefix(done, s.skip) {
		return fmt.Errorf("markdown stream: unexpected layout")
	}
	alone, err := s.md.renderClean(sentinel+text[start:cut], s.width, s.style)
	if err != nil {
		return err
	}
	s.out += done[len(s.skip):]
	s.skip = completeLines(alone)
	s.clean, s.lastStart = text[:cut], start
	return nil
}

// completeLines drops glamour's document suffix (one newline) and the
// unfinished last line that the next block may continue.
func completeLines(r string) string {
	r = strings.TrimSuffix(r, "\n")
	return r[:strings.LastIndexByte(r, '\n')+1]
}

// boundaries returns the safe boundaries in text after from (which is
// itself a boundary, outside any fence), in order.
func boundaries(text string, from int) []int {
	var cuts []int
	var fence string // the opening fence run while inside a fenced block
	var html string  // the end marker while inside an HTML block that spans blank lines
	blank := false   // the previous line was blank, outside a fence
	for i := from; i < len(text); {
		nl := strings.IndexByte(text[i:], '\n')
		if nl < 0 {
			break // an incomplete line decides nothing yet
		}
		line := text[i : i+nl]
		next := i + nl + 1
		switch {
		case fence != "":
			if closesFence(line, fence) {
				fence = ""
			}
		case html != "":
			if strings.Contains(strings.ToLower(line), html) {
				html = ""
			}
		case strings.TrimSpace(line) == "":
			blank = true
		default:
			if blank && i > from && startsNewBlock(line) {
				cuts = append(cuts, i)
			}
			blank = false
			fence = opensFence(line)
			html = opensHTML(line)
			if html != "" && strings.Contains(strings.ToLower(line)[1:], html) {
				html = "" // opened and closed on one line
			}
		}
		i = next
	}
	return cuts
}

// startsNewBlock reports whether a line after a blank line starts a block
// that can neither continue nor join the block before it.
func startsNewBlock(line string) bool {
	switch c := line[0]; {
	case c == ' ' || c == '\t': // list continuation, indented code
		return false
	case c == ':' || c == '<' || c == '[':
		// definitions, HTML blocks, link reference definitions
		return false
	case c == '-' || c == '*' || c == '+': // a bullet item, not "---" or "*emphasis*"
		return !spaceAt(line, 1)
	case c >= '0' && c <= '9': // an ordered item: up to 9 digits, then "." or ")"
		i := 1
		for i < len(line) && i < 10 && line[i] >= '0' && line[i] <= '9' {
			i++
		}
		return !(i < len(line) && (line[i] == '.' || line[i] == ')') && spaceAt(line, i+1))
	}
	return true
}

// spaceAt reports whether line ends at i or has a space or tab there.
func spaceAt(line string, i int) bool {
	return i >= len(line) || line[i] == ' ' || line[i] == '\t'
}

func opensFence(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 {
		return ""
	}
	c := t[0]
	if c != '`' && c != '~' {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 || (c == '`' && strings.ContainsRune(t[n:], '`')) {
		return ""
	}
	return t[:n]
}

func closesFence(line, fence string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return false
	}
	n := 0
	for n < len(t) && t[n] == fence[0] {
		n++
	}
	return n >= len(fence) && strings.TrimSpace(t[n:]) == ""
}

// opensHTML returns the end marker of an HTML block that may contain blank
// lines (CommonMark types 1 and 2), or "".
func opensHTML(line string) string {
	t := strings.ToLower(strings.TrimLeft(line, " "))
	if len(line)-len(t) > 3 || !strings.HasPrefix(t, "<") {
		return ""
	}
	if strings.HasPrefix(t, "<!--") {
		return "-->"
	}
	for _, tag := range []string{"pre", "script", "style", "textarea"} {
		if strings.HasPrefix(t[1:], tag) && (len(t) == len(tag)+1 || strings.ContainsRune(" \t>", rune(t[len(tag)+1]))) {
			return "</" + tag + ">"
		}
	}
	return ""
}

// hasLinkDefinition reports whether a line looks like a link reference
// definition ("[label]: destination"), outside code or not.
func hasLinkDefinition(text string) bool {
	if !strings.Contains(text, "]:") {
		return false
	}
	for line := range strings.Lines(text) {
		t := strings.TrimLeft(line, " ")
		if len(line)-len(t) > 3 || !strings.HasPrefix(t, "[") {
			continue
		}
		if end := strings.Index(t, "]:"); end > 1 {
			return true
		}
	}
	return false
}

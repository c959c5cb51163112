package render

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Text breaks at spaces, and at the extra breaks a caller allows (after a
// "/" in a path, after a "," in code), never at a hyphen: ansi.Wrap (and
// glamour, through lipgloss) always breaks after one, which cuts paths and
// commands in two where they cannot be copied (quarry-output/20261203- /
// 112054-3052ef) and leaves a minus sign at the end of a line (-2,000).
// While wrapping, such hyphens are a non-breaking hyphen of the same width,
// put back afterwards.

// nbHyphen stands in for a hyphen while text is wrapped.
const nbHyphen = '\u2011'

// Wrap wraps s at width columns at spaces, keeping escape sequences; only
// a line holding a word longer than the width also breaks after the runes
// of breaks (and cuts a word that has none).
func Wrap(s string, width int, breaks string) string {
	if width < 1 {
		return s
	}
	s, units := protectUnits(s)
	lines := strings.Split(protectHyphens(s), "\n")
	for i, l := range lines {
		w := ansi.Wordwrap(l, width, "")
		for _, part := range strings.Split(w, "\n") {
			if ansi.StringWidth(part) > width {
				w = ansi.Wrap(l, width, breaks)
				break
			}
		}
		lines[i] = w
	}
	out := unprotectHyphens(strings.Join(lines, "\n"))
	if units {
		out = strings.ReplaceAll(out, string(nbSpace), " ")
	}
	return out
}

// A quantity and its unit, and a table's shape, read as one: "12.1 KiB",
// "1,200 × 7" never end a line at their inner space. ansi.Wordwrap keeps
// a no-break space, so they get one while wrapped; text that has one of
// its own is left as it is (which no-break spaces to put back could not be
// told apart).
const nbSpace = '\u00a0'

var unitSpace = regexp.MustCompile(`(\d) (×|[KMGT]iB\b|B\b)( \d)?`)

func protectUnits(s string) (string, bool) {
	if strings.ContainsRune(s, nbSpace) || !unitSpace.MatchString(s) {
		return s, false
	}
	return unitSpace.ReplaceAllStringFunc(s, func(m string) string {
		return strings.ReplaceAll(m, " ", string(nbSpace))
	}), true
}

// WrapCode wraps a line of code at width columns at spaces and after any of
// breaks (",([{."), where the line reads best, never at a minus sign.
func WrapCode(s string, width int, breaks string) string {
	return unprotectHyphens(ansi.Wrap(protectHyphens(s), width, breaks))
}

// protectHyphens turns each run of hyphens that joins a word to what
// follows it (a path, a compound word, a minus sign, --resume) into
// nbHyphens. A run followed by a space, a "|" or the end (a list marker,
// a rule, a table's separator) stays, so Markdown reads the same.
func protectHyphens(s string) string {
	if !strings.Contains(s, "-") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		if s[i] != '-' {
			b.WriteByte(s[i])
			continue
		}
		j := i
		for j < len(s) && s[j] == '-' {
			j++
		}
		if r, _ := utf8.DecodeRuneInString(s[j:]); unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteString(strings.Repeat(string(nbHyphen), j-i))
		} else {
			b.WriteString(s[i:j])
		}
		i = j - 1
	}
	return b.String()
}

func unprotectHyphens(s string) string {
	return strings.ReplaceAll(s, string(nbHyphen), "-")
}

// protectMarkdownHyphens is protectHyphens outside code blocks: glamour
// does not wrap a fenced or indented block, and its lexer must see real
// minus signs there. Inline code is wrapped with the text, so a path or a
// command in backticks is protected too.
func protectMarkdownHyphens(md string) string {
	if !strings.Contains(md, "-") {
		return md
	}
	return outsideCodeBlocks(md, protectHyphens)
}

// outsideCodeBlocks applies f to each line of md that is not in a fenced
// or indented code block.
func outsideCodeBlocks(md string, f func(string) string) string {
	lines := strings.Split(md, "\n")
	fence := false
	for i, l := range lines {
		if t := strings.TrimLeft(l, " "); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			continue
		}
		if fence || strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") {
			continue
		}
		lines[i] = f(l)
	}
	return strings.Join(lines, "\n")
}

// pathBreak follows each "/" of a long path while glamour wraps an answer:
// a space to its wrap (a line may end there, and the mark goes with the
// break), taken out of the rendered text, so the path breaks after a "/"
// where glamour would cut it at the width, inside a name.
const pathBreak = '\u2008'

var word = regexp.MustCompile(`\S+`)

// markLongPaths puts a pathBreak after each inner "/" of a word too wide
// for its line whose names each fit one, outside code blocks and tables
// (whose columns glamour sizes with the mark in) and links (whose targets
// must stay whole). A path that fits a line moves to the next whole; a
// name wider than the line is cut anyway, as glamour cuts it.
func markLongPaths(md string, width int) string {
	md = strings.ReplaceAll(md, string(pathBreak), " ")
	if !strings.Contains(md, "/") {
		return md
	}
	return outsideCodeBlocks(md, func(l string) string {
		if !strings.Contains(l, "/") || strings.HasPrefix(strings.TrimSpace(l), "|") {
			return l
		}
		// glamour's margins, and a list item's indent and marker
		line := width - 4 - len(sourceItem.FindString(l))
		return word.ReplaceAllStringFunc(l, func(w string) string {
			if ansi.StringWidth(w) <= line || strings.Contains(w, "://") || strings.Contains(w, "](") || strings.HasPrefix(w, "<") {
				return w
			}
			for _, name := range strings.SplitAfter(w, "/") {
				if ansi.StringWidth(name) > line {
					return w
				}
			}
			inner, last := w[:len(w)-1], w[len(w)-1:]
			return strings.ReplaceAll(inner, "/", "/"+string(pathBreak)) + last
		})
	})
}

func unmarkPaths(s string) string { return strings.ReplaceAll(s, string(pathBreak), "") }

var (
	itemStart = regexp.MustCompile(`^( *)([-*•]|[0-9]+[.)]) +`)
	// twoColumns is a line laid out as a table: a first column, two or
	// more spaces, the second.
	twoColumns = regexp.MustCompile(`^( *\S(?:\S| \S)*)  +\S`)
)

// WrapLines wraps each line of s at width (Wrap: word boundaries, breaks as
// the extra characters an over-long word may break after), each continued
// under where its text starts: a list item's text, a table's second
// column, the line's own indent.
func WrapLines(s string, width int, breaks string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, wrapHanging(l, width, hangOf(ansi.Strip(l), width), breaks)...)
	}
	return out
}

// hangOf is where the continued lines of line start: under a list item's
// text, under a second column, or under the line's own indent.
func hangOf(line string, width int) int {
	indent := len(line) - len(strings.TrimLeft(line, " "))
	hang := indent
	if m := itemStart.FindStringIndex(line); m != nil {
		hang = ansi.StringWidth(line[:m[1]])
	} else if m := twoColumns.FindStringSubmatchIndex(line); m != nil {
		hang = ansi.StringWidth(line[:m[1]-1])
	}
	if hang > width/2 {
		return min(indent, width/2)
	}
	return hang
}

// wrapHanging wraps one line at width, its continued lines indented by hang.
func wrapHanging(line string, width, hang int, breaks string) []string {
	if width <= 0 || ansi.StringWidth(line) <= width {
		return []string{line}
	}
	head := ansi.Truncate(line, hang, "")
	rest := ansi.TruncateLeft(line, hang, "")
	parts := strings.Split(Wrap(rest, max(width-hang, 1), breaks), "\n")
	out := []string{head + parts[0]}
	pad := strings.Repeat(" ", hang)
	for _, p := range parts[1:] {
		out = append(out, pad+strings.TrimLeft(p, " "))
	}
	return out
}

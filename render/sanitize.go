package render

import "unicode/utf8"

// Sanitize makes untrusted multi-line text (model answers, cell output)
// safe to write to a terminal. It removes every escape sequence — CSI
// (including SGR colours: quarry styles text itself afterwards), OSC, DCS,
// APC, PM, SOS and two-byte ESC sequences — and every C0/C1 control except
// \n and \t, DEL, and bidirectional overrides.
// Invalid UTF-8 becomes U+FFFD.
//
// Carriage returns: "\r\n" is a newline; a lone \r keeps only the text
// written after it on that line, as a terminal would show a progress bar's
// final state, so a thousand tqdm updates do not become a thousand lines.
func Sanitize(s string) string {
	return sanitize(s, multiLine)
}

// SanitizeLine is Sanitize for text shown on one line (file names, column
// names, chips): \n, \r and \t become single spaces.
func SanitizeLine(s string) string {
	return sanitize(s, oneLine)
}

// sanitizeRendered cleans glamour's output, which is made from sanitized
// text but not safe: Markdown decodes character references, so "&#27;[2J"
// becomes a live escape after Sanitize ran. Only SGR (glamour's colours)
// survives; its OSC 8 links go too, since the model chose their targets.
func sanitizeRendered(s string) string {
	return sanitize(s, rendered)
}

type sanitizeMode uint8

const (
	multiLine sanitizeMode = iota
	oneLine
	rendered // multi-line, keeps SGR sequences, drops \r
)

const (
	esc = 0x1b
	bel = 0x07
	can = 0x18
	sub = 0x1a
	del = 0x7f

	c1CSI = 0x9b
	c1ST  = 0x9c

	kittyPlaceholder = 0x10eeee
)

// sanitize walks runes (so raw 8-bit bytes are already U+FFFD and a C1
// control can only arrive as its UTF-8 encoding) and writes what is safe.
// A C1 string control (DCS U+0090, SOS, OSC, PM, APC) is dropped on its
// own, never with the text after it: in UTF-8 text it is almost always
// mojibake (cp1252 bytes read as latin-1), and once it is gone the text that
// follows is plain text to a terminal.
func sanitize(s string, mode sanitizeMode) string {
	if isPlain(s, mode == oneLine) {
		return s
	}
	b := make([]byte, 0, len(s))
	lineStart := 0 // offset in b where the current output line starts
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < del {
			// Copy a run of printable ASCII at once: the common case.
			j := i + 1
			for j < len(s) && s[j] >= 0x20 && s[j] < del {
				j++
			}
			b = append(b, s[i:j]...)
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
			i++
			continue
		}
		switch {
		case r == esc:
			if mode == rendered {
				if end := sgrEnd(s, i); end > 0 {
					b = append(b, s[i:end]...)
					i = end
					continue
				}
			}
			i = skipEscape(s, i+1)
			continue
		case r == c1CSI:
			// Bounded (parameters and one final byte), so it goes whole as
			// in a terminal; string controls below go alone.
			i = skipCSI(s, i+size)
			continue
		case r == '\n':
			if mode == oneLine {
				b = append(b, ' ')
			} else {
				b = append(b, '\n')
				lineStart = len(b)
			}
		case r == '\t':
			if mode == oneLine {
				b = append(b, ' ')
			} else {
				b = append(b, '\t')
			}
		case r == '\r':
			if mode == oneLine {
				b = append(b, ' ')
				break
			}
			if mode == rendered {
				break // glamour writes none: it came from a decoded "&#13;"
			}
			next := i + 1
			for next < len(s) && s[next] == '\r' {
				next++
			}
			if next >= len(s) || s[next] == '\n' {
				break // "\r\n" or a trailing \r: the line stays as shown
			}
			b = b[:lineStart] // the line is rewritten from its start
		case r < 0x20 || r == del || (r >= 0x80 && r <= 0x9f):
			// other C0 and C1 controls: dropped
		case isBidiControl(r):
			// Trojan-Source style reordering of file names and code
		case r == kittyPlaceholder:
			// would show one of quarry's kitty images where the text is
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(b)
}

// isPlain reports whether s needs no change: printable ASCII plus allowed
// whitespace. It keeps the common case allocation-free.
func isPlain(s string, oneLine bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < del {
			continue
		}
		if !oneLine && (c == '\n' || c == '\t') {
			continue
		}
		return false
	}
	return true
}

func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

// sgrEnd returns the end of the SGR sequence (ESC [ digits ; : m) that
// starts at s[i], or 0 when there is none.
func sgrEnd(s string, i int) int {
	if i+1 >= len(s) || s[i+1] != '[' {
		return 0
	}
	for j := i + 2; j < len(s); j++ {
		switch c := s[j]; {
		case c == 'm':
			return j + 1
		case c != ';' && c != ':' && (c < '0' || c > '9'):
			return 0
		}
	}
	return 0
}

// skipEscape is called just after an ESC at s[i-1] and returns where normal
// text resumes.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i // lone ESC at the end
	}
	switch c := s[i]; {
	case c == '[':
		return skipCSI(s, i+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return skipString(s, i+1)
	case c >= 0x20 && c <= 0x2f:
		// nF: intermediates then one final byte (ESC ( B, ESC # 8, ESC SP F)
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
			i++
		}
		if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
			i++
		}
		return i
	case c >= 0x30 && c <= 0x7e:
		return i + 1 // Fp/Fe/Fs: ESC 7, ESC c (reset), ESC M, ESC =
	default:
		return i // ESC before a control or non-ASCII: drop the ESC only
	}
}

// skipCSI skips parameter and intermediate bytes and the final byte. A byte
// that cannot belong to a CSI ends it, as in a terminal's parser; that byte
// is then handled as ordinary input.
func skipCSI(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c >= 0x20 && c <= 0x3f: // parameters and intermediates
			i++
		case c >= 0x40 && c <= 0x7e: // final
			return i + 1
		default:
			return i
		}
	}
	return i
}

// skipString skips an OSC, DCS, SOS, PM or APC body up to and including its
// terminator: BEL, ST (ESC \ or U+009C). CAN and SUB abort it; an ESC that
// does not start ST ends it and starts a new sequence. An unterminated string
// runs to the end of the input, exactly as a terminal would swallow it.
func skipString(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c == bel:
			return i + 1
		case c == can || c == sub:
			return i + 1
		case c == esc:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i // the caller sees the ESC and skips what it starts
		case c == 0xc2 && i+1 < len(s) && s[i+1] == c1ST:
			return i + 2
		}
		i++
	}
	return i
}

package agent

import (
	"bytes"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Streamed fragments may end inside a UTF-8 sequence (raw bytes on the
// wire) or between the two halves of a \uD83D\uDE00 surrogate pair. Go's
// JSON decoder would turn either into U+FFFD, so fragments are unquoted here
// into raw bytes, lone surrogates kept as 3-byte WTF-8, and repaired once the
// whole text is known.

// unquoteRaw decodes a JSON string literal (with its quotes) into bytes,
// keeping invalid UTF-8 and lone surrogates as they are. null gives nil.
func unquoteRaw(lit []byte) ([]byte, error) {
	lit = bytes.TrimSpace(lit)
	if len(lit) == 0 || string(lit) == "null" {
		return nil, nil
	}
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return nil, errors.New("not a JSON string")
	}
	s := lit[1 : len(lit)-1]
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(s) {
			return nil, errors.New("dangling backslash")
		}
		switch s[i] {
		case '"', '\\', '/':
			out = append(out, s[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if i+5 > len(s) {
				return nil, errors.New("short \\u escape")
			}
			v, err := strconv.ParseUint(string(s[i+1:i+5]), 16, 16)
			if err != nil {
				return nil, errors.New("bad \\u escape")
			}
			out = appendWTF8(out, rune(v))
			i += 4
		default:
			return nil, errors.New("bad escape")
		}
	}
	return out, nil
}

// appendWTF8 encodes r, including a lone surrogate, as UTF-8-style bytes.
func appendWTF8(b []byte, r rune) []byte {
	if r >= 0xD800 && r <= 0xDFFF {
		return append(b, byte(0xE0|r>>12), byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(b, r)
}

// joinSurrogates turns WTF-8 surrogate pairs into proper UTF-8 and makes
// the rest valid, replacing what cannot be repaired with U+FFFD.
func joinSurrogates(b []byte) string {
	var out []byte
	for i := 0; i < len(b); {
		if hi, ok := surrogateAt(b, i); ok && hi < 0xDC00 {
			if lo, ok := surrogateAt(b, i+3); ok && lo >= 0xDC00 {
				out = utf8.AppendRune(out, utf16.DecodeRune(hi, lo))
				i += 6
				continue
			}
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			if _, ok := surrogateAt(b, i); ok {
				size = 3
			}
			out = utf8.AppendRune(out, utf8.RuneError)
			i += max(size, 1)
			continue
		}
		out = append(out, b[i:i+size]...)
		i += size
	}
	return string(out)
}

func surrogateAt(b []byte, i int) (rune, bool) {
	if i < 0 || i+3 > len(b) || b[i] != 0xED || b[i+1] < 0xA0 || b[i+1] > 0xBF || b[i+2]&0xC0 != 0x80 {
		return 0, false
	}
	return 0xD000 | rune(b[i+1]&0x3F)<<6 | rune(b[i+2]&0x3F), true
}

// completePrefix is how many leading bytes of b can be shown now: it holds
// back an unfinished UTF-8 sequence or a high surrogate waiting for its pair.
func completePrefix(b []byte) int {
	n := len(b)
	if hi, ok := surrogateAt(b, n-3); ok && hi < 0xDC00 {
		return n - 3
	}
	for k := 1; k <= 3 && k <= n; k++ {
		c := b[n-k]
		if c&0xC0 == 0x80 { // continuation byte: keep looking for the lead
			continue
		}
		need := 0
		switch {
		case c&0xE0 == 0xC0:
			need = 2
		case c&0xF0 == 0xE0:
			need = 3
		case c&0xF8 == 0xF0:
			need = 4
		}
		if need > k {
			return n - k
		}
		break
	}
	return n
}

package render

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// kittyChunk is the largest base64 payload per escape the protocol allows.
const kittyChunk = 4096

// kittyChunks sends data base64-encoded in chunks, keys on the first one.
func kittyChunks(data []byte, keys string) string {
	enc := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	b.Grow(len(enc) + len(enc)/kittyChunk*16 + 64)
	for first := true; ; first = false {
		chunk := enc
		more := 0
		if len(chunk) > kittyChunk {
			chunk, more = enc[:kittyChunk], 1
		}
		enc = enc[len(chunk):]
		b.WriteString("\x1b_G")
		if first {
			b.WriteString(keys)
		}
		fmt.Fprintf(&b, "m=%d;%s\x1b\\", more, chunk)
		if more == 0 {
			return b.String()
		}
	}
}

// ITerm draws PNG bytes with the iTerm2 inline image protocol (OSC 1337),
// also understood by WezTerm and others, filling cols × rows cells exactly
// (the chat sizes the cells to the picture, so it is not distorted, and a
// picture that fills them leaves nothing of an earlier one showing).
func ITerm(data []byte, name string, cols, rows int) string {
	var b strings.Builder
	b.WriteString("\x1b]1337;File=inline=1")
	if name = SanitizeLine(name); name != "" {
		b.WriteString(";name=" + base64.StdEncoding.EncodeToString([]byte(name)))
	}
	fmt.Fprintf(&b, ";size=%d;width=%d;height=%d;preserveAspectRatio=0:", len(data), cols, rows)
	b.WriteString(base64.StdEncoding.EncodeToString(data))
	b.WriteString("\x07")
	return b.String()
}

// Hyperlink wraps text in an OSC 8 link to a host file. Both are sanitized;
// the URL is percent-encoded, so the path cannot end the escape early.
func Hyperlink(path, text string) string {
	text = SanitizeLine(text)
	if text == "" {
		text = SanitizeLine(path)
	}
	return "\x1b]8;;" + FileURL(path) + "\x1b\\" + text + "\x1b]8;;\x1b\\"
}

// FileURL is a file:// URL for an absolute host path, every segment
// percent-encoded (spaces, ';', controls, non-ASCII).
func FileURL(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = pathEscape(s)
	}
	p := strings.Join(segs, "/")
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return "file://" + p
}

// pathEscape keeps only unreserved characters (RFC 3986) as they are.
func pathEscape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

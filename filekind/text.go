package filekind

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// textInfo is what the text rules found in a probe's head.
type textInfo struct {
	ok             bool // text: no NUL bytes, or UTF-16/32
	json           bool // one JSON value opening with { or [ (perhaps cut by the head's end)
	jsonLines      bool // a JSON object on the first line, and the next line opens another
	html           bool
	xml            bool
	xmlSpreadsheet bool
	rtf            bool
	ext            string // .tsv, .csv or .txt: what the first line's delimiters suggest
}

func (p *probe) text() *textInfo {
	if p.txt == nil {
		p.txt = readText(p.head)
	}
	return p.txt
}

// delimited is the rule of delimited text: any text no other text kind
// claims. The profile finds the delimiter, or that there is none.
func delimited(p *probe) bool {
	t := p.text()
	return t.ok && !t.json && !t.jsonLines && !t.html && !t.xml && !t.xmlSpreadsheet && !t.rtf
}

func readText(head []byte) *textInfo {
	t := &textInfo{}
	s, ok := asUTF8(head)
	if !ok {
		return t
	}
	t.ok = true
	s = bytes.TrimLeft(s, " \t\r\n")
	low := bytes.ToLower(s[:min(len(s), 4096)])
	switch {
	case bytes.HasPrefix(s, []byte(`{\rtf`)):
		t.rtf = true
	case len(s) > 0 && (s[0] == '{' || s[0] == '['):
		t.json, t.jsonLines = jsonShape(s)
	case bytes.HasPrefix(low, []byte("<!doctype html")) || bytes.HasPrefix(low, []byte("<html")) ||
		len(low) > 0 && low[0] == '<' && (bytes.Contains(low, []byte("<html")) || bytes.Contains(low, []byte("<table"))):
		t.html = true
	case bytes.HasPrefix(low, []byte("<?xml")) && bytes.Contains(low, []byte("urn:schemas-microsoft-com:office:spreadsheet")):
		t.xmlSpreadsheet = true
	case bytes.HasPrefix(low, []byte("<?xml")):
		t.xml = true
	}
	line := s
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	tabs, commas, semis := bytes.Count(line, []byte("\t")), bytes.Count(line, []byte(",")), bytes.Count(line, []byte(";"))
	switch {
	case tabs > 0 && tabs >= commas && tabs >= semis:
		t.ext = ".tsv"
	case commas > 0 || semis > 0:
		t.ext = ".csv"
	default:
		t.ext = ".txt"
	}
	return t
}

// asUTF8 is the head as UTF-8 for the text rules (a byte-order mark
// dropped, UTF-16 decoded; other 8-bit text as it is), and whether it is
// text at all: no NUL bytes but in UTF-16 or UTF-32.
func asUTF8(b []byte) ([]byte, bool) {
	switch {
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE, 0, 0}) || bytes.HasPrefix(b, []byte{0, 0, 0xFE, 0xFF}):
		return nil, true // UTF-32: text, too rare for the finer rules
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return fromUTF16(b[2:], binary.LittleEndian), true
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return fromUTF16(b[2:], binary.BigEndian), true
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		b = b[3:]
	}
	if bytes.IndexByte(b, 0) < 0 {
		return b, true
	}
	// Excel and some databases write UTF-16 without a mark: every other
	// byte is NUL for Latin text.
	s := b[:min(len(b), 4096)]
	if len(s) < 8 {
		return nil, false
	}
	even, odd := bytes.Count(evenBytes(s, 0), []byte{0}), bytes.Count(evenBytes(s, 1), []byte{0})
	switch {
	case odd*10 > 9*(len(s)/2) && even == 0:
		return fromUTF16(b, binary.LittleEndian), true
	case even*10 > 9*(len(s)/2) && odd == 0:
		return fromUTF16(b, binary.BigEndian), true
	}
	return nil, false
}

func evenBytes(b []byte, from int) []byte {
	out := make([]byte, 0, len(b)/2+1)
	for i := from; i < len(b); i += 2 {
		out = append(out, b[i])
	}
	return out
}

func fromUTF16(b []byte, order binary.ByteOrder) []byte {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = order.Uint16(b[2*i:])
	}
	var out []byte
	for _, r := range utf16.Decode(u) {
		out = utf8.AppendRune(out, r)
	}
	return out
}

// jsonShape tells a JSON document (one value, perhaps longer than the
// head) and JSON lines (an object per line) apart. One line holding one
// object is both.
func jsonShape(s []byte) (doc, lines bool) {
	dec := json.NewDecoder(bytes.NewReader(s))
	var v json.RawMessage
	switch err := dec.Decode(&v); {
	case err == nil:
		rest := bytes.TrimSpace(s[dec.InputOffset():])
		doc = len(rest) == 0
	case errors.Is(err, io.ErrUnexpectedEOF):
		doc = true // cut by the head's end, or a damaged file the profile reports
	}
	first, rest, _ := bytes.Cut(s, []byte("\n"))
	first = bytes.TrimSpace(first)
	if len(first) == 0 || first[0] != '{' || !json.Valid(first) {
		return doc, false
	}
	rest = bytes.TrimLeft(rest, " \t\r\n")
	return doc, len(rest) == 0 || rest[0] == '{'
}

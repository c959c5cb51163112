package notebook

import (
	"strings"
)

// A small scanner of Python source: enough to tell string literals,
// comments and code apart, so paths inside literals can be rewritten and
// the words of shell lines found, without a Python on the host.

// pyString is one string literal in the source.
type pyString struct {
	start, end int    // byte offsets of the whole literal, prefix included
	prefix     string // r, b, f, rb... as written
	quote      string // ' " ''' or """
	body       string // between the quotes, as written (escapes not decoded)
	callee     string // the name called right before it, e.g. read_csv for pd.read_csv('x')
	// call is the innermost call the literal is an argument of (-1 when
	// none): an index into the calls scanPythonCalls returns; arg is its
	// position among the call's positional arguments, kw its keyword ("" for
	// a positional one).
	call int
	arg  int
	kw   string
}

// pyCall is one call in the source: name(...), the name as written last
// (to_csv for df.to_csv), end just past its closing parenthesis (0 while
// unclosed).
type pyCall struct {
	name       string
	start, end int
}

// frame is an open bracket: a call's parenthesis (call >= 0) or another.
type frame struct {
	call int
	arg  int
	kw   string
}

func (s pyString) bytes() bool { return strings.ContainsAny(s.prefix, "bB") }
func (s pyString) fmt() bool   { return strings.ContainsAny(s.prefix, "fF") }

// scanPython finds the string literals of src.
func scanPython(src string) []pyString {
	strs, _ := scanPythonCalls(src)
	return strs
}

// scanPythonCalls finds the string literals of src and the calls they are
// arguments of, so a writer's path and an open()'s mode can be told apart
// from what a reader is given.
func scanPythonCalls(src string) (strs []pyString, calls []pyCall) {
	lastName := ""    // the last identifier, for callee
	pendingCall := "" // lastName, when followed by "("
	var stack []frame
	literal := func(s pyString) {
		s.callee = pendingCall
		s.call = -1
		if n := len(stack); n > 0 && stack[n-1].call >= 0 {
			s.call, s.arg, s.kw = stack[n-1].call, stack[n-1].arg, stack[n-1].kw
		}
		strs = append(strs, s)
	}
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '\n':
			i++
			lastName, pendingCall = "", ""
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i += 2 // a continued line is not a new line
		case isIdentStart(c):
			j := i
			for j < len(src) && isIdentChar(src[j]) {
				j++
			}
			word := src[i:j]
			if j < len(src) && (src[j] == '\'' || src[j] == '"') && isStringPrefix(word) {
				s, end := readString(src, i, j, word)
				literal(s)
				i = end
				lastName, pendingCall = "", ""
				continue
			}
			if n := len(stack); n > 0 && stack[n-1].call >= 0 && isKeyword(src[j:]) {
				stack[n-1].kw = word
			}
			lastName, pendingCall = word, ""
			i = j
		case c == '\'' || c == '"':
			s, end := readString(src, i, i, "")
			literal(s)
			i = end
			lastName, pendingCall = "", ""
		case c == '(':
			f := frame{call: -1}
			if lastName != "" {
				f.call = len(calls)
				calls = append(calls, pyCall{name: lastName, start: i})
			}
			stack = append(stack, f)
			pendingCall, lastName = lastName, ""
			i++
		case c == '[' || c == '{':
			stack = append(stack, frame{call: -1})
			lastName, pendingCall = "", ""
			i++
		case c == ')' || c == ']' || c == '}':
			if n := len(stack); n > 0 {
				if f := stack[n-1]; f.call >= 0 {
					calls[f.call].end = i + 1
				}
				stack = stack[:n-1]
			}
			lastName, pendingCall = "", ""
			i++
		case c == ',':
			if n := len(stack); n > 0 {
				stack[n-1].arg++
				stack[n-1].kw = ""
			}
			lastName, pendingCall = "", ""
			i++
		case c == ' ' || c == '\t':
			i++
		default:
			lastName, pendingCall = "", ""
			i++
		}
	}
	return strs, calls
}

// readString reads the literal whose prefix starts at start and whose
// quote starts at q; an unterminated literal runs to the end of the line
// (or of the source, for a triple-quoted one).
func readString(src string, start, q int, prefix string) (pyString, int) {
	quote := src[q : q+1]
	if strings.HasPrefix(src[q:], strings.Repeat(quote, 3)) {
		quote = strings.Repeat(quote, 3)
	}
	raw := strings.ContainsAny(prefix, "rR")
	i := q + len(quote)
	bodyStart := i
	for i < len(src) {
		if src[i] == '\\' && !raw && i+1 < len(src) {
			i += 2
			continue
		}
		if src[i] == '\\' && raw && i+1 < len(src) {
			i += 2 // a raw string still cannot end on an escaped quote
			continue
		}
		if len(quote) == 1 && src[i] == '\n' {
			break
		}
		if strings.HasPrefix(src[i:], quote) {
			return pyString{start: start, end: i + len(quote), prefix: prefix, quote: quote, body: src[bodyStart:i]}, i + len(quote)
		}
		i++
	}
	return pyString{start: start, end: i, prefix: prefix, quote: quote, body: src[bodyStart:i]}, i
}

// isKeyword tells whether rest, the source after an identifier, makes it
// a keyword argument (name=...), not a comparison (name==...).
func isKeyword(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	return strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==")
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isIdentChar(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

func isStringPrefix(w string) bool {
	switch strings.ToLower(w) {
	case "r", "u", "b", "f", "br", "rb", "fr", "rf":
		return true
	}
	return false
}

// sandboxDirs are the sandbox's folders as code names them, and the
// variables a notebook defines for them instead.
var sandboxDirs = []struct{ dir, name string }{{"/data", "DATA_DIR"}, {"/output", "OUTPUT_DIR"}}

// RelocatePaths rewrites each string literal that begins with /data/ or
// /output/ into DATA_DIR + '<rest>' (OUTPUT_DIR likewise), so the code
// runs wherever those variables point. A literal inside another (an SQL
// text naming '/data/x.csv') is not a literal of its own and stays.
func RelocatePaths(src string) string {
	strs := scanPython(src)
	var b strings.Builder
	last := 0
	for k, s := range strs {
		if s.bytes() {
			continue
		}
		for _, d := range sandboxDirs {
			rest, ok := strings.CutPrefix(s.body, d.dir)
			if !ok || (rest != "" && !strings.HasPrefix(rest, "/")) {
				continue
			}
			rest = strings.TrimPrefix(rest, "/")
			lit := s.prefix + s.quote + rest + s.quote
			expr := d.name + " + " + lit
			// Parentheses keep a method call on the literal on the whole
			// path; a literal glued to the next one ('/data/' 'q1.csv')
			// must stay bare to stay valid.
			if !(k+1 < len(strs) && onlySpace(src[s.end:strs[k+1].start])) {
				expr = "(" + expr + ")"
			}
			b.WriteString(src[last:s.start])
			b.WriteString(expr)
			last = s.end
			break
		}
	}
	b.WriteString(src[last:])
	return b.String()
}

func onlySpace(s string) bool { return strings.TrimSpace(strings.ReplaceAll(s, "\\\n", "")) == "" }

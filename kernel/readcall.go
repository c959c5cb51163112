package kernel

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/quarry-cli/quarry/filekind"
)

// ReadCall is the call the profile loaded a file with: a reader function
// and its keyword arguments as plain JSON values. It comes from the kernel
// and is untrusted; Python renders it as source only for known readers,
// argument names that are identifiers and values that are literals.
type ReadCall struct {
	Func string    `json:"func"`
	Args []CallArg `json:"args,omitempty"`
}

// CallArg is one keyword argument of a ReadCall.
type CallArg struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

var identifier = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,39}$`)

// maxCallLen keeps a call with long column lists from filling the prompt.
const maxCallLen = 4000

// Python renders the call on path as one line of Python, e.g.
// pd.read_csv('/data/x.csv', sep=';', decimal=','); "" when the call names an
// unknown function, has a malformed argument or is too long.
func (c *ReadCall) Python(path string) string {
	if c == nil {
		return ""
	}
	suffix, ok := filekind.ReadSuffix(c.Func) // only the table's read calls; pyreadstat's take [0]
	if !ok {
		return ""
	}
	args := []string{PyString(path)}
	for _, a := range c.Args {
		if !identifier.MatchString(a.Name) {
			return ""
		}
		v, ok := pyLiteral(a.Value, 0)
		if !ok {
			return ""
		}
		args = append(args, a.Name+"="+v)
	}
	s := c.Func + "(" + strings.Join(args, ", ") + ")" + suffix
	if len(s) > maxCallLen {
		return ""
	}
	return s
}

// pyLiteral renders a decoded JSON value as a Python literal.
func pyLiteral(v any, depth int) (string, bool) {
	if depth > 3 {
		return "", false
	}
	switch x := v.(type) {
	case nil:
		return "None", true
	case bool:
		if x {
			return "True", true
		}
		return "False", true
	case string:
		return PyString(x), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false
		}
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10), true
		}
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := pyLiteral(e, depth+1)
			if !ok {
				return "", false
			}
			parts = append(parts, s)
		}
		return "[" + strings.Join(parts, ", ") + "]", true
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(x))
		for _, k := range keys {
			s, ok := pyLiteral(x[k], depth+1)
			if !ok {
				return "", false
			}
			parts = append(parts, PyString(k)+": "+s)
		}
		return "{" + strings.Join(parts, ", ") + "}", true
	}
	return "", false
}

// PyString quotes s as a Python string literal. File and column names are
// untrusted: quotes, backslashes and control characters are escaped so the
// literal can neither break the call nor the prompt's lines.
func PyString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch {
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == unicode.ReplacementChar || !unicode.IsPrint(r) && r != ' ':
			if r <= 0xffff {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

package sandbox

import (
	"archive/tar"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The rules the harvest applies to what the container claims: entry names,
// entry types and PNG headers. All of it is untrusted input.

// tarRel maps an entry name "output/<rel>" to <rel>. isRoot is true for the
// output folder's own entry.
func tarRel(name string) (rel string, isRoot, ok bool) {
	first, rest, found := strings.Cut(name, "/")
	if first != "output" {
		return "", false, false
	}
	if !found || rest == "" {
		return "", true, true
	}
	return strings.TrimSuffix(rest, "/"), false, true
}

// validName accepts a slash-separated relative name of printable characters,
// with no empty, "." or ".." component, at most maxDepth components deep.
func validName(rel string, maxDepth int) error {
	switch {
	case rel == "":
		return errors.New("empty name")
	case len(rel) > maxNameBytes:
		return fmt.Errorf("name longer than %d bytes", maxNameBytes)
	case !utf8.ValidString(rel):
		return errors.New("name is not valid UTF-8")
	case strings.HasPrefix(rel, "/"):
		return errors.New("absolute name")
	}
	for _, c := range rel {
		if unsafeRune(c) {
			return fmt.Errorf("name contains control or formatting character %U", c)
		}
	}
	parts := strings.Split(rel, "/")
	if len(parts) > maxDepth {
		return fmt.Errorf("more than %d folders deep", maxDepth)
	}
	for _, p := range parts {
		switch {
		case p == "" || p == ".":
			return errors.New("empty or '.' path component")
		case p == "..":
			return errors.New("'..' path component")
		case len(p) > maxComponentBytes:
			return fmt.Errorf("path component longer than %d bytes", maxComponentBytes)
		case strings.HasPrefix(p, tmpPrefix):
			return errors.New("reserved name")
		}
	}
	return nil
}

// CheckOutputName tells whether name, relative to the output folder, is
// one the harvest would write: a session record naming any other file is
// not to be believed.
func CheckOutputName(name string) error { return validName(name, defaultMaxDepth) }

// unsafeRune reports characters a terminal or a file manager could act on or
// be fooled by: C0, DEL, C1, backslash (a separator elsewhere) and bidi controls.
func unsafeRune(c rune) bool {
	switch {
	case c < 0x20, c == 0x7f, c >= 0x80 && c <= 0x9f, c == '\\':
		return true
	case c >= 0x202a && c <= 0x202e, c >= 0x2066 && c <= 0x2069, c == 0x200e, c == 0x200f, c == 0xfeff:
		return true
	}
	return false
}

func typeName(t byte) string {
	switch t {
	case tar.TypeSymlink:
		return "symlink"
	case tar.TypeLink:
		return "hard link"
	case tar.TypeChar, tar.TypeBlock:
		return "device"
	case tar.TypeFifo:
		return "FIFO"
	default:
		return fmt.Sprintf("entry type %q", t)
	}
}

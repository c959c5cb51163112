package ui

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// Dropping a file on a terminal pastes its path: quoted, backslash-escaped
// or as a file:// URI, several separated by spaces or newlines. pastedPaths
// splits such a paste into candidate paths; it returns nil for anything that
// does not look like paths only, so ordinary text is never stat'ed.
func pastedPaths(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 16<<10 {
		return nil
	}
	var out []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		ps, ok := linePaths(line)
		if !ok {
			// Some terminals paste a dropped path as is: spaces and quotes
			// unescaped ("/home/ann/Bob's data.csv"). The Cmd stats it.
			p, isPath := pathToken(line)
			if !isPath {
				return nil
			}
			ps = []string{p}
		}
		out = append(out, ps...)
	}
	if len(out) == 0 || len(out) > 64 {
		return nil
	}
	return out
}

// linePaths splits one line into paths, shell-quoted or escaped.
func linePaths(line string) ([]string, bool) {
	toks, ok := shellWords(line)
	if !ok {
		return nil, false
	}
	var out []string
	for _, t := range toks {
		p, ok := pathToken(t)
		if !ok {
			return nil, false
		}
		out = append(out, p)
	}
	return out, true
}

// pathToken accepts file:// URIs, absolute paths, ~/ paths and relative
// paths that contain a separator.
func pathToken(t string) (string, bool) {
	if strings.HasPrefix(t, "file://") {
		u, err := url.Parse(t)
		if err != nil || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
			return "", false
		}
		return u.Path, true
	}
	if strings.HasPrefix(t, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, t[2:]), true
		}
		return "", false
	}
	if strings.HasPrefix(t, "/") || strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") {
		return t, true
	}
	return "", false
}

// shellWords splits a line like a POSIX shell would for the quoting
// terminals use on dropped paths: '…', "…" and backslash escapes.
func shellWords(line string) ([]string, bool) {
	var (
		out   []string
		cur   strings.Builder
		inTok bool
		quote rune
	)
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch {
			case r == '"':
				quote = 0
			case r == '\\' && i+1 < len(rs) && strings.ContainsRune(`"\$`+"`", rs[i+1]):
				i++
				cur.WriteRune(rs[i])
			default:
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inTok = r, true
		case r == '\\' && i+1 < len(rs):
			i++
			cur.WriteRune(rs[i])
			inTok = true
		case r == ' ' || r == '\t':
			if inTok {
				out = append(out, cur.String())
				cur.Reset()
				inTok = false
			}
		default:
			cur.WriteRune(r)
			inTok = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if inTok {
		out = append(out, cur.String())
	}
	return out, true
}

// regularFile is the default attach check: the path names a regular file.
func regularFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", path)
	}
	return nil
}

// pasteMsg is a paste after its paths were checked: attach them when every
// one is an attachable file, insert the text otherwise.
type pasteMsg struct {
	text  string
	paths []string
	err   error // why the paths are not attachable (shown, text not inserted)
}

// checkPaste stats the candidate paths off the Update loop.
func checkPaste(text string, paths []string, check func(string) error) tea.Cmd {
	return func() tea.Msg {
		for _, p := range paths {
			if _, err := os.Stat(p); err != nil {
				return pasteMsg{text: text} // not paths after all: plain text
			}
		}
		for _, p := range paths {
			if err := check(p); err != nil {
				return pasteMsg{text: text, err: err}
			}
		}
		return pasteMsg{text: text, paths: paths}
	}
}

// completionMsg completes the path after /attach.
type completionMsg struct {
	prefix  string // what was completed
	value   string // the new input value
	options []string
}

// completePath lists the folder of the typed prefix (a Cmd: it reads the
// file system) and returns the longest common completion.
func completePath(prefix string) tea.Cmd {
	return func() tea.Msg {
		dir, base := filepath.Split(prefix)
		list := dir
		if strings.HasPrefix(list, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				list = filepath.Join(home, list[2:])
			}
		}
		if list == "" {
			list = "."
		}
		ents, err := os.ReadDir(list)
		if err != nil {
			return completionMsg{prefix: prefix, value: prefix}
		}
		var names []string
		for _, e := range ents {
			n := e.Name()
			if !strings.HasPrefix(n, base) || (strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".")) {
				continue
			}
			if e.IsDir() {
				n += "/"
			}
			names = append(names, n)
		}
		sort.Strings(names)
		if len(names) == 0 {
			return completionMsg{prefix: prefix, value: prefix}
		}
		common := names[0]
		for _, n := range names[1:] {
			for !strings.HasPrefix(n, common) {
				common = common[:len(common)-1]
			}
		}
		// The common bytes may end inside a multi-byte rune (数据, 数拟).
		for !utf8.ValidString(common) {
			common = common[:len(common)-1]
		}
		msg := completionMsg{prefix: prefix, value: dir + common}
		if len(names) > 1 {
			msg.options = names
		}
		return msg
	}
}

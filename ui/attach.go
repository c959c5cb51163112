package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// /attach PATH...: the paths as a shell reads them (quotes, backslashes,
// ~/), and patterns (*, ?, […]) expanded as the shell expands them on
// quarry's own command line, so `/attach data/*.csv` does what
// `quarry data/*.csv` does.

// attachListMsg is what /attach's words came to: the files to attach, or
// why none.
type attachListMsg struct {
	paths   []string
	matched []string // the patterns expanded, for the line that lists them
	err     error
}

func (m *Model) attachCommand(arg string) tea.Cmd {
	if arg == "" {
		m.notice(levelError, "/attach needs a path, e.g. /attach sales.csv or /attach data/*.csv")
		return nil
	}
	m.attaching++ // the opening question waits for these files too
	return func() tea.Msg { return expandAttach(arg) }
}

// expandAttach reads the disk: whether the line is one path with spaces
// in it, and what each pattern matches.
func expandAttach(arg string) attachListMsg {
	words, ok := shellWords(arg)
	if !ok || len(words) == 0 {
		words = []string{arg}
	}
	if len(words) > 1 {
		if _, err := os.Lstat(arg); err == nil { // a path with spaces, typed unquoted
			words = []string{arg}
		}
	}
	var msg attachListMsg
	for _, w := range words {
		if p, ok := pathToken(w); ok {
			w = p
		}
		if _, err := os.Lstat(w); err == nil || !strings.ContainsAny(w, "*?[") {
			msg.paths = append(msg.paths, w)
			continue
		}
		files, err := globFiles(w)
		if err != nil {
			return attachListMsg{err: err}
		}
		msg.paths = append(msg.paths, files...)
		msg.matched = append(msg.matched, fmt.Sprintf("%s matches %s: %s", w, plural(len(files), "file"), strings.Join(baseNames(files), ", ")))
	}
	return msg
}

// globFiles are the files (not folders) pattern matches, in name order,
// hidden ones only when the pattern names them.
func globFiles(pattern string) ([]string, error) {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("%s: not a pattern quarry can read (%v): check the brackets", pattern, err)
	}
	var files []string
	dotted := strings.HasPrefix(filepath.Base(pattern), ".")
	for _, p := range matches {
		if strings.HasPrefix(filepath.Base(p), ".") && !dotted {
			continue // as the shell: * does not match a leading dot
		}
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		what := "no file matches it"
		if len(matches) > 0 {
			what = "it matches only folders"
		}
		return nil, fmt.Errorf("%s: %s: check the folder and the extension (Tab completes a path)", pattern, what)
	}
	return files, nil
}

func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}

// attachList starts the uploads /attach asked for, after saying what its
// patterns matched.
func (m *Model) attachList(msg attachListMsg) tea.Cmd {
	m.attaching--
	if msg.err != nil {
		m.notice(levelError, msg.err.Error())
		return m.askOpening()
	}
	if len(msg.matched) > 0 {
		m.notice(levelInfo, sanitizeLines(msg.matched)+"\nAttaching them.")
	}
	var cmds []tea.Cmd
	for _, p := range msg.paths {
		m.attaching++
		cmds = append(cmds, m.attachCmd(p, true, true))
	}
	return tea.Batch(cmds...)
}

package notebook

import (
	"regexp"
	"strings"
)

// What a notebook's shell lines write: a redirect's target (> f, >> f),
// the destination of cp, mv and install, what touch, tee, curl -o and
// wget -O make, the folders of mkdir; and the file a %%writefile cell
// writes. The words are taken as the shell splits them on spaces; quoting
// is not undone (a path with spaces is missed, as it is for reads).

var (
	shellLine   = regexp.MustCompile(`^\s*(?:[A-Za-z_][A-Za-z0-9_]*\s*=\s*)?!+(.*)$`)
	shellCell   = regexp.MustCompile(`^\s*%%(?:bash|sh|script\s+(?:ba)?sh|system)\b`)
	writefile   = regexp.MustCompile(`^\s*%%writefile\s+(?:-a\s+|--append\s+)?(\S+)`)
	shellSplits = regexp.MustCompile(`\|\||&&|[|;&]`)
)

// shellWrites finds the paths the shell lines and cell magics of src write.
func shellWrites(src string) []written {
	var out []written
	lines := strings.SplitAfter(src, "\n")
	if len(lines) > 0 {
		if m := writefile.FindStringSubmatch(lines[0]); m != nil {
			return []written{{path: m[1], at: 0}}
		}
	}
	whole := len(lines) > 0 && shellCell.MatchString(lines[0])
	at := 0
	for i, line := range lines {
		start := at
		at += len(line)
		cmd := ""
		if m := shellLine.FindStringSubmatch(line); m != nil {
			cmd = m[1]
		} else if whole && i > 0 {
			cmd = line
		}
		if cmd == "" {
			continue
		}
		if j := strings.Index(cmd, " #"); j >= 0 {
			cmd = cmd[:j]
		}
		for _, part := range shellSplits.Split(cmd, -1) {
			for _, w := range commandWrites(strings.Fields(part)) {
				w.at = start
				out = append(out, w)
			}
		}
	}
	return out
}

// commandWrites is what one simple command writes.
func commandWrites(words []string) []written {
	var out []written
	var args []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if t, ok := redirectTarget(w); ok {
			if t == "" && i+1 < len(words) {
				i++
				t = words[i]
			}
			if t != "" && !strings.HasPrefix(t, "&") {
				out = append(out, written{path: t})
			}
			continue
		}
		args = append(args, w)
	}
	if len(args) == 0 {
		return out
	}
	var plain []string
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") {
			plain = append(plain, a)
		}
	}
	switch args[0] {
	case "cp", "mv", "install", "ln":
		if len(plain) >= 2 {
			out = append(out, written{path: plain[len(plain)-1]})
		}
	case "touch", "tee":
		for _, a := range plain {
			out = append(out, written{path: a})
		}
	case "mkdir":
		for _, a := range plain {
			out = append(out, written{path: a, folder: true})
		}
	case "curl", "wget":
		for i := 1; i+1 < len(args); i++ {
			if args[i] == "-o" || args[i] == "-O" || args[i] == "--output" || args[i] == "--output-document" {
				out = append(out, written{path: args[i+1]})
			}
		}
	}
	return out
}

// redirectTarget tells whether w is an output redirect (>, >>, 2>, &>,
// or one glued to its target, >out.txt) and returns the target glued to it.
func redirectTarget(w string) (string, bool) {
	w = strings.TrimLeft(w, "0123456789&")
	if !strings.HasPrefix(w, ">") {
		return "", false
	}
	return strings.TrimLeft(w, ">|"), true
}

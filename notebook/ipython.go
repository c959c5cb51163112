package notebook

import (
	"regexp"
	"strings"
)

// The IPython syntax a rerun refuses before anything runs. The kernel
// (sandbox/pykernel/ipython.py) turns the rest into Python as each cell
// runs, and refuses the same lines there for the chat: a change to one
// list is a change to both.

const (
	ipyShell   = "shell commands do not run in quarry's sandbox: do it in Python (os, pathlib, shutil) or outside quarry"
	ipyInstall = "the sandbox has no network and installs nothing: remove the line; the sandbox has pandas, numpy, matplotlib, seaborn, scipy, statsmodels and scikit-learn"
)

// ipyRefused are the magics with no meaning in the sandbox, and what to do.
var ipyRefused = map[string]string{
	"system": ipyShell, "sx": ipyShell, "sh": ipyShell, "bash": ipyShell, "script": ipyShell,
	"perl": ipyShell, "ruby": ipyShell, "python": ipyShell, "python3": ipyShell,
	"pip": ipyInstall, "conda": ipyInstall, "mamba": ipyInstall, "micromamba": ipyInstall,
	"run":       "it runs another file: paste that file's code into a cell before this one",
	"load":      "it loads code from a file or the network: paste the code into the cell",
	"cd":        "the code runs in the notebook's folder: use paths relative to it",
	"writefile": `write the file in Python: open(name, "w").write(text)`,
}

// ipyPlain are the line magics with a plain meaning (the kernel's list).
var ipyPlain = map[string]bool{"matplotlib": true, "autoreload": true, "aimport": true, "precision": true, "env": true, "time": true, "timeit": true}

var assignedMagic = regexp.MustCompile(`^[\w.,\s\[\]()*]+=\s*[!%]`)

// IPythonRefusal is a line quarry does not run.
type IPythonRefusal struct {
	Line int    // 1-based, in the cell
	Text string // the line
	Why  string // and what to do
}

// ipythonRefusal returns the first line of src in IPython syntax that does
// not run in quarry, or nil.
func ipythonRefusal(src string) *IPythonRefusal {
	if !strings.ContainsAny(src, "%!") && !strings.Contains(src, "get_ipython(") {
		return nil
	}
	starts := statementStarts(src)
	refuse := func(off int, why string) *IPythonRefusal {
		end := strings.IndexByte(src[off:], '\n')
		if end < 0 {
			end = len(src) - off
		}
		return &IPythonRefusal{Line: strings.Count(src[:off], "\n") + 1, Text: strings.TrimSpace(src[off : off+end]), Why: why}
	}
	first := true
	for _, st := range starts {
		end := strings.IndexByte(src[st:], '\n')
		if end < 0 {
			end = len(src) - st
		}
		code := strings.TrimSpace(codePart(src[st : st+end]))
		if code == "" {
			continue
		}
		wasFirst := first
		first = false
		switch {
		case strings.HasPrefix(code, "%%"):
			name := magicName(code[2:])
			if !wasFirst {
				return refuse(st, "a cell magic must be on the cell's first line")
			}
			if name != "time" && name != "timeit" && name != "capture" {
				why, ok := ipyRefused[name]
				if !ok {
					why = "cell magic %%" + name + " does not run in quarry: write the cell as plain Python"
				}
				return refuse(st, why)
			}
		case strings.HasPrefix(code, "%"):
			if why := lineMagicRefusal(code[1:]); why != "" {
				return refuse(st, why)
			}
		case strings.HasPrefix(code, "!"):
			return refuse(st, ipyShell)
		case assignedMagic.MatchString(code):
			if rhs := strings.TrimSpace(code[strings.IndexByte(code, '=')+1:]); strings.HasPrefix(rhs, "!") {
				return refuse(st, ipyShell)
			}
			return refuse(st, "assigning the output of a magic is not run by quarry: write it as plain Python")
		case strings.Contains(code, "get_ipython("):
			return refuse(st, "get_ipython() is IPython's own object: write the magic on its own line (%matplotlib inline) or as plain Python")
		}
	}
	return nil
}

func lineMagicRefusal(body string) string {
	name := magicName(body)
	arg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(body), name))
	switch {
	case ipyPlain[name]:
		if (name == "time" || name == "timeit") && arg == "" {
			return "give %" + name + " a statement, or use %%" + name + " on the first line of the cell"
		}
		return ""
	case name == "config":
		if strings.HasPrefix(arg, "InlineBackend") {
			return ""
		}
		return "only %config InlineBackend... has a meaning here (figures are captured anyway): remove the line"
	case name == "load_ext":
		if arg == "autoreload" {
			return ""
		}
		return "IPython extensions do not load in quarry: remove the line"
	}
	if why, ok := ipyRefused[name]; ok {
		return why
	}
	return "IPython magic %" + name + " has no meaning in quarry: write it as plain Python or remove the line"
}

func magicName(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i]
	}
	return s
}

// codePart is a line without its comment (quotes respected).
func codePart(line string) string {
	var q byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '\'' || c == '"':
			q = c
		case c == '#':
			return line[:i]
		}
	}
	return line
}

// statementStarts are the offsets of the lines that begin a statement:
// outside strings and brackets, not continued (as the kernel reads them).
func statementStarts(src string) []int {
	strs, starts := scanPython(src)
	depthAt := map[int]int{}
	depth, k, si := 0, 0, 0
	for i := 0; i <= len(src); i++ {
		for k < len(starts) && starts[k] == i {
			depthAt[i] = depth
			k++
		}
		if i == len(src) {
			break
		}
		if si < len(strs) && i == strs[si].start {
			i = strs[si].end - 1
			si++
			continue
		}
		switch src[i] {
		case '#':
			for i+1 < len(src) && src[i+1] != '\n' {
				i++
			}
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth = max(0, depth-1)
		}
	}
	var out []int
	for _, st := range starts {
		if depthAt[st] == 0 {
			out = append(out, st)
		}
	}
	return out
}

// Package pykernel is the kernel's Python, embedded for the host to send:
// the package quarry_kernel/ (by concern: runtime, profile, sql, ipython,
// variance, report) and parts.txt, the order its files run in. It owns
// only the files and their order; how they reach the container is
// sandbox's. It imports nothing of quarry. The Python has its own tests,
// lint and type checks (pyproject.toml, tests/; make pytest).
package pykernel

import (
	"bufio"
	"embed"
	"strings"
)

//go:embed parts.txt quarry_kernel
var files embed.FS

// ImportsPart is the kernel part the host's imports settings go before.
const ImportsPart = "runtime/imports.py"

// Program names the files of one program of parts.txt ("profile" or
// "kernel"), in the order they run, as paths under quarry_kernel/.
func Program(name string) []string {
	var parts []string
	in := false
	sc := bufio.NewScanner(strings.NewReader(string(mustRead("parts.txt"))))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			in = line == "["+name+"]"
		case in:
			parts = append(parts, line)
		}
	}
	if len(parts) == 0 {
		panic("pykernel: parts.txt has no program " + name) // a build defect, not a runtime condition
	}
	return parts
}

// Source is the text of one part, a path under quarry_kernel/.
func Source(part string) string { return string(mustRead("quarry_kernel/" + part)) }

func mustRead(name string) []byte {
	b, err := files.ReadFile(name)
	if err != nil {
		panic("pykernel: embedded kernel source missing: " + err.Error()) // a build defect, not a runtime condition
	}
	return b
}

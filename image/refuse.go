package image

import (
	"context"
	"fmt"
	"os/exec"
	"path"
	"regexp"
	"strings"
)

// The recipe's cleanup rules hold for extras too: nothing in the sandbox
// fetches or builds code (no pip, no compiler) and nothing is setuid or
// setgid. setup.sh purges such packages from the base; an extra that
// would bring one back is refused, naming the package and why, before
// anything is installed.

var forbiddenLoop = regexp.MustCompile(`(?s)for pkg in (.*?); do`)

// forbiddenPackages are the packages setup.sh purges (pip and the compiler
// toolchain), read from the recipe itself: the one list.
func forbiddenPackages() []string {
	m := forbiddenLoop.FindSubmatch(currentRecipe["setup.sh"])
	if m == nil {
		return nil
	}
	return strings.Fields(strings.ReplaceAll(string(m[1]), "\\\n", " "))
}

// forbiddenWhy says why setup.sh keeps a package out.
func forbiddenWhy(name string) string {
	if strings.Contains(name, "pip") || strings.Contains(name, "venv") || strings.Contains(name, "setuptools-whl") {
		return "pip, which installs code from the network"
	}
	return "a compiler toolchain, which builds code"
}

// RefusedError says an extra breaks the sandbox's rules.
type RefusedError struct {
	Package string // the package refused
	Why     string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s is refused: %s; the sandbox allows no pip, no compiler and no setuid or setgid file", e.Package, e.Why)
}

// checkNames refuses an install set that holds a package setup.sh purges.
func checkNames(install []Package, requested []string) error {
	bad := map[string]bool{}
	for _, f := range forbiddenPackages() {
		bad[f] = true
	}
	for _, p := range install {
		if !bad[p.Name] {
			continue
		}
		why := "it is " + forbiddenWhy(p.Name)
		if !contains(requested, p.Name) {
			why = fmt.Sprintf("it needs %s, %s", p.Name, forbiddenWhy(p.Name))
			return &RefusedError{Package: strings.Join(requested, ", "), Why: why}
		}
		return &RefusedError{Package: p.Name, Why: why}
	}
	return nil
}

// forbiddenProgram matches programs in a package that fetch or build code.
var forbiddenProgram = regexp.MustCompile(`^(?:[a-z0-9_]+-linux-gnu[a-z]*-)?(?:pip[0-9.]*|gcc(?:-[0-9.]+)?|g\+\+(?:-[0-9.]+)?|c\+\+|cc|cpp(?:-[0-9.]+)?|clang(?:\+\+)?(?:-[0-9.]+)?|make|ld(?:\.[a-z]+)?|as|tcc)$`)

// checkDeb reads a downloaded .deb's file list (dpkg-deb on the host,
// which only lists it) and refuses a setuid or setgid file or a program
// that fetches or builds code.
func checkDeb(ctx context.Context, file string, d debInfo) error {
	out, err := exec.CommandContext(ctx, "dpkg-deb", "--contents", file).Output()
	if err != nil {
		return fmt.Errorf("dpkg-deb --contents %s: %w", path.Base(file), err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || len(f[0]) < 10 {
			continue
		}
		mode, name := f[0], strings.TrimPrefix(f[5], ".")
		if mode[0] == '-' && (mode[3] == 's' || mode[3] == 'S' || mode[6] == 's' || mode[6] == 'S') {
			return &RefusedError{Package: d.Name, Why: "it installs " + name + " setuid or setgid"}
		}
		dir, base := path.Split(name)
		if (dir == "/usr/bin/" || dir == "/bin/" || dir == "/usr/local/bin/") && forbiddenProgram.MatchString(base) {
			return &RefusedError{Package: d.Name, Why: "it installs " + name + ", which fetches or builds code"}
		}
	}
	return nil
}

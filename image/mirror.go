package image

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MirrorEnv overrides the Debian mirror the offline build uses, for hosts
// whose apt sources name none (Ubuntu, or a proxy-only setup).
const MirrorEnv = "QUARRY_DEBIAN_MIRROR"

// debianSuites are the suite names that mark a Debian archive (as opposed to
// Ubuntu, a vendor repository or a PPA).
var debianSuites = map[string]bool{
	"stable": true, "oldstable": true, "oldoldstable": true, "testing": true, "unstable": true,
	"sid": true, "experimental": true, "buster": true, "bullseye": true, "bookworm": true,
	"trixie": true, "forky": true, "duke": true, "stretch": true, "jessie": true,
}

// aptSource is one repository line or deb822 stanza.
type aptSource struct {
	types      []string
	uris       []string
	suites     []string
	components []string
	enabled    bool
}

// DebianMirror returns the first Debian main archive URI named by the
// host's apt sources under root ("/" on a real host), or MirrorEnv when set.
func DebianMirror(root string) (string, error) {
	if m := strings.TrimSpace(os.Getenv(MirrorEnv)); m != "" {
		return m, nil
	}
	// apt's own order: sources.list, then sources.list.d by file name.
	var parts []string
	for _, pattern := range []string{"*.list", "*.sources"} {
		m, _ := filepath.Glob(filepath.Join(root, "etc/apt/sources.list.d", pattern))
		parts = append(parts, m...)
	}
	sort.Strings(parts)
	files := append([]string{filepath.Join(root, "etc/apt/sources.list")}, parts...)
	for _, f := range files {
		srcs, err := readAptSources(f)
		if err != nil {
			continue // a missing or unreadable file names no mirror
		}
		for _, s := range srcs {
			if uri := s.debianMainURI(); uri != "" {
				return uri, nil
			}
		}
	}
	return "", fmt.Errorf("no Debian mirror in %s: add a Debian source to apt, or set %s=<mirror URL>",
		filepath.Join(root, "etc/apt/sources.list{,.d}"), MirrorEnv)
}

func readAptSources(path string) ([]aptSource, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".sources") {
		return parseDeb822(string(b)), nil
	}
	return parseOneLine(string(b)), nil
}

// parseOneLine reads the classic "deb [opts] uri suite comp..." format.
func parseOneLine(text string) []aptSource {
	var out []aptSource
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		s := aptSource{types: []string{f[0]}, enabled: true}
		f = f[1:]
		if strings.HasPrefix(f[0], "[") { // options, possibly spanning fields
			for len(f) > 0 && !strings.HasSuffix(f[0], "]") {
				f = f[1:]
			}
			if len(f) > 0 {
				f = f[1:]
			}
		}
		if len(f) < 2 {
			continue
		}
		s.uris, s.suites, s.components = f[:1], f[1:2], f[2:]
		out = append(out, s)
	}
	return out
}

// parseDeb822 reads the stanza format of *.sources files.
func parseDeb822(text string) []aptSource {
	var out []aptSource
	cur := aptSource{enabled: true}
	seen := false
	flush := func() {
		if seen {
			out = append(out, cur)
		}
		cur, seen = aptSource{enabled: true}, false
	}
	var lastKey string
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		var key, val string
		if line[0] == ' ' || line[0] == '\t' { // continuation of a multi-line field
			key, val = lastKey, line
		} else {
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			key, val = strings.ToLower(strings.TrimSpace(k)), v
		}
		lastKey, seen = key, true
		words := strings.Fields(val)
		switch key {
		case "types":
			cur.types = append(cur.types, words...)
		case "uris":
			cur.uris = append(cur.uris, words...)
		case "suites":
			cur.suites = append(cur.suites, words...)
		case "components":
			cur.components = append(cur.components, words...)
		case "enabled":
			cur.enabled = !strings.EqualFold(strings.TrimSpace(val), "no")
		}
	}
	flush()
	return out
}

// debianMainURI is the source's URI when it is an enabled binary Debian
// archive with the main component (not security, not a vendor repository).
func (s aptSource) debianMainURI() string {
	if !s.enabled || !contains(s.types, "deb") || !contains(s.components, "main") {
		return ""
	}
	debian := false
	for _, suite := range s.suites {
		base, suffix, _ := strings.Cut(suite, "-")
		if debianSuites[base] && suffix != "security" {
			debian = true
		}
	}
	if !debian {
		return ""
	}
	for _, u := range s.uris {
		if (strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "file:/")) &&
			!strings.Contains(u, "debian-security") {
			return strings.TrimSuffix(u, "/")
		}
	}
	return ""
}

// archiveKeyring is the host keyring that verifies the archive. bookworm's
// debian-archive-keyring already carries the keys that sign testing; an
// older host without them makes debootstrap fail with a signature error,
// which is the right outcome (never --no-check-gpg).
func archiveKeyring() string {
	for _, k := range []string{"/usr/share/keyrings/debian-archive-keyring.gpg"} {
		if _, err := os.Stat(k); err == nil {
			return k
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

package image

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// step is one dpkg action, in the order apt chose (Pre-Depends and all).
type step struct {
	configure bool // false: unpack
	pkg       string
}

// resolution is what apt would do to the base image to install a set of
// names: the packages it unpacks (new ones and upgrades of the base's),
// in order, and what it would remove.
type resolution struct {
	install  []Package
	upgrades map[string]string // name → the base's version it replaces
	steps    []step
	removes  []string
}

var simLine = regexp.MustCompile(`^(Inst|Conf|Remv) (\S+)(?: \[([^\]]*)\])?(?: \((\S+)[^)]*\))?`)

// simulate asks apt what installing names onto the base would take.
func (x *apt) simulate(ctx context.Context, names []string) (resolution, error) {
	args := append([]string{"-q", "-s", "-y", "install"}, names...)
	out, err := x.run(ctx, nil, "apt-get", args...)
	if err != nil {
		if strings.Contains(out, "unmet dependencies") {
			return resolution{}, fmt.Errorf("Debian %s cannot install %s into the sandbox: %s", x.archive.Suite, strings.Join(names, ", "), unmet(out))
		}
		return resolution{}, err
	}
	r := resolution{upgrades: map[string]string{}}
	seen := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		m := simLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name, _, _ := strings.Cut(m[2], ":")
		switch m[1] {
		case "Inst":
			if !seen[name] {
				seen[name] = true
				r.install = append(r.install, Package{Name: name, Version: m[4]})
				if m[3] != "" {
					r.upgrades[name] = m[3]
				}
			}
			r.steps = append(r.steps, step{pkg: name})
		case "Conf":
			r.steps = append(r.steps, step{configure: true, pkg: name})
		case "Remv":
			r.removes = append(r.removes, name)
		}
	}
	return r, nil
}

// unmet keeps apt's lines that say which dependency cannot be met.
func unmet(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "Depends:") || strings.Contains(l, "Conflicts:") || strings.Contains(l, "Breaks:") {
			keep = append(keep, strings.Join(strings.Fields(l), " "))
		}
	}
	if len(keep) == 0 {
		return lastLines(out, 2)
	}
	return strings.Join(keep[:min(len(keep), 6)], "; ")
}

// debInfo is a package's record in the archive's Packages index, which the
// signed Release file vouches for.
type debInfo struct {
	Package
	Arch          string
	Filename      string // in the pool
	SHA256        string
	Size          int64 // the .deb
	InstalledSize int64 // bytes unpacked
	Depends       string
}

// show reads the archive's records of pkgs (exact versions).
func (x *apt) show(ctx context.Context, pkgs []Package) (map[string]debInfo, error) {
	if len(pkgs) == 0 {
		return map[string]debInfo{}, nil
	}
	args := []string{"show", "--no-all-versions"}
	for _, p := range pkgs {
		args = append(args, p.Name+"="+p.Version)
	}
	out, err := x.run(ctx, nil, "apt-cache", args...)
	if err != nil {
		return nil, err
	}
	infos := map[string]debInfo{}
	for _, stanza := range strings.Split(out, "\n\n") {
		d := parseStanza(stanza)
		if d.Name != "" {
			infos[d.Name] = d
		}
	}
	for _, p := range pkgs {
		if _, ok := infos[p.Name]; !ok {
			return nil, fmt.Errorf("the archive's index has no record of %s %s", p.Name, p.Version)
		}
	}
	return infos, nil
}

func parseStanza(s string) debInfo {
	var d debInfo
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ": ")
		if !ok {
			continue
		}
		switch k {
		case "Package":
			d.Name = v
		case "Version":
			d.Version = v
		case "Architecture":
			d.Arch = v
		case "Filename":
			d.Filename = v
		case "SHA256":
			d.SHA256 = v
		case "Size":
			d.Size, _ = strconv.ParseInt(v, 10, 64)
		case "Installed-Size":
			kib, _ := strconv.ParseInt(v, 10, 64)
			d.InstalledSize = kib << 10
		case "Depends":
			d.Depends = v
		}
	}
	return d
}

// download fetches the .debs of pkgs into the cache; apt checks each
// against the Packages hashes.
func (x *apt) download(ctx context.Context, w io.Writer, pkgs []Package) error {
	args := []string{"-q", "-y", "--download-only", "--allow-downgrades", "install"}
	for _, p := range pkgs {
		args = append(args, p.Name+"="+p.Version)
	}
	_, err := x.run(ctx, w, "apt-get", args...)
	return err
}

// debPath is where apt keeps a downloaded .deb: name_version_arch.deb with
// the version's colon (an epoch) quoted as apt quotes it.
func (x *apt) debPath(d debInfo) string {
	var v strings.Builder
	for i := 0; i < len(d.Version); i++ {
		c := d.Version[i]
		if c == ':' || c == '_' || c == '%' || c <= ' ' || c >= 0x7f {
			fmt.Fprintf(&v, "%%%02x", c)
		} else {
			v.WriteByte(c)
		}
	}
	return filepath.Join(x.dir, "archives", d.Name+"_"+v.String()+"_"+d.Arch+".deb")
}

// verifyDeb checks a downloaded .deb against its record once more, right
// before it goes into the build container: what apt checked at download
// must still be what is installed.
func verifyDeb(path string, d debInfo) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s %s: the download is missing from the cache: %w", d.Name, d.Version, err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != d.SHA256 || n != d.Size {
		os.Remove(path) // a later add fetches it again
		return fmt.Errorf("%s (%s %s) does not match the archive's signed index (SHA-256 %s…, want %s…): refused; it was removed from the cache",
			filepath.Base(path), d.Name, d.Version, got[:12], d.SHA256[:min(12, len(d.SHA256))])
	}
	return nil
}

package image

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/quarry-cli/quarry/engine"
)

// Extras are resolved and downloaded by the host's own apt, run with a
// private configuration and nothing of the host's: its sources list names
// the one archive, with signed-by naming the one keyring its Release file
// must be signed with; its package lists and downloads live in quarry's
// cache; and its dpkg status is the base image's, so apt resolves against
// exactly what the image has installed. apt checks the Release signature
// (gpgv), the Packages and Contents files against the Release hashes, and
// each .deb against the Packages hashes. Nothing it fetches runs on the
// host: dpkg installs the .debs inside a container with no network.

// Archive is the Debian archive extras come from.
type Archive struct {
	URL        string   // the mirror, as the host's apt sources name it
	Suite      string   // the suite the base image was built from (forky)
	Components []string // main
	Keyring    string   // the keyring the Release file must be signed with
	// AllowExpired accepts a Release file past its Valid-Until date, as
	// for a snapshot mirror; the signature is checked all the same.
	AllowExpired bool
}

// AllowExpiredEnv set to 1 accepts an expired Release file (a mirror
// frozen at a snapshot); see Archive.AllowExpired.
const AllowExpiredEnv = "QUARRY_APT_ALLOW_EXPIRED"

// The environment can name another archive (a local mirror of one's own,
// signed with its own key) and another image repository for derived
// images (one per user on a shared engine).
const (
	SuiteEnv   = "QUARRY_DEBIAN_SUITE"   // the suite; the recipe's (forky) by default
	KeyringEnv = "QUARRY_DEBIAN_KEYRING" // the keyring its Release file is signed with
	RepoEnv    = "QUARRY_SANDBOX_REPO"   // the image repository of derived images; quarry-sandbox by default
)

// HostArchive is the archive the base image is built from: the Debian
// mirror of the host's apt sources (or QUARRY_DEBIAN_MIRROR), the recipe's
// suite, and Debian's archive keyring.
func HostArchive() (Archive, error) {
	mirror, err := DebianMirror("/")
	if err != nil {
		return Archive{}, err
	}
	a := Archive{URL: mirror, Suite: debianSuite, Components: []string{"main"}, Keyring: archiveKeyring(),
		AllowExpired: os.Getenv(AllowExpiredEnv) == "1"}
	if s := strings.TrimSpace(os.Getenv(SuiteEnv)); s != "" {
		a.Suite = s
	}
	if k := strings.TrimSpace(os.Getenv(KeyringEnv)); k != "" {
		if _, err := os.Stat(k); err != nil {
			return a, fmt.Errorf("%s=%s: %w", KeyringEnv, k, err)
		}
		a.Keyring = k
	}
	if a.Keyring == "" {
		return a, errors.New("no Debian archive keyring on this host (/usr/share/keyrings/debian-archive-keyring.gpg): install debian-archive-keyring, so the archive's signature can be checked")
	}
	return a, nil
}

var validRepo = regexp.MustCompile(`^[a-z0-9]+(?:[._/-][a-z0-9]+)*$`)

// ExtrasRepo is the image repository of derived images: QUARRY_SANDBOX_REPO
// when it is a valid name, else quarry-sandbox.
func ExtrasRepo() string {
	if r := strings.TrimSpace(os.Getenv(RepoEnv)); validRepo.MatchString(r) {
		return r
	}
	return imageRepo
}

// HostInstaller adds packages from the host's archive (HostArchive) into
// ExtrasRepo on e.
func HostInstaller(e *engine.Engine) (*Installer, error) {
	a, err := HostArchive()
	if err != nil {
		return nil, err
	}
	return &Installer{Engine: e, Archive: a, Repo: ExtrasRepo()}, nil
}

// apt is one archive's private apt: its folder under the cache holds the
// configuration, the package lists and the downloaded .debs.
type apt struct {
	dir     string
	archive Archive
	arch    string // dpkg architecture of the image
	status  string // the base image's dpkg status
}

// aptTools are the host programs extras need; aptReady names a missing one.
var aptTools = map[string]string{"apt-get": "apt", "apt-cache": "apt", "dpkg-deb": "dpkg"}

func aptReady() error {
	for tool, pkg := range aptTools {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s is not on this host: adding packages needs Debian's apt (install %s; on a host without apt, build on one that has it and carry the image with quarry sandbox save/load)", tool, pkg)
		}
	}
	return nil
}

// newApt writes the private configuration for archive a under cache.
func newApt(cache string, a Archive, arch, status string) (*apt, error) {
	if err := aptReady(); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(strings.Join([]string{a.URL, a.Suite, strings.Join(a.Components, ","), a.Keyring, arch}, "\x00")))
	dir := filepath.Join(cache, hex.EncodeToString(sum[:])[:12])
	for _, d := range []string{"etc/apt.conf.d", "etc/sources.list.d", "etc/preferences.d", "etc/trusted.gpg.d", "lists/partial", "archives/partial", "state", "cache", "log"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, fmt.Errorf("apt cache: %w", err)
		}
	}
	x := &apt{dir: dir, archive: a, arch: arch, status: status}
	opts := "signed-by=" + a.Keyring
	if a.AllowExpired {
		opts += " check-valid-until=no"
	}
	src := fmt.Sprintf("deb [%s] %s %s %s\n", opts, a.URL, a.Suite, strings.Join(a.Components, " "))
	if err := os.WriteFile(filepath.Join(dir, "etc/sources.list"), []byte(src), 0o644); err != nil {
		return nil, fmt.Errorf("apt cache: %w", err)
	}
	if err := os.WriteFile(x.confPath(), []byte(x.config()), 0o644); err != nil {
		return nil, fmt.Errorf("apt cache: %w", err)
	}
	return x, nil
}

func (x *apt) confPath() string { return filepath.Join(x.dir, "etc/apt.conf") }

// config is apt's whole configuration: APT_CONFIG is read first and moves
// every other file apt would read into the private folder, so no setting,
// source, key or pin of the host's applies; only the host's proxy is kept.
func (x *apt) config() string {
	d := x.dir
	q := func(s string) string { return `"` + strings.NewReplacer(`"`, "", "\n", "").Replace(s) + `"` }
	lines := []string{
		"Dir::Etc::main " + q("/dev/null") + ";",
		"Dir::Etc::parts " + q(d+"/etc/apt.conf.d") + ";",
		"Dir::Etc::sourcelist " + q(d+"/etc/sources.list") + ";",
		"Dir::Etc::sourceparts " + q(d+"/etc/sources.list.d") + ";",
		"Dir::Etc::preferences " + q("/dev/null") + ";",
		"Dir::Etc::preferencesparts " + q(d+"/etc/preferences.d") + ";",
		"Dir::Etc::trusted " + q(d+"/etc/trusted.gpg") + ";",
		"Dir::Etc::trustedparts " + q(d+"/etc/trusted.gpg.d") + ";",
		"Dir::State " + q(d+"/state") + ";",
		"Dir::State::lists " + q(d+"/lists") + ";",
		"Dir::State::status " + q(x.status) + ";",
		"Dir::Cache " + q(d+"/cache") + ";",
		"Dir::Cache::archives " + q(d+"/archives") + ";",
		"Dir::Log " + q(d+"/log") + ";",
		"APT::Architecture " + q(x.arch) + ";",
		"APT::Architectures { " + q(x.arch) + "; };",
		`Debug::NoLocking "true";`, // the cache's own lock (lockCache) is held instead
		`Acquire::Languages "none";`,
		`APT::Install-Recommends "false";`,
		`APT::Install-Suggests "false";`,
		`APT::Get::AllowUnauthenticated "false";`,
		`Acquire::AllowInsecureRepositories "false";`,
		`Acquire::AllowDowngradeToInsecureRepositories "false";`,
		`Acquire::AllowWeakRepositories "false";`,
		`Acquire::Retries "2";`,
		// Contents maps a Python module to the package that ships it; apt
		// fetches it like Packages, checked against the Release hashes.
		`Acquire::IndexTargets::deb::Contents-deb { MetaKey "$(COMPONENT)/Contents-$(ARCHITECTURE)"; ShortDescription "Contents-$(ARCHITECTURE)"; Description "$(RELEASE)/$(COMPONENT) $(ARCHITECTURE) Contents"; KeepCompressed "true"; KeepCompressedAs "gz"; };`,
	}
	for _, key := range []string{"Acquire::http::Proxy", "Acquire::https::Proxy"} {
		if v := hostAptValue(key); v != "" {
			lines = append(lines, key+" "+q(v)+";")
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// hostAptValue is one setting of the host's own apt configuration.
func hostAptValue(key string) string {
	out, err := exec.Command("apt-config", "dump", "--no-empty", key).Output()
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(line, " ")
		if ok && k == key {
			return strings.TrimSuffix(strings.Trim(strings.TrimSuffix(v, ";"), `"`), `"`)
		}
	}
	return ""
}

// run runs an apt command with the private configuration; w (may be nil)
// gets its output as it comes, prefixed "apt: ", and the whole output is
// returned for parsing.
func (x *apt) run(ctx context.Context, w io.Writer, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "APT_CONFIG="+x.confPath(), "LC_ALL=C", "DEBIAN_FRONTEND=noninteractive")
	var out bytes.Buffer
	var sink io.Writer = &out
	if w != nil {
		sink = io.MultiWriter(&out, &prefixWriter{w: w, prefix: "apt: "})
	}
	cmd.Stdout, cmd.Stderr = sink, sink
	err := cmd.Run()
	if ctx.Err() != nil {
		return out.String(), ctx.Err()
	}
	if err != nil {
		return out.String(), x.failure(name, out.String(), err)
	}
	// apt-get update exits 0 when a source failed only with a warning
	// (an unsigned or badly signed Release is ignored): that is a failure.
	if name == "apt-get" && len(args) > 0 && args[len(args)-1] == "update" {
		if f := x.failure(name, out.String(), nil); f != nil {
			return out.String(), f
		}
	}
	return out.String(), nil
}

// aptFailures word apt's errors about the archive's trust, each naming
// the file and what to do; the first that matches apt's output is used.
var aptFailures = []struct {
	re   *regexp.Regexp
	word func(x *apt, m []string) string
}{
	{regexp.MustCompile(`(?m)^[WE]: (?:GPG error|An error occurred during the signature verification)[^:]*: (\S+ \S+ \S*Release)?:? ?(.*)$`), func(x *apt, m []string) string {
		return fmt.Sprintf("the archive's Release file (%s) failed its signature check against %s: %s: refused (the mirror may be tampered with, or signed by a key not in that keyring)",
			strings.TrimSpace(m[1]), x.archive.Keyring, strings.TrimSpace(m[2]))
	}},
	{regexp.MustCompile(`(?m)^E: The repository '([^']*)' is not signed`), func(x *apt, m []string) string {
		return fmt.Sprintf("the archive %s has no signed Release file (InRelease or Release.gpg) that %s verifies: refused", m[1], x.archive.Keyring)
	}},
	{regexp.MustCompile(`(?m)^E: Release file for (\S+) is expired \(invalid since ([^)]*)\)`), func(x *apt, m []string) string {
		return fmt.Sprintf("the archive's Release file %s is expired (invalid since %s): use a current mirror (QUARRY_DEBIAN_MIRROR), or, for a mirror frozen at a snapshot, set %s=1", m[1], m[2], AllowExpiredEnv)
	}},
	{regexp.MustCompile(`(?m)^E: Failed to fetch (\S+)\s+Hash Sum mismatch`), func(x *apt, m []string) string {
		return fmt.Sprintf("%s does not match the hash the signed archive gives for it (Hash Sum mismatch): refused; the mirror or a proxy altered it", m[1])
	}},
	{regexp.MustCompile(`(?m)^E: Failed to fetch (\S+)\s+(.*)$`), func(x *apt, m []string) string {
		return fmt.Sprintf("downloading %s: %s", m[1], m[2])
	}},
	{regexp.MustCompile(`(?m)^E: Package '([^']+)' has no installation candidate`), func(x *apt, m []string) string {
		return fmt.Sprintf("Debian %s has no installable version of %s", x.archive.Suite, m[1])
	}},
	{regexp.MustCompile(`(?m)^E: Version '([^']+)' for '([^']+)' was not found`), func(x *apt, m []string) string {
		return fmt.Sprintf("%s %s is no longer in the archive", m[2], m[1])
	}},
}

var unableToLocate = regexp.MustCompile(`(?m)^E: Unable to locate package (\S+)`)

// failure words apt's output as an error; nil when it holds no error
// (err is then also nil).
func (x *apt) failure(name, out string, err error) error {
	if m := unableToLocate.FindAllStringSubmatch(out, -1); m != nil {
		e := &NotInDebianError{Kind: AskPackage, Suite: x.archive.Suite}
		for _, n := range m {
			e.Names = append(e.Names, n[1])
		}
		return e
	}
	for _, f := range aptFailures {
		if m := f.re.FindStringSubmatch(out); m != nil {
			return errors.New(f.word(x, m))
		}
	}
	if err == nil {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "E: ") || strings.HasPrefix(l, " ") && len(lines) > 0 {
			lines = append(lines, strings.TrimSpace(strings.TrimPrefix(l, "E: ")))
		}
	}
	if len(lines) == 0 {
		lines = []string{strings.TrimSpace(lastLines(out, 3))}
	}
	return fmt.Errorf("%s: %w: %s", name, err, strings.Join(lines, "; "))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// listsAge is how long fetched package lists are used before apt fetches
// them again (testing moves every day; a stale list fails a download, which
// fetches them again).
const listsAge = 6 * time.Hour

// update fetches the archive's Release, Packages and Contents, unless the
// lists are fresh and force is false.
func (x *apt) update(ctx context.Context, w io.Writer, force bool) error {
	if !force && x.fresh() {
		return nil
	}
	fmt.Fprintf(w, "fetching the package lists of Debian %s from %s (checked against %s)\n", x.archive.Suite, x.archive.URL, filepath.Base(x.archive.Keyring))
	if _, err := x.run(ctx, w, "apt-get", "-q", "update"); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(x.dir, "state/updated"), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644)
}

func (x *apt) fresh() bool {
	fi, err := os.Stat(filepath.Join(x.dir, "state/updated"))
	return err == nil && time.Since(fi.ModTime()) < listsAge
}

// prefixWriter copies whole lines to w, each prefixed.
type prefixWriter struct {
	w      io.Writer
	prefix string
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			break
		}
		if line := strings.TrimRight(string(p.buf[:i]), "\r"); strings.TrimSpace(line) != "" {
			fmt.Fprintf(p.w, "%s%s\n", p.prefix, line)
		}
		p.buf = p.buf[i+1:]
	}
	return len(b), nil
}

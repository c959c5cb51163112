// Package apttest makes a signed Debian archive for tests: packages built
// with dpkg-deb from a few files, the Packages and Contents indexes, a
// Release file signed (gpg) with a key made for the test, served over HTTP
// on 127.0.0.1. Tests of quarry sandbox add point an image.Installer at it,
// so they never reach an outside address; they can tamper with a package or
// break the signature to see each refused. It imports image and engine for the
// Installer it returns.
package apttest

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/hosttest"
	"github.com/quarry-cli/quarry/image"
)

// Suite is the test archive's suite.
const Suite = "quarrytest"

// Deb is one package of the archive. Files map a path (usr/lib/...) to its
// content; Modes gives a path another mode than 0644 (0755 for usr/bin/,
// 04755 for a setuid program).
type Deb struct {
	Name, Version string
	Depends       string
	Files         map[string]string
	Modes         map[string]os.FileMode
}

// Repo is a served archive.
type Repo struct {
	t       testing.TB
	root    string // the archive's files (dists/, pool/)
	gnupg   string
	Keyring string // the public key, a binary keyring as signed-by wants
	URL     string
	debs    map[string]string // name → path of its .deb in the pool
	// Expired dates the Release file a week back with a Valid-Until of a day.
	Expired bool
}

// New builds the archive of debs, signs it and serves it until the test ends.
func New(t testing.TB, debs ...Deb) *Repo {
	t.Helper()
	hosttest.Tool(t, "dpkg-deb")
	hosttest.Tool(t, "gpg")
	hosttest.Tool(t, "apt-get")
	root := t.TempDir()
	gnupg, err := os.MkdirTemp("", "qgpg") // short: gpg-agent's socket path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	r := &Repo{t: t, root: root, gnupg: gnupg, debs: map[string]string{}}
	t.Cleanup(func() {
		cmd := exec.Command("gpgconf", "--kill", "gpg-agent")
		cmd.Env = append(os.Environ(), "GNUPGHOME="+gnupg)
		cmd.Run()
		os.RemoveAll(gnupg)
	})
	r.gpg("--quick-gen-key", "quarry test archive <archive@quarry.invalid>", "ed25519", "sign", "never")
	r.Keyring = filepath.Join(t.TempDir(), "archive-keyring.gpg")
	key := r.gpg("--export")
	if err := os.WriteFile(r.Keyring, key, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range debs {
		r.build(d)
	}
	r.Publish()
	srv := httptest.NewServer(http.FileServer(http.Dir(root)))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// Archive is the Installer's view of the repository.
func (r *Repo) Archive() image.Archive {
	return image.Archive{URL: r.URL, Suite: Suite, Components: []string{"main"}, Keyring: r.Keyring}
}

func (r *Repo) gpg(args ...string) []byte {
	r.t.Helper()
	cmd := exec.Command("gpg", append([]string{"--batch", "--yes", "--pinentry-mode", "loopback", "--passphrase", ""}, args...)...)
	cmd.Env = append(os.Environ(), "GNUPGHOME="+r.gnupg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("gpg %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// build makes d's .deb in the pool with dpkg-deb.
func (r *Repo) build(d Deb) {
	r.t.Helper()
	stage := r.t.TempDir()
	var size int64
	for path, body := range d.Files {
		full := filepath.Join(stage, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(path, "usr/bin/") {
			mode = 0o755
		}
		if m, ok := d.Modes[path]; ok {
			mode = m
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			r.t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			r.t.Fatal(err)
		}
		size += int64(len(body))
	}
	control := fmt.Sprintf("Package: %s\nVersion: %s\nArchitecture: all\nMaintainer: quarry tests <tests@quarry.invalid>\nInstalled-Size: %d\n", d.Name, d.Version, size/1024+1)
	if d.Depends != "" {
		control += "Depends: " + d.Depends + "\n"
	}
	control += "Section: python\nPriority: optional\nDescription: " + d.Name + " for quarry's tests\n"
	if err := os.MkdirAll(filepath.Join(stage, "DEBIAN"), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stage, "DEBIAN/control"), []byte(control), 0o644); err != nil {
		r.t.Fatal(err)
	}
	pool := filepath.Join(r.root, "pool/main", d.Name[:1], d.Name)
	if err := os.MkdirAll(pool, 0o755); err != nil {
		r.t.Fatal(err)
	}
	out := filepath.Join(pool, fmt.Sprintf("%s_%s_all.deb", d.Name, d.Version))
	if b, err := exec.Command("dpkg-deb", "--root-owner-group", "-Zgzip", "--build", stage, out).CombinedOutput(); err != nil {
		r.t.Fatalf("dpkg-deb --build %s: %v: %s", d.Name, err, b)
	}
	r.debs[d.Name] = out
}

// Publish writes the indexes and the signed Release file for the pool
// as it is now.
func (r *Repo) Publish() {
	r.t.Helper()
	dist := filepath.Join(r.root, "dists", Suite)
	bin := filepath.Join(dist, "main/binary-amd64")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		r.t.Fatal(err)
	}
	var packages, contents strings.Builder
	names := make([]string, 0, len(r.debs))
	for n := range r.debs {
		names = append(names, n)
	}
	sort.Strings(names)
	var paths []string
	for _, n := range names {
		packages.WriteString(r.stanza(r.debs[n]))
		for _, p := range r.listFiles(r.debs[n]) {
			paths = append(paths, p+"\tpython/"+n)
		}
	}
	sort.Strings(paths)
	contents.WriteString(strings.Join(paths, "\n") + "\n")
	files := map[string][]byte{
		"main/binary-amd64/Packages":    []byte(packages.String()),
		"main/binary-amd64/Packages.gz": gz([]byte(packages.String())),
		"main/Contents-all":             []byte(contents.String()),
		"main/Contents-all.gz":          gz([]byte(contents.String())),
		"main/Contents-amd64":           nil,
		"main/Contents-amd64.gz":        gz(nil),
	}
	var sums strings.Builder
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := os.WriteFile(filepath.Join(dist, k), files[k], 0o644); err != nil {
			r.t.Fatal(err)
		}
		s := sha256.Sum256(files[k])
		fmt.Fprintf(&sums, " %s %d %s\n", hex.EncodeToString(s[:]), len(files[k]), k)
	}
	date := time.Now().UTC()
	valid := ""
	if r.Expired {
		date = date.Add(-7 * 24 * time.Hour)
		valid = "Valid-Until: " + date.Add(24*time.Hour).Format(time.RFC1123) + "\n"
	}
	release := fmt.Sprintf("Origin: quarry\nLabel: quarry tests\nSuite: %s\nCodename: %s\nDate: %s\n%sArchitectures: all amd64\nNo-Support-for-Architecture-all: Packages\nComponents: main\nSHA256:\n%s",
		Suite, Suite, date.Format(time.RFC1123), valid, sums.String())
	if err := os.WriteFile(filepath.Join(dist, "Release"), []byte(release), 0o644); err != nil {
		r.t.Fatal(err)
	}
	r.sign()
}

func (r *Repo) sign() {
	dist := filepath.Join(r.root, "dists", Suite)
	r.gpg("--clearsign", "--digest-algo", "SHA256", "-o", filepath.Join(dist, "InRelease"), filepath.Join(dist, "Release"))
	r.gpg("--armor", "--detach-sign", "-o", filepath.Join(dist, "Release.gpg"), filepath.Join(dist, "Release"))
}

// stanza is a .deb's record in Packages.
func (r *Repo) stanza(deb string) string {
	r.t.Helper()
	control, err := exec.Command("dpkg-deb", "--field", deb).Output()
	if err != nil {
		r.t.Fatalf("dpkg-deb --field %s: %v", deb, err)
	}
	b, err := os.ReadFile(deb)
	if err != nil {
		r.t.Fatal(err)
	}
	rel, _ := filepath.Rel(r.root, deb)
	s := sha256.Sum256(b)
	m := md5.Sum(b)
	return fmt.Sprintf("%sFilename: %s\nSize: %d\nMD5sum: %s\nSHA256: %s\n\n", strings.TrimRight(string(control), "\n")+"\n",
		filepath.ToSlash(rel), len(b), hex.EncodeToString(m[:]), hex.EncodeToString(s[:]))
}

// listFiles are a .deb's file paths as Contents writes them (no leading ./).
func (r *Repo) listFiles(deb string) []string {
	out, err := exec.Command("dpkg-deb", "--contents", deb).Output()
	if err != nil {
		r.t.Fatalf("dpkg-deb --contents %s: %v", deb, err)
	}
	var paths []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 && !strings.HasPrefix(f[0], "d") {
			paths = append(paths, strings.TrimPrefix(f[5], "./"))
		}
	}
	return paths
}

// Tamper changes a byte of a package's .deb in the pool, after the index
// vouched for it: same size, other content, as a mirror or proxy that
// altered it would serve.
func (r *Repo) Tamper(name string) {
	r.t.Helper()
	path, ok := r.debs[name]
	if !ok {
		r.t.Fatalf("no package %s in the test archive", name)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		r.t.Fatal(err)
	}
	b[len(b)-10] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// BreakSignature edits the signed Release file after it was signed (its
// signature no longer matches), as a mirror serving an altered index would.
func (r *Repo) BreakSignature() {
	r.t.Helper()
	dist := filepath.Join(r.root, "dists", Suite)
	for _, name := range []string{"InRelease", "Release"} {
		path := filepath.Join(dist, name)
		b, err := os.ReadFile(path)
		if err != nil {
			r.t.Fatal(err)
		}
		b = bytes.Replace(b, []byte("Label: quarry tests"), []byte("Label: quarry-tests"), 1)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// Installer is an image.Installer on e for this archive, with a cache and
// an image repository of the test's own: no session on the machine sees
// its derived images, which are removed when the test ends.
func (r *Repo) Installer(e *engine.Engine) *image.Installer {
	r.t.Helper()
	b := make([]byte, 4)
	rand.Read(b)
	repo := "quarry-sandbox-test-" + hex.EncodeToString(b)
	cache := r.t.TempDir()
	os.Chmod(cache, 0o755) // apt's download user (_apt) works inside it
	os.Chmod(filepath.Dir(cache), 0o755)
	r.t.Cleanup(func() { RemoveRepo(e, repo) })
	return &image.Installer{Engine: e, Archive: r.Archive(), Repo: repo, Cache: cache}
}

// RemoveRepo removes every tag of an image repository a test made.
func RemoveRepo(e *engine.Engine, repo string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := e.Client().ImageList(ctx, client.ImageListOptions{Filters: make(client.Filters).Add("reference", repo)})
	if err != nil {
		return
	}
	for _, img := range res.Items {
		for _, tag := range img.RepoTags {
			e.Client().ImageRemove(ctx, tag, client.ImageRemoveOptions{Force: true, PruneChildren: true})
		}
	}
}

// Env points quarry at this archive and at an image repository of the
// test's own (as a user with a mirror of their own would), for a run of the
// binary: the variables, and the repository.
func (r *Repo) Env(e *engine.Engine) ([]string, string) {
	r.t.Helper()
	in := r.Installer(e)
	return []string{image.MirrorEnv + "=" + r.URL, image.SuiteEnv + "=" + Suite, image.KeyringEnv + "=" + r.Keyring,
		image.RepoEnv + "=" + in.Repo, "XDG_CACHE_HOME=" + in.Cache}, in.Repo
}

// Setenv sets Env in the test's own environment, for a test that runs
// quarry's commands in process; it returns the repository.
func (r *Repo) Setenv(t *testing.T, e *engine.Engine) string {
	t.Helper()
	env, repo := r.Env(e)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return repo
}

package cli

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

func TestCmdSandboxRefAndUsage(t *testing.T) {
	cases := []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{"sandbox", "ref"}, exitOK, image.Ref() + "\n", ""},
		{[]string{"sandbox"}, exitUsage, "", "quarry sandbox build"},
		{[]string{"sandbox", "nope"}, exitUsage, "", `unknown command "nope"`},
		{[]string{"sandbox", "build", "--via", "bogus"}, exitUsage, "", "use auto, dockerfile or debootstrap"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := run(Build{}, c.args, strings.NewReader(""), &out, &errb)
		if code != c.code || (c.out != "" && out.String() != c.out) || !strings.Contains(errb.String(), c.err) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr containing %q",
				c.args, code, out.String(), errb.String(), c.code, c.out, c.err)
		}
	}
}

// status names the image's exact package versions, read from the image.
func TestCmdSandboxStatusShowsPackageVersions(t *testing.T) {
	sandboxtest.Engine(t)
	var out, errb bytes.Buffer
	if code := run(Build{}, []string{"sandbox", "status"}, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{image.Ref() + "  built", "in all; the recipe's", "  python3-pandas ", "  libduckdb2.0 "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, out.String())
		}
	}
}

// Archive mistakes are named before any engine is asked.
func TestCmdSandboxSaveLoadUsage(t *testing.T) {
	dir := t.TempDir()
	notArchive := filepath.Join(dir, "data.csv")
	os.WriteFile(notArchive, []byte("a,b\n1,2\n"), 0o644)
	other := filepath.Join(dir, "old.tar")
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := []byte(`{"format":1,"recipe":"000000000000","engine":"Docker 20.10","saved":"2026-01-01T00:00:00Z"}`)
	tw.WriteHeader(&tar.Header{Name: "quarry-sandbox.json", Mode: 0o644, Size: int64(len(hdr))})
	tw.Write(hdr)
	tw.Close()
	os.WriteFile(other, buf.Bytes(), 0o644)
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(dir, "no-engine.sock")) // reaching it would fail differently
	cases := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"sandbox", "save"}, exitUsage, "name the archive to write"},
		{[]string{"sandbox", "save", "a", "b"}, exitUsage, "name the archive to write"},
		{[]string{"sandbox", "load"}, exitUsage, "name the archive to load"},
		{[]string{"sandbox", "load", filepath.Join(dir, "missing.tar")}, exitUsage, "cannot open the archive"},
		{[]string{"sandbox", "load", notArchive}, exitUsage, "not a quarry sandbox archive"},
		{[]string{"sandbox", "load", other}, exitUsage, "recipe 000000000000"},
		{[]string{"sandbox", "save", filepath.Join(dir, "x.tar")}, exitFailed, "not reachable"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := run(Build{}, c.args, strings.NewReader(""), &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), c.err) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errb.String(), c.code, c.err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.tar")); !os.IsNotExist(err) {
		t.Errorf("a failed save left x.tar behind (%v)", err)
	}
}

package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

func TestCmdSandboxRefAndUsage(t *testing.T) {
	cases := []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{"sandbox", "ref"}, exitOK, sandbox.ImageRef() + "\n", ""},
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
	for _, want := range []string{sandbox.ImageRef() + "  built", "in all; the recipe's", "  python3-pandas ", "  libduckdb2.0 "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, out.String())
		}
	}
}

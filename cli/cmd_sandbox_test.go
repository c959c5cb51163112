package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/sandbox"
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

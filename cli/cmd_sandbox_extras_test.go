package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/image/apttest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// quarry sandbox add, status and remove against a signed archive on
// 127.0.0.1: a module name adds its package, status lists it with its
// version and dependency, remove brings the base back, and what cannot be
// added is named.
func TestCmdSandboxAddStatusRemove(t *testing.T) {
	e := sandboxtest.Engine(t)
	repo := apttest.New(t, apttest.All()...)
	name := repo.Setenv(t, e)
	sandbox := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(Build{}, append([]string{"sandbox"}, args...), strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, errs := sandbox("add", "quarry_hello")
	if code != exitOK || !strings.HasPrefix(out, name+":"+image.RecipeHash()+"-") ||
		!strings.Contains(errs, "quarry_hello: python3-quarry-hello 1.2-1, to add") || !strings.Contains(errs, "adding 2 packages") {
		t.Fatalf("add: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	code, out, _ = sandbox("status")
	if code != exitOK || !strings.Contains(out, "  python3-quarry-hello         1.2-1\n") || !strings.Contains(out, "with 1 package: python3-quarry-greet 1.0-3") {
		t.Fatalf("status: exit %d\n%s", code, out)
	}
	if code, _, errs = sandbox("add", "python3-quarry-hello"); code != exitOK || !strings.Contains(errs, "in the sandbox already") {
		t.Fatalf("add again: exit %d\n%s", code, errs)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"add"}, exitUsage, "name what to add"},
		{[]string{"add", "no_such_module"}, exitFailed, "has no package or Python module named no_such_module"},
		{[]string{"add", "--deb", "quarry_hello"}, exitFailed, `"quarry_hello" is not a Debian package`},
		{[]string{"add", "--deb", "python3-quarry-nothing"}, exitFailed, "has no package named python3-quarry-nothing"},
		{[]string{"add", "quarry_native"}, exitFailed, "python3-quarry-native is refused: it needs python3-dev, a compiler toolchain"},
		{[]string{"remove", "python3-quarry-greet"}, exitFailed, "came with another extra"},
		{[]string{"remove"}, exitUsage, "name the extras to remove"},
	} {
		if code, _, errs := sandbox(c.args...); code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, want %d; stderr %s", c.args, code, c.code, errs)
		}
	}
	code, out, errs = sandbox("remove", "python3-quarry-hello")
	if code != exitOK || out != image.Ref()+"\n" || !strings.Contains(errs, "no extras left") {
		t.Fatalf("remove: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	if _, out, _ = sandbox("status"); !strings.Contains(out, "extras: none") {
		t.Fatalf("status after remove:\n%s", out)
	}
}

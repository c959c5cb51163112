package sandbox

import (
	"regexp"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/pykernel"
)

// The kernel parts run as one program in one namespace, so a top-level
// name two parts define is one silently replacing the other (variance's
// table builder once took sql()'s _frame). Each name has one home.
func TestKernelPartsDefineEachNameOnce(t *testing.T) {
	top := regexp.MustCompile(`(?m)^(?:def|class)\s+(\w+)|^(\w+)\s*=[^=]`)
	home := map[string]string{}
	for _, part := range kernelParts {
		for _, m := range top.FindAllStringSubmatch(pykernel.Source(part), -1) {
			name := m[1] + m[2]
			if strings.HasPrefix(name, "__") {
				continue
			}
			if other, ok := home[name]; ok && other != part {
				t.Errorf("%s is defined at the top level of both %s and %s", name, other, part)
			}
			home[name] = part
		}
	}
	if len(home) < 100 {
		t.Fatalf("found only %d top-level names in the kernel parts", len(home))
	}
}

package pykernel

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// parts.txt and the files agree: every module on disk (but the packages'
// __init__.py, which only document) runs in exactly one program, once, and
// every part named is embedded.
func TestPartsListEveryModuleOnce(t *testing.T) {
	var listed []string
	for _, program := range []string{"profile", "kernel", "relay"} {
		for _, part := range Program(program) {
			if slices.Contains(listed, part) {
				t.Errorf("parts.txt lists %s twice", part)
			}
			listed = append(listed, part)
			if Source(part) == "" {
				t.Errorf("%s is empty", part)
			}
		}
	}
	err := filepath.WalkDir("quarry_kernel", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".py") || d.Name() == "__init__.py" {
			return err
		}
		part := filepath.ToSlash(strings.TrimPrefix(path, "quarry_kernel"+string(os.PathSeparator)))
		if !slices.Contains(listed, part) {
			t.Errorf("%s is in no program of parts.txt: add it where it runs", part)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) < 40 {
		t.Fatalf("parts.txt lists only %d parts", len(listed))
	}
}

func TestProgramsEndWhereTheyStart(t *testing.T) {
	kernel := Program("kernel")
	if got := kernel[len(kernel)-1]; got != "runtime/kernel.py" {
		t.Errorf("the kernel program ends with %s, want the main loop, runtime/kernel.py", got)
	}
	if !slices.Contains(kernel, ImportsPart) {
		t.Errorf("the kernel program lacks %s, which the imports settings go before", ImportsPart)
	}
	if got := Program("profile")[0]; got != "profile/front.py" {
		t.Errorf("the profile program starts with %s, want its entry point, profile/front.py", got)
	}
}

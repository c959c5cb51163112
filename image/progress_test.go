package image

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

func TestReadJSONMessages(t *testing.T) {
	var w strings.Builder
	err := readJSONMessages(strings.NewReader(`{"status":"sha256:abc"}
{"stream":"Step 1/6 : FROM debian\n"}
`), &w, "import")
	if err != nil || w.String() != "import: sha256:abc\nimport: Step 1/6 : FROM debian\n" {
		t.Fatalf("got %q, %v", w.String(), err)
	}
	err = readJSONMessages(strings.NewReader(`{"stream":"ok\n"}
{"errorDetail":{"message":"no space left on device"},"error":"no space left on device"}
{"stream":"never printed\n"}`), &w, "build")
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("engine error not returned: %v", err)
	}
	if strings.Contains(w.String(), "never printed") {
		t.Errorf("kept reading after the engine's error")
	}
	if err := readJSONMessages(strings.NewReader(`{"stream":`), &w, "x"); err == nil {
		t.Errorf("truncated progress stream not reported")
	}
}

func TestRunLoggedPrefixesEveryLine(t *testing.T) {
	var w strings.Builder
	err := runLogged(context.Background(), &w, "debootstrap",
		exec.Command("sh", "-c", "echo 'I: Retrieving a'; echo 'W: warn' >&2; echo 'I: done'"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"debootstrap: I: Retrieving a\n", "debootstrap: W: warn\n", "debootstrap: I: done\n"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("output %q lacks %q", w.String(), want)
		}
	}
	if err := runLogged(context.Background(), &w, "setup", exec.Command("sh", "-c", "exit 3")); err == nil {
		t.Errorf("failing command reported no error")
	}
}

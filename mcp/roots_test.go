package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/config"
)

// A client attaches nothing outside the roots: not by an absolute path,
// not up through "..", not through a symbolic link leading out, not a
// file with another name (a hard link) that may be outside. Each refusal
// says why, and none reaches a sandbox (this test has no engine).
func TestAttachRefusedOutsideRoots(t *testing.T) {
	outside := t.TempDir()
	secretFile := filepath.Join(outside, "secret.csv")
	os.WriteFile(secretFile, []byte("k,v\npassword,hunter2\n"), 0o644)
	h := newHarness(t, Options{}, false, nil)
	os.MkdirAll(filepath.Join(h.root, "sub"), 0o755)
	os.Symlink(secretFile, filepath.Join(h.root, "link.csv"))
	os.Symlink(outside, filepath.Join(h.root, "dirlink"))
	hard := filepath.Join(h.root, "hard.csv")
	if err := os.Link(secretFile, hard); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	for _, c := range []struct{ path, why string }{
		{secretFile, "outside the folders"},
		{"../" + filepath.Base(outside) + "/secret.csv", `".."`},
		{"sub/../../secret.csv", `".."`},
		{"link.csv", "symbolic link"},
		{"dirlink/secret.csv", "symbolic link"},
		{hard, "hard links"},
		{"missing.csv", "no such file"},
		{"", "give the path"},
	} {
		res := h.call("attach_file", map[string]any{"path": c.path})
		got := text(res)
		if !res.IsError || !strings.Contains(got, c.why) {
			t.Errorf("attach %q: isError %v, %q; want the reason %q", c.path, res.IsError, got, c.why)
		}
		if strings.Contains(got, "hunter2") || strings.Contains(got, outside) && c.path != secretFile {
			t.Errorf("attach %q tells what is outside: %s", c.path, got)
		}
	}
	if id := h.logs.sessionID(); id != "" {
		t.Fatalf("a refused attach started session %s", id)
	}
}

// What may be attached: a file in a root, by a relative or absolute path,
// and a link that stays inside.
func TestRootsResolveInside(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "a"), 0o755)
	f := filepath.Join(root, "a", "q1.csv")
	os.WriteFile(f, []byte("x\n1\n"), 0o644)
	os.Symlink(f, filepath.Join(root, "inside.csv"))
	r, err := NewRoots([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(f)
	for _, p := range []string{"a/q1.csv", f, "./a/q1.csv", "inside.csv"} {
		got, err := r.Resolve(p)
		if err != nil || got != real {
			t.Errorf("Resolve(%q) = %q, %v; want %q", p, got, err, real)
		}
	}
	if _, err := NewRoots([]string{filepath.Join(root, "nope")}); err == nil || !strings.Contains(err.Error(), "--root") {
		t.Errorf("a missing root: %v", err)
	}
	if _, err := NewRoots([]string{f}); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("a file as root: %v", err)
	}
}

// The folder that holds the sessions' folders is never attached from,
// though it lies inside a root (./quarry-output in the working directory
// is the default): one client would read another's outputs, exports and
// record. Nor through a link to it, nor when it is made (as a link) only
// after the server started.
func TestAttachRefusedInOutputFolder(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	other := filepath.Join(root, "quarry-output", "20260101-000000-abcdef")
	os.MkdirAll(filepath.Join(other, "outputs"), 0o755)
	os.WriteFile(filepath.Join(other, "session.jsonl"), []byte(`{"kind":"cell","code":"secret = 'hunter2'"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(other, "outputs", "result.csv"), []byte("k,v\npassword,hunter2\n"), 0o644)
	os.Symlink(filepath.Join(other, "outputs"), filepath.Join(root, "theirs"))
	h := newHarness(t, Options{Roots: []string{"."}, Config: config.Config{OutputDir: "./quarry-output"}}, false, nil)
	for _, p := range []string{
		"quarry-output/20260101-000000-abcdef/session.jsonl",
		"./quarry-output/20260101-000000-abcdef/outputs/result.csv",
		filepath.Join(other, "session.jsonl"),
		"theirs/result.csv",
	} {
		res := h.call("attach_file", map[string]any{"path": p})
		if got := text(res); !res.IsError || !strings.Contains(got, "holds the MCP sessions' files") || strings.Contains(got, "hunter2") {
			t.Errorf("attach %q: isError %v, %q; want it refused as the sessions' folder", p, res.IsError, got)
		}
	}
	if id := h.logs.sessionID(); id != "" {
		t.Fatalf("a refused attach started session %s", id)
	}

	// --output-dir names a link not made yet; it is made later, into the root.
	r, err := NewRoots([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	r.Private(filepath.Join(root, "later"))
	os.MkdirAll(filepath.Join(root, "real-out", "s1"), 0o755)
	os.WriteFile(filepath.Join(root, "real-out", "s1", "session.jsonl"), []byte("{}\n"), 0o644)
	os.WriteFile(filepath.Join(root, "data.csv"), []byte("x\n1\n"), 0o644)
	if _, err := r.Resolve("real-out/s1/session.jsonl"); err != nil {
		t.Fatalf("before the output folder exists: %v", err)
	}
	os.Symlink(filepath.Join(root, "real-out"), filepath.Join(root, "later"))
	if _, err := r.Resolve("real-out/s1/session.jsonl"); err == nil || !strings.Contains(err.Error(), "--output-dir") {
		t.Errorf("the output folder made as a link later: %v", err)
	}
	if _, err := r.Resolve("data.csv"); err != nil {
		t.Errorf("a data file beside the output folder: %v", err)
	}
}

package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	moby "github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/config"
)

// A client attaches nothing outside the roots: not by an absolute path,
// not up through "..", not through a symbolic link leading out, not a
// file with another name (a hard link) that may be outside. Each refusal
// says why, and none reaches a sandbox (this test has no engine).
func TestAttachRefusedOutsideRoots(t *testing.T) {
	outside, secretFile := secretOutside(t)
	h := newHarness(t, Options{}, false, nil)
	os.MkdirAll(filepath.Join(h.root, "sub"), 0o755)
	os.Symlink(secretFile, filepath.Join(h.root, "link.csv"))
	os.MkdirAll(filepath.Join(h.root, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(h.root, ".ssh", "keys.csv"), []byte("k,v\npassword,hunter2\n"), 0o600)
	os.WriteFile(filepath.Join(h.root, ".env"), []byte("k,v\npassword,hunter2\n"), 0o600)
	os.Symlink(filepath.Join(h.root, ".ssh", "keys.csv"), filepath.Join(h.root, "visible.csv"))
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
		{".ssh/keys.csv", "hidden"},
		{".env", "hidden"},
		{filepath.Join(h.root, ".ssh", "keys.csv"), "hidden"},
		{"visible.csv", "hidden"}, // a visible link to a hidden file
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
	r.Private(filepath.Join(root, "later"), holdsSessions)
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

// A file checked when the call came can be swapped before it is read:
// Recheck, right before the read, refuses a link put in its place (one
// leading out or one staying inside), a link put on its way, and a hard
// link; the file as it was passes.
func TestRecheckRefusesSwappedFile(t *testing.T) {
	root := t.TempDir()
	outside, secretFile := secretOutside(t)
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "other.csv"), []byte("x\n2\n"), 0o644)
	r, err := NewRoots([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, file string
		swap       func(path string) error
		why        string
	}{
		{"unchanged", "q1.csv", func(string) error { return nil }, ""},
		{"link out", "q1.csv", func(p string) error { os.Remove(p); return os.Symlink(secretFile, p) }, "symbolic link"},
		{"link inside", "q1.csv", func(p string) error { os.Remove(p); return os.Symlink(filepath.Join(root, "other.csv"), p) }, "a symbolic link now stands on its path"},
		{"folder a link", "sub/q1.csv", func(p string) error {
			os.RemoveAll(filepath.Dir(p))
			os.WriteFile(filepath.Join(outside, "q1.csv"), []byte("k,v\npassword,hunter2\n"), 0o644)
			return os.Symlink(outside, filepath.Dir(p))
		}, "symbolic link"},
		{"hard link", "q1.csv", func(p string) error { os.Remove(p); return os.Link(secretFile, p) }, "hard links"},
	} {
		p := filepath.Join(root, c.file)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.Remove(p)
		if err := os.WriteFile(p, []byte("x\n1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		real, err := r.Resolve(c.file)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := c.swap(real); err != nil {
			t.Fatalf("%s: the swap: %v", c.name, err)
		}
		err = r.Recheck(real, nil)
		switch {
		case c.why == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.why != "" && (err == nil || !strings.Contains(err.Error(), c.why) || !strings.Contains(err.Error(), "changed after it was checked")):
			t.Errorf("%s: %v; want it refused naming %q", c.name, err, c.why)
		case err != nil && strings.Contains(err.Error(), outside):
			t.Errorf("%s: the refusal says where the link leads: %v", c.name, err)
		}
		os.Remove(real)
		os.Remove(filepath.Join(root, "sub"))
	}
}

// The file a client's attach_file named is swapped for a link leading out
// after the path was checked and before it is read (here: while the
// sandbox starts, which the call waits for): the attach is refused and
// nothing of the file outside reaches the client or the sandbox.
func TestAttachRefusesLinkSwappedIn(t *testing.T) {
	outside, secretFile := secretOutside(t)
	h := newHarness(t, Options{}, true, nil)
	data := h.writeFile("q1.csv", "region,revenue\nnorth,1\n")
	h.logs.mu.Lock()
	h.logs.onLine = func(line string) {
		if strings.Contains(line, " started for ") {
			os.Remove(data)
			os.Symlink(secretFile, data)
		}
	}
	h.logs.mu.Unlock()
	res := h.call("attach_file", map[string]any{"path": "q1.csv"})
	if got := text(res); !res.IsError || !strings.Contains(got, "changed after it was checked") || strings.Contains(got, "hunter2") || strings.Contains(got, outside) {
		t.Fatalf("attach of a file swapped for a link: isError %v, %s", res.IsError, got)
	}
	if h.logs.sessionID() == "" {
		t.Fatal("the swap was not made: no session started")
	}
	res = h.ok("run_python", map[string]any{"code": "import os\nprint(sorted(os.listdir('/data')))"})
	if got := text(res); strings.Contains(got, "q1.csv") {
		t.Fatalf("the swapped file reached the sandbox: %s", got)
	}
}

// A sandbox removed is made again at the next cell, the session's files
// attached again from the host: a file swapped for a link leading out
// since its attach is refused then too, and the new sandbox goes on
// without it.
func TestRebuildRefusesLinkSwappedIn(t *testing.T) {
	_, secretFile := secretOutside(t)
	h := newHarness(t, Options{}, true, nil)
	data := h.writeFile("q1.csv", "region,revenue\nnorth,1\n")
	h.ok("attach_file", map[string]any{"path": "q1.csv"})
	h.ok("run_python", map[string]any{"code": "kept = 7"})
	os.Remove(data)
	os.Symlink(secretFile, data)
	e := h.srv.opts.Engine
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := e.Client().ContainerList(ctx, moby.ContainerListOptions{Filters: make(moby.Filters).Add("label", "io.quarry.session="+h.logs.sessionID())})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("the session's container: %v, %d", err, len(list.Items))
	}
	if _, err := e.Client().ContainerRemove(ctx, list.Items[0].ID, moby.ContainerRemoveOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	res := h.call("run_python", map[string]any{"code": "import os\nprint(kept, sorted(os.listdir('/data')))"})
	got := text(res)
	if !strings.Contains(got, "q1.csv could not be attached again (the file changed after it was checked") || strings.Contains(got, "hunter2") || strings.Contains(got, "'q1.csv'") {
		t.Fatalf("the cell after the loss: %s", got)
	}
}

// quarry's own session index and settings are no client's, even where XDG
// puts them inside a root and not in a hidden folder.
func TestAttachRefusedInQuarrysState(t *testing.T) {
	root := t.TempDir()
	t.Setenv("QUARRY_CONFIG", filepath.Join(root, "settings", "config.toml"))
	for _, f := range []string{"state/sessions/20260101-000000-abcdef.json", "settings/config.toml", "data.csv"} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(root, f), []byte("k,v\napi_key,sk-hunter2\n"), 0o600)
	}
	srv, err := New(Options{Roots: []string{root}, Index: filepath.Join(root, "state", "sessions")})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"state/sessions/20260101-000000-abcdef.json", "settings/config.toml"} {
		if _, err := srv.roots.Resolve(p); err == nil || !strings.Contains(err.Error(), "quarry's own settings") {
			t.Errorf("attach %q: %v, want it refused as quarry's own", p, err)
		}
	}
	if _, err := srv.roots.Resolve("data.csv"); err != nil {
		t.Errorf("a data file beside them: %v", err)
	}
}

// secretOutside is a folder outside every root holding secret.csv, whose
// password (hunter2) no result may show.
func secretOutside(t *testing.T) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	file = filepath.Join(dir, "secret.csv")
	if err := os.WriteFile(file, []byte("k,v\npassword,hunter2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

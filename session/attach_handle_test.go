package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// The file is swapped for a link to another file right after its check
// (inside ReadCheck, which passes): the attach still reads the file that
// was checked, through the handle the check was given, in /data and in
// the record's hash; nothing of the other file reaches the sandbox.
func TestAttachReadsTheFileItChecked(t *testing.T) {
	e := sandboxtest.Engine(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "q1.csv")
	secret := filepath.Join(t.TempDir(), "secret.csv")
	os.WriteFile(data, []byte("region,revenue\nnorth,1\n"), 0o644)
	os.WriteFile(secret, []byte("k,v\npassword,hunter2\n"), 0o644)
	want := fileSHA256(data)
	swapped := false
	check := func(path string, f *os.File) error {
		if f == nil {
			t.Errorf("ReadCheck of %s without the handle", path)
			return nil
		}
		if err := os.Remove(path); err != nil {
			return err
		}
		swapped = os.Symlink(secret, path) == nil
		return nil
	}
	s := New(Options{Config: config.Config{Timeout: time.Minute, OutputDir: t.TempDir()}, Engine: e, Index: t.TempDir(), Tool: "test", ReadCheck: check})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Attach(ctx, data); err != nil {
		t.Fatal(err)
	}
	if !swapped {
		t.Fatal("the swap was not made: the test proves nothing")
	}
	s.mu.Lock()
	sha := s.attached[0].sha
	s.mu.Unlock()
	if sha != want {
		t.Errorf("the record's hash is another file's: %s, want %s", sha, want)
	}
	c, err := s.RunCell(ctx, "test", "print(open('/data/q1.csv').read())", nil)
	if err != nil || c.Status != CellOK {
		t.Fatalf("cell: %v %+v", err, c)
	}
	if got := c.Result.Stdout; strings.Contains(got, "hunter2") || !strings.Contains(got, "north,1") {
		t.Fatalf("/data/q1.csv holds %q: not the file that was checked", got)
	}
}

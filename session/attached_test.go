package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// The name check of a new attach: the same host file again is "already
// attached" (changed or not), another file of the same name is refused with
// the fix, and a free name passes.
func TestCheckNewFile(t *testing.T) {
	dir := t.TempDir()
	f2 := filepath.Join(dir, "f2.csv")
	other := filepath.Join(dir, "other", "f2.csv")
	for _, p := range []string{f2, other} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("a,b\n1,2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	same := fileSHA256(f2)
	cases := []struct {
		name     string
		attached []attachedFile
		path     string
		want     string // "" passes
		changed  bool
	}{
		{"free name", []attachedFile{{"f1.csv", filepath.Join(dir, "f1.csv"), same}}, f2, "", false},
		{"same file, same content", []attachedFile{{"f2.csv", f2, same}}, f2, "is already attached as f2.csv: it is there to use", false},
		{"same file, changed", []attachedFile{{"f2.csv", f2, "0000"}}, f2, "has changed since", true},
		{"another file, same name", []attachedFile{{"f2.csv", f2, same}}, other, "another file named f2.csv is already attached (from " + f2 + "): copy or rename", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkNewFile(c.attached, c.path, "f2.csv", "s1", fileSHA256)
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to say %q", err, c.want)
			}
			var aa *AlreadyAttachedError
			if errors.As(err, &aa) && aa.Changed != c.changed {
				t.Errorf("changed = %v, want %v", aa.Changed, c.changed)
			}
			if c.changed && !strings.Contains(err.Error(), "quarry --resume s1") {
				t.Errorf("a changed file is not offered the way to read it again: %v", err)
			}
		})
	}
}

// Attaching the same file twice in a running session: the second is
// refused as already attached, and the session still lists it once.
func TestAttachSameFileTwice(t *testing.T) {
	e := sandboxtest.Engine(t)
	srv := openaitest.New(t)
	s := New(Options{Config: testConfig(srv.URL, t.TempDir()), Engine: e})
	defer func() {
		id := s.ID()
		s.Close()
		requireGone(t, id)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "f2.csv")
	if err := os.WriteFile(p, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Attach(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckNewFile(p); err == nil || !strings.Contains(err.Error(), "already attached") {
		t.Errorf("CheckNewFile = %v, want already attached", err)
	}
	_, err := s.Attach(ctx, p)
	var aa *AlreadyAttachedError
	if !errors.As(err, &aa) || aa.Changed {
		t.Errorf("second attach = %v, want already attached, unchanged", err)
	}
	if err := os.WriteFile(p, []byte("a,b\n1,2\n3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = s.Attach(ctx, p)
	if !errors.As(err, &aa) || !aa.Changed || !strings.Contains(err.Error(), "quarry --resume "+s.ID()) {
		t.Errorf("attach of the changed file = %v, want already attached, changed, with the way to read it again", err)
	}
	if n := len(s.Files()); n != 1 {
		t.Errorf("%d files listed, want 1", n)
	}
}

package session

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// Two files with the same name attached at once (a drop of two folders'
// q1.csv): one is refused, rather than the second silently replacing the
// first at /data/q1.csv while both are listed.
func TestConcurrentAttachSameName(t *testing.T) {
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
	var paths []string
	for _, body := range []string{"a,b\n1,2\n", "x,y,z\n3,4,5\n"} {
		p := filepath.Join(t.TempDir(), "q1.csv")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	errs := make(chan error, len(paths))
	for _, p := range paths {
		go func() { _, err := s.Attach(ctx, p); errs <- err }()
	}
	var failed []error
	for range paths {
		if err := <-errs; err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) != 1 || !strings.Contains(failed[0].Error(), "already attached") {
		t.Errorf("errors = %v, want exactly one 'already attached'", failed)
	}
	if n := len(s.Files()); n != 1 {
		t.Errorf("%d files listed, want 1", n)
	}
}

// A file whose profile fails keeps its real size in the record and the
// profile: here the profile outlives a cell time limit of a millisecond.
func TestAttachKeepsSizeWhenProfilingFails(t *testing.T) {
	e := sandboxtest.Engine(t)
	srv := openaitest.New(t)
	cfg := testConfig(srv.URL, t.TempDir())
	cfg.Timeout = time.Millisecond
	s := New(Options{Config: cfg, Engine: e})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	body := []byte(strings.Repeat("2024-01-01 00:00:00,sensor-1,0\n", 20000))
	path := filepath.Join(t.TempDir(), "sensors.csv")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := s.Attach(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Error, "longer than") || p.Size != int64(len(body)) {
		t.Fatalf("profile error %q, size %d (want a timeout and %d)", p.Error, p.Size, len(body))
	}
	rec, err := LoadRecord(s.OutputDir())
	if err != nil {
		t.Fatal(err)
	}
	in := rec.Inputs()
	if len(in) != 1 || in[0].Size != int64(len(body)) || in[0].Profile == nil || in[0].Profile.Size != int64(len(body)) {
		t.Fatalf("record inputs %+v", in)
	}
}

// A space-separated log without an extension attaches and profiles as a
// table; a picture without one is refused before anything is copied.
func TestAttachFileWithoutExtension(t *testing.T) {
	e := sandboxtest.Engine(t)
	srv := openaitest.New(t)
	s := New(Options{Config: testConfig(srv.URL, t.TempDir()), Engine: e})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("#rank name     inst  vote\n")
	for i := 1; i <= 30; i++ {
		b.WriteString(strings.Join([]string{padTo(i, 5), fmt.Sprintf("%-8s", "pkg"+strconv.Itoa(i)), padTo(1000-i, 5), padTo(500-i, 5)}, " ") + "\n")
	}
	log := filepath.Join(dir, "popcon")
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := s.Attach(ctx, log)
	if err != nil {
		t.Fatal(err)
	}
	if p.Error != "" || p.Kind != "csv" || p.Rows != 30 || len(p.Columns) != 4 || p.Columns[0].Name != "#rank" {
		t.Fatalf("profile %+v", p)
	}
	pic := filepath.Join(dir, "chart")
	os.WriteFile(pic, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o644)
	if _, err := s.Attach(ctx, pic); err == nil || !strings.Contains(err.Error(), "is a PNG image") {
		t.Fatalf("attach of a PNG: %v", err)
	}
	if n := len(s.Files()); n != 1 {
		t.Errorf("%d files attached, want 1", n)
	}
}

func padTo(n, w int) string {
	s := strconv.Itoa(n)
	return strings.Repeat(" ", max(0, w-len(s))) + s
}

// A file read by its content rather than its name says so on the event
// stream, so the user sees it as the model does: gzip named .csv.
func TestAttachWarnsWhenTheNameSaysAnotherKind(t *testing.T) {
	e := sandboxtest.Engine(t)
	srv := openaitest.New(t)
	var mu sync.Mutex
	var warnings []string
	s := New(Options{Config: testConfig(srv.URL, t.TempDir()), Engine: e, Events: func(ev agent.Event) {
		if ev.Kind == agent.EventWarning {
			mu.Lock()
			warnings = append(warnings, ev.Text)
			mu.Unlock()
		}
	}})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte("region,amount\nNorth,1\nSouth,2\n"))
	z.Close()
	path := filepath.Join(t.TempDir(), "sales.csv")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := s.Attach(ctx, path)
	if err != nil || p.Error != "" || p.Rows != 2 || p.Compression != "gzip" {
		t.Fatalf("attach: %v, profile %+v", err, p)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(warnings, "sales.csv: named .csv, but it is compressed with gzip") {
		t.Errorf("warnings %q", warnings)
	}
}

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// engineCreates are the engine requests that make an object quarry must
// remove again (docs/architecture.md: one place creates them).
var engineCreates = regexp.MustCompile(`\.(ContainerCreate|VolumeCreate|NetworkCreate)\(`)

// Every container, volume and network quarry makes is made by
// engine/create.go, which names and labels it first and removes it when
// the caller gave up mid-request; tests may make their own.
func TestEngineObjectsCreatedInOnePlace(t *testing.T) {
	for _, f := range createCallers(t, ".") {
		if f != filepath.Join("engine", "create.go") {
			t.Errorf("%s asks the engine to create an object: use engine.CreateContainer or CreateVolume", f)
		}
	}
}

// The rule can fail: a file that calls ContainerCreate is found.
func TestEngineObjectsRuleCatchesACaller(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x.go"), []byte("package x\nfunc f() { cli.ContainerCreate(ctx, o) }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "x_test.go"), []byte("package x\nfunc g() { cli.VolumeCreate(ctx, o) }\n"), 0o644)
	if got := createCallers(t, dir); len(got) != 1 || got[0] != "x.go" {
		t.Fatalf("callers %v, want [x.go]", got)
	}
}

// createCallers lists the non-test Go files under root that call one of
// engineCreates.
func createCallers(t *testing.T, root string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if engineCreates.Match(b) {
			rel, _ := filepath.Rel(root, path)
			found = append(found, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

package config

import (
	"os"
	"path/filepath"
	"testing"
)

// Any file content gives a Config or an error, never a panic.
func FuzzReadFile(f *testing.F) {
	for _, seed := range []string{
		"", "model = \"x\"", "[profiles.a]\nmodel = 1", "prices = { a = { input = 1 } }",
		"[prices]\ngpt-4.1 = { input = 1, output = 2 }", "profile = \"a\"\n[profiles.a]\nmemory = \"1g\"",
		"a.b.c = 1\n[[x]]\ny = 2", "s = '''\nz = 3\n'''", "timeout = 1979-05-27T07:32:00Z", "memory = -5",
		"cpus = nan", "max_steps = 99999999999", "[profiles]\na = 3",
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body string) {
		p := filepath.Join(dir, "c.toml")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Skip()
		}
		c, err := merge(Overrides{ConfigPath: p}, env())
		if err == nil && (c.Model == "" || c.MaxSteps < 1 || c.Timeout <= 0 || c.Memory <= 0 || c.CPUs <= 0) {
			t.Fatalf("accepted an invalid config: %+v", c)
		}
	})
}

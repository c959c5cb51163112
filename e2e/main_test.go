package e2e

// The quarry binary every test here runs, built once per test run, and
// what every run of it gets of the test's environment.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// testKey is the model key every run is given: no output may show it.
const testKey = "sk-e2e-secret-0123456789abcdef"

var built struct {
	once sync.Once
	dir  string // the temporary folder of the build, removed by TestMain
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := sandboxtest.Main(m) // the Dask ledger is made once for the package
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// quarryBin is the path of the binary, built by the first test that asks
// (so a run whose tests all skip, or -list, builds nothing) and shared by
// the rest. QUARRY_TEST_BINARY names a prebuilt one instead, for runs as a
// user without Go (the rootless Podman run of scripts/test-podman.sh).
func quarryBin(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		if p := os.Getenv("QUARRY_TEST_BINARY"); p != "" {
			built.path = p
			return
		}
		built.dir, built.err = os.MkdirTemp("", "quarry-e2e-")
		if built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "quarry")
		out, err := exec.Command("go", "build", "-o", built.path, "github.com/quarry-cli/quarry").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// hostEnv is all a run of quarry gets of the test's environment: PATH, a
// home of its own (its config and its session index) and the engine.
func hostEnv(home string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config")}
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		env = append(env, "DOCKER_HOST="+h)
	}
	return env
}

// modelEnv points quarry at the fake model server at url, asking for model.
func modelEnv(url, model string) []string {
	return []string{"OPENAI_API_KEY=" + testKey, "OPENAI_BASE_URL=" + url, "QUARRY_MODEL=" + model}
}

package e2e

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// interruptCase is one command that makes engine objects, and what says
// that a run of it finished before the signal came.
type interruptCase struct {
	name     string
	args     func(sample int, out string) []string
	model    bool   // talks to the fake model
	finished string // on stdout or stderr of a finished run
}

// Ctrl+C at any moment leaves nothing behind: each command that makes
// engine objects is interrupted at a spread of moments over its run (a
// fixed set of fractions of its uninterrupted time and a seeded random
// sample; QUARRY_INTERRUPT_SEED repeats a run), and the engine then holds
// nothing labelled with that process; the exit is 130, or the command's
// own when it had finished.
func TestInterruptedAtAnyMomentLeavesNothing(t *testing.T) {
	sandboxtest.Engine(t)
	rng := interruptRand(t)

	home := t.TempDir()
	srv := openaitest.New(t)
	srv.Handle(func(req openaitest.Request) openaitest.Reply {
		if res := req.LastToolResult(); res != "" {
			return openaitest.Text("done: " + res)
		}
		return openaitest.ToolCalls("import pandas as pd\nprint('ROWS', len(pd.read_csv('/data/q1.csv')))")
	})
	q1, _ := writeQuarters(t, t.TempDir())
	// The demo's session is what export and rerun work on; its run is the
	// demo's uninterrupted one.
	demo := newRun(t, "", "demo", "-p", "--output-dir", filepath.Join(t.TempDir(), "demo")).withoutModel().inHome(home)
	demo.start()
	t0 := time.Now()
	if code := demo.wait(3 * time.Minute); code != 0 {
		t.Fatalf("demo -p: exit %d\nstderr:\n%s", code, demo.stderr.String())
	}
	demoRun := reference{code: 0, took: time.Since(t0)}
	requireNoContainers(t, demo.cmd.Process.Pid)
	id := onlySession(t, home)

	cases := []interruptCase{
		{name: "doctor", finished: "model endpoint",
			args: func(int, string) []string { return []string{"doctor"} }},
		{name: "demo", finished: "report written:",
			args: func(_ int, out string) []string { return []string{"demo", "-p", "--output-dir", out} }},
		{name: "p", model: true, finished: "done in",
			args: func(_ int, out string) []string { return []string{"-p", "rows?", q1, "--output-dir", out} }},
		{name: "export", finished: string(os.PathSeparator) + "report.",
			args: func(sample int, out string) []string {
				format := []string{"xlsx", "pdf"}[sample%2]
				return []string{"export", id, "--format", format, "-o", filepath.Join(filepath.Dir(out), "report."+format)}
			}},
		{name: "rerun", finished: "the rerun's figures",
			args: func(_ int, out string) []string { return []string{"rerun", id, "--output-dir", out} }},
	}
	fixed := []float64{0.05, 0.3, 0.6, 0.95}
	const random = 3
	// On a loaded machine the random sample shrinks to fit CI; the fixed
	// moments always run.
	budget := time.Now().Add(120 * time.Second)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := func(sample int) *run {
				r := newRun(t, srv.URL, c.args(sample, filepath.Join(t.TempDir(), "out"))...).inHome(home)
				if !c.model {
					r.withoutModel()
				}
				r.start()
				t.Cleanup(func() { removeLabelled(t, r.cmd.Process.Pid) })
				return r
			}
			// The uninterrupted run: its time spreads the moments, its exit is the command's own.
			ref := demoRun
			if c.name != "demo" {
				r := start(0)
				t0 := time.Now()
				ref.code = r.wait(3 * time.Minute)
				ref.took = time.Since(t0)
				if !strings.Contains(r.stdout.String()+r.stderr.String(), c.finished) {
					t.Fatalf("the uninterrupted run (exit %d) does not say %q\nstdout:\n%s\nstderr:\n%s", ref.code, c.finished, r.stdout.String(), r.stderr.String())
				}
				requireNoContainers(t, r.cmd.Process.Pid)
			}
			own, whole := ref.code, ref.took
			moments := append([]float64(nil), fixed...)
			for range random {
				moments = append(moments, rng.Float64())
			}
			for i, m := range moments {
				if i >= len(fixed) && time.Now().After(budget) {
					t.Logf("over the time budget: %d random moments left out", len(moments)-i)
					break
				}
				at := time.Duration(m * float64(whole))
				r := start(i + 1)
				time.Sleep(at)
				sent := r.cmd.Process.Signal(syscall.SIGINT) == nil
				code := r.wait(2 * time.Minute)
				time.Sleep(300 * time.Millisecond) // a create the engine was still carrying out lands
				out := r.stdout.String() + r.stderr.String()
				switch {
				case interruptedExit(r.cmd.ProcessState, code):
				case code == own && strings.Contains(out, c.finished):
					// it had finished before the signal came
				default:
					t.Errorf("SIGINT at %s of %s (signal sent: %v): exit %d, want 130 (or %d, finished)\nstderr:\n%s",
						at.Round(time.Millisecond), whole.Round(time.Millisecond), sent, code, own, r.stderr.String())
				}
				requireNoContainers(t, r.cmd.Process.Pid)
				t.Logf("SIGINT at %5.2f of the run (%s): exit %d", m, at.Round(time.Millisecond), code)
			}
		})
	}
}

// interruptRand is the seeded source of the random moments, its seed
// logged; QUARRY_INTERRUPT_SEED repeats a run.
func interruptRand(t *testing.T) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("QUARRY_INTERRUPT_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (QUARRY_INTERRUPT_SEED=%d repeats these moments)", seed, seed)
	return rand.New(rand.NewPCG(seed, 0))
}

// The same for quarry mcp on stdio, from its start to the answer of its
// first tool call (which starts the sandbox): SIGINT at fixed and random
// moments of it, exit 130, nothing labelled with the server left.
func TestMCPInterruptedAtAnyMomentLeavesNothing(t *testing.T) {
	sandboxtest.Engine(t)
	rng := interruptRand(t)
	srv := startRawMCP(t)
	t0 := time.Now()
	waitFor(t, srv.stdout, `"id":2`, 2*time.Minute)
	whole := time.Since(t0)
	srv.stdin.Close() // the server ends, removing its sandbox
	srv.cmd.Wait()
	requireNoContainers(t, srv.cmd.Process.Pid)
	for _, m := range []float64{0.05, 0.3, 0.6, 0.95, rng.Float64(), rng.Float64()} {
		srv := startRawMCP(t)
		at := time.Duration(m * float64(whole))
		time.Sleep(at)
		srv.cmd.Process.Signal(syscall.SIGINT)
		done := make(chan struct{})
		go func() { srv.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			srv.cmd.Process.Kill()
			<-done
			t.Fatalf("quarry mcp still running a minute after SIGINT\n%s", srv.stderr.String())
		}
		code := srv.cmd.ProcessState.ExitCode()
		if !interruptedExit(srv.cmd.ProcessState, code) {
			t.Errorf("SIGINT at %s of %s: exit %d, want 130\n%s", at.Round(time.Millisecond), whole.Round(time.Millisecond), code, srv.stderr.String())
		}
		time.Sleep(300 * time.Millisecond) // a create the engine was still carrying out lands
		requireNoContainers(t, srv.cmd.Process.Pid)
		t.Logf("SIGINT at %5.2f of the first call (%s): exit %d", m, at.Round(time.Millisecond), code)
	}
}

// rawMCP is quarry mcp on stdio fed a script: initialize, then one
// run_python call; its standard input stays open until the test closes it.
type rawMCP struct {
	cmd            *exec.Cmd
	stdin          *os.File
	stdout, stderr *syncBuffer
}

const mcpScript = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_python","arguments":{"code":"x = 1"}}}
`

func startRawMCP(t *testing.T) *rawMCP {
	t.Helper()
	in, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &rawMCP{cmd: exec.Command(quarryBin(t), "mcp", "--root", t.TempDir(), "--output-dir", t.TempDir()),
		stdin: w, stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	s.cmd.Env = mcpEnv(t.TempDir())
	s.cmd.Stdin, s.cmd.Stdout, s.cmd.Stderr = in, s.stdout, s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in.Close()
	w.WriteString(mcpScript)
	t.Cleanup(func() {
		w.Close()
		if s.cmd.ProcessState == nil {
			s.cmd.Process.Kill()
			s.cmd.Wait()
		}
		removeLabelled(t, s.cmd.Process.Pid)
	})
	return s
}

// reference is an uninterrupted run: its exit status and time.
type reference struct {
	code int
	took time.Duration
}

// interruptedExit is exit 130, or a death by SIGINT itself: a signal that
// comes before quarry listens for it (shells report both as 130).
func interruptedExit(ps *os.ProcessState, code int) bool {
	if code == 130 {
		return true
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGINT
}

// onlySession is the id of the one session in home's index.
func onlySession(t *testing.T, home string) string {
	t.Helper()
	cmd := exec.Command(quarryBin(t), "sessions", "--json")
	cmd.Env = hostEnv(home)
	out, err := cmd.Output()
	var list []struct{ ID string }
	if err == nil {
		err = json.Unmarshal(out, &list)
	}
	if err == nil && len(list) != 1 {
		err = errors.New("not one session")
	}
	if err != nil {
		t.Fatalf("quarry sessions --json: %v\n%s", err, out)
	}
	return list[0].ID
}

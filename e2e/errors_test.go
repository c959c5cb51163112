package e2e

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// Exit statuses 1 and 2 of the real binary: bad input, bad setup, failures.

// Bad input: exit 2 before any container starts or request is sent, the
// message naming the file and the fix.
func TestBadInputExit2(t *testing.T) {
	quarryBin(t)
	srv := openaitest.New(t)
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.csv", "a,b\n1,2\n")
	empty := write("empty.csv", "")
	pdf := write("report.pdf", "%PDF-1.7")
	blob := write("blob.csv", "a,b\n\x00\x00\x00")
	fakeXLSX := write("book.xlsx", "a,b\n1,2\n")
	folder := filepath.Join(dir, "exports")
	os.Mkdir(folder, 0o755)
	missing := filepath.Join(dir, "q3.csv")
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "keep.txt"), []byte("mine"), 0o644)
	other := filepath.Join(t.TempDir(), "good.csv")
	os.WriteFile(other, []byte("a\n1\n"), 0o644)

	cases := []struct {
		name  string
		args  []string
		stdin string
		want  []string
	}{
		{"missing file", []string{"-p", "x", good, missing}, "", []string{missing, "no such file"}},
		{"folder", []string{"-p", "x", folder}, "", []string{folder, "is a folder"}},
		{"empty file", []string{"-p", "x", empty}, "", []string{empty, "is empty"}},
		{"unsupported type", []string{"-p", "x", pdf}, "", []string{pdf, "unsupported", ".csv"}},
		{"binary csv", []string{"-p", "x", blob}, "", []string{blob, "binary"}},
		{"xlsx not a workbook", []string{"-p", "x", fakeXLSX}, "", []string{fakeXLSX, "not an Excel workbook"}},
		{"same name twice", []string{"-p", "x", good, other}, "", []string{"same name", "good.csv"}},
		{"empty prompt on stdin", []string{"-p", "-", good}, "  \n", []string{"prompt", "empty"}},
		{"binary data on stdin", []string{"-p", "x"}, "\x00\x01\x02\x03", []string{"standard input", "binary"}},
		{"output folder not empty", []string{"-p", "x", good, "--output-dir", full}, "", []string{full, "not empty"}},
		{"confirm in headless", []string{"-p", "x", "--confirm", good}, "", []string{"--confirm"}},
		{"bad timeout", []string{"-p", "x", "--timeout", "1ns", good}, "", []string{"--timeout"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRun(t, srv.URL, c.args...)
			if c.stdin != "" {
				r.stdin = strings.NewReader(c.stdin)
			}
			if code := r.exec(30 * time.Second); code != 2 {
				t.Fatalf("exit %d, want 2", code)
			}
			msg := r.stderr.String()
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr lacks %q:\n%s", w, msg)
				}
			}
			if r.stdout.Len() != 0 {
				t.Errorf("stdout not empty: %q", r.stdout.String())
			}
			if _, err := os.Stat(filepath.Join(r.dir, "quarry-output")); err == nil {
				t.Error("an output folder was created before the input was checked")
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the model server got %d requests for bad input", n)
	}
}

func TestUnreachableModelExit1(t *testing.T) {
	sandboxtest.Engine(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // a closed loopback port: connection refused
	q1, _ := writeQuarters(t, t.TempDir())
	r := newRun(t, "http://"+addr+"/v1", "-p", "variance", q1)
	if code := r.exec(3 * time.Minute); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	msg := r.stderr.String()
	for _, w := range []string{addr, "--base-url"} {
		if !strings.Contains(msg, w) {
			t.Errorf("stderr lacks %q:\n%s", w, msg)
		}
	}
	if strings.Contains(msg, testKey) {
		t.Error("the API key was printed")
	}
	if r.stdout.Len() != 0 {
		t.Errorf("stdout not empty: %q", r.stdout.String())
	}
	requireNoContainers(t, r.cmd.Process.Pid)
}

// No key and no Ollama: a setup problem, reported before any container.
func TestNoModelSetupExit2(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	q1, _ := writeQuarters(t, t.TempDir())
	r := newRun(t, "", "-p", "variance", q1)
	var env []string
	for _, kv := range r.env {
		if !strings.HasPrefix(kv, "OPENAI_") {
			env = append(env, kv)
		}
	}
	r.env = append(env, "QUARRY_OLLAMA_HOST=http://"+closed)
	if code := r.exec(time.Minute); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if msg := r.stderr.String(); !strings.Contains(msg, "OPENAI_API_KEY") {
		t.Errorf("stderr does not say which key to set:\n%s", msg)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "quarry-output")); err == nil {
		t.Error("an output folder was created")
	}
}

// No Docker engine: exit 1 with what to do, and no request to the model.
func TestNoDockerExit1(t *testing.T) {
	srv := openaitest.New(t)
	q1, _ := writeQuarters(t, t.TempDir())
	r := newRun(t, srv.URL, "-p", "variance", q1)
	r.env = append(r.env, "DOCKER_HOST=unix://"+filepath.Join(t.TempDir(), "no-docker.sock"))
	if code := r.exec(time.Minute); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if msg := r.stderr.String(); !strings.Contains(msg, "container engine not reachable") || !strings.Contains(msg, "DOCKER_HOST") {
		t.Errorf("stderr does not say what failed and what to do:\n%s", msg)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the model server got %d requests", n)
	}
}

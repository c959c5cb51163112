package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"charm.land/fang/v2"
	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
	"github.com/quarry-cli/quarry/secret"
	"github.com/quarry-cli/quarry/source/pgtest"
)

// keyShapes are the keys of the providers quarry talks to, and keys with
// the characters that change under JSON and URL encoding.
var keyShapes = []string{
	"sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
	"sk-ant-api03-Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0",
	"gsk_9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c",
	"xai-Q1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHh",
	"0123456789abcdef0123456789abcdef", // Azure: 32 hex digits
	"AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUv",
	"key+with/slash=and&amp<html>\"quote@at",
}

// leaks reports every form of key found in out: the key itself, JSON- or
// URL-encoded.
func leaks(key, out string) []string {
	q, _ := json.Marshal(key)
	var found []string
	for _, form := range []string{key, string(q[1 : len(q)-1]), url.QueryEscape(key), url.PathEscape(key), url.User(key).String()} {
		if strings.Contains(out, form) {
			found = append(found, form)
		}
	}
	return found
}

func requireNoKey(t *testing.T, exit, key, out string) {
	t.Helper()
	if found := leaks(key, out); len(found) > 0 {
		t.Errorf("%s shows the key %q (as %q):\n%s", exit, key, found, out)
	}
}

// echoServer is a model server that quotes the key in every error: as a
// Bearer header echo and in the message, the way misbehaving proxies do.
func echoServer(t *testing.T, key string) *openaitest.Server {
	srv := openaitest.New(t)
	srv.Handle(func(openaitest.Request) openaitest.Reply {
		return openaitest.Error(400, "Invalid request; got Authorization: Bearer "+key+" and key "+key)
	})
	return srv
}

// TestKeysReachNoExit feeds every shape of key, placed as the API key, as
// the base URL's user name (the connection-refused regression) and as a
// query parameter, through the headless mode, and reads stderr, stdout
// (--json) and the session record for it.
func TestKeysReachNoExit(t *testing.T) {
	sandboxtest.Engine(t)
	fast := func(c *agent.Config) { c.RetryBaseDelay, c.MaxRetries = 5*time.Millisecond, 1 }
	for _, key := range keyShapes {
		srv := echoServer(t, key)
		userinfo := (&url.URL{Scheme: "http", User: url.User(key), Host: "127.0.0.1:1", Path: "/v1"}).String()
		query := srv.URL + "/v1?api-key=" + url.QueryEscape(key)
		for _, c := range []struct{ name, apiKey, baseURL string }{
			{"api key echoed by the server", key, srv.URL},
			{"key as the base URL's user name, server down", "sk-other-0123456789", userinfo},
			{"key as a query parameter", "", query},
		} {
			t.Run(fmt.Sprintf("%s/%.12s", c.name, key), func(t *testing.T) {
				isolateConfig(t)
				t.Setenv("QUARRY_PROVIDER", "compatible")
				r := headlessWithKey(t, c.apiKey, c.baseURL, fast)
				if r.err == nil {
					t.Fatalf("the run succeeded against a server that only fails")
				}
				requireNoKey(t, "stderr", key, r.stderr)
				requireNoKey(t, "stdout", key, r.stdout)
				requireNoKey(t, "the session record", key, r.transcript)
				if !strings.Contains(r.stderr, "the run failed") {
					t.Errorf("the failure is not reported: %q", r.stderr)
				}
			})
		}
	}
}

// TestKeysInAnswersAndRetries: a run that succeeds after a retry whose
// error quoted the key, with the key in the answer and in cell output:
// --json, the progress and the session record show none of it.
func TestKeysInAnswersAndRetries(t *testing.T) {
	sandboxtest.Engine(t)
	for _, key := range keyShapes {
		t.Run(fmt.Sprintf("%.12s", key), func(t *testing.T) {
			isolateConfig(t)
			k := fmt.Sprintf("%q", key)
			srv := openaitest.New(t,
				openaitest.Error(503, "overloaded; your key "+key+" is fine"),
				openaitest.ToolCalls("print("+k+")"),
				openaitest.Text("The key is "+key+"."))
			t.Setenv("QUARRY_TOOL_MODE", "native")
			r := headlessWithKey(t, key, srv.URL, func(c *agent.Config) { c.RetryBaseDelay = 5 * time.Millisecond })
			if r.err != nil {
				t.Fatalf("run: %v\n%s", r.err, r.stderr)
			}
			requireNoKey(t, "stderr", key, r.stderr)
			requireNoKey(t, "--json", key, r.stdout)
			requireNoKey(t, "the session record", key, r.transcript)
			if !strings.Contains(r.stdout, secret.Hidden) || !strings.Contains(r.stderr, "retry 1") {
				t.Errorf("the answer or the retry is missing:\nstdout %s\nstderr %s", r.stdout, r.stderr)
			}
		})
	}
}

// headlessResult is what one `quarry -p x --json` run left on each exit.
type headlessResult struct {
	stdout, stderr, transcript string
	err                        error
}

// headlessWithKey runs the headless mode in process with this key and base
// URL (the configuration otherwise isolated by the caller); stderr includes
// the final error as the command line prints it.
func headlessWithKey(t *testing.T, key, baseURL string, hook func(*agent.Config)) headlessResult {
	t.Helper()
	t.Setenv("QUARRY_MODEL", "gpt-fake")
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("OPENAI_BASE_URL", baseURL)
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	a := newApp(Build{}, strings.NewReader(""), &stdout, &stderr)
	f := &rootFlags{prompt: "variance?", promptSet: true, jsonOut: true}
	f.overrides.OutputDir = out
	err := a.headlessRun(context.Background(), f, hook)
	if err != nil {
		a.printError(&stderr, fang.Styles{}, err)
	}
	transcript, terr := os.ReadFile(filepath.Join(out, "session.jsonl"))
	if terr != nil {
		t.Fatalf("session record: %v", terr)
	}
	return headlessResult{stdout: stdout.String(), stderr: stderr.String(), transcript: string(transcript), err: err}
}

// TestKeysNotInPanicDoctorOrConfig: the panic guard, quarry doctor and
// quarry config, each with the key as the API key and inside the base URL.
func TestKeysNotInPanicDoctorOrConfig(t *testing.T) {
	for _, key := range keyShapes {
		t.Run(fmt.Sprintf("%.12s", key), func(t *testing.T) {
			isolateConfig(t)
			t.Setenv("DOCKER_HOST", "unix:///nonexistent.sock")
			// A model server that quotes the key in its error.
			models := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(500)
				fmt.Fprintf(w, `{"error":{"message":"broken for %s (%s)"}}`, r.Header.Get("Authorization"), key)
			}))
			defer models.Close()
			base := strings.Replace(models.URL, "http://", "http://"+url.User(key).String()+"@", 1) + "/v1?api-key=" + url.QueryEscape(key)
			t.Setenv("QUARRY_MODEL", "gpt-fake")
			t.Setenv("OPENAI_API_KEY", key)
			t.Setenv("OPENAI_BASE_URL", base)

			_, out, errOut := runCmd(t, "doctor")
			requireNoKey(t, "quarry doctor", key, out+errOut)
			if !strings.Contains(out, "model endpoint") {
				t.Errorf("doctor did not check the model:\n%s", out)
			}
			_, out, errOut = runCmd(t, "config", "-v")
			requireNoKey(t, "quarry config", key, out+errOut)

			var stderr bytes.Buffer
			l := &launched{mask: secret.New(append([]string{key}, secret.FromURL(base)...)...)}
			var err error
			func() {
				defer l.guard(&err, &stderr, func() {})
				panic(fmt.Sprintf("boom: %s at %s", key, base))
			}()
			requireNoKey(t, "the panic message", key, stderr.String())
			if exitCode(err) != exitFailed || !strings.Contains(stderr.String(), "internal error") {
				t.Errorf("panic: exit %d, stderr %q", exitCode(err), stderr.String())
			}
		})
	}
}

// TestDatabasePasswordsReachNoExit: a source's password, in its URL, as a
// key=value password= word and in PGPASSWORD, right and wrong, through the
// start-up check (exit 2, the source and the reason named), quarry config
// and quarry doctor. The server is a real PostgreSQL (source/pgtest).
func TestDatabasePasswordsReachNoExit(t *testing.T) {
	srv := pgtest.Start(t)
	srv.CreateDB(t, "sales")
	wrong := "Wr0ng:pa55/w@rd%x"
	dsn := func(pw string) string {
		return fmt.Sprintf("host=%s dbname=sales user=%s sslmode=disable password='%s'", srv.Socket, srv.User, strings.ReplaceAll(pw, "'", `\'`))
	}
	for _, c := range []struct {
		name, db, pgpassword string
		secrets              []string
		fails                string // the reason the start-up check gives; "" when it passes
	}{
		{"wrong password in the URL", "sales=" + srv.URLWith("sales", wrong), "", []string{wrong}, "wrong password"},
		{"wrong password= word", "sales=" + dsn(wrong), "", []string{wrong}, "wrong password"},
		{"wrong PGPASSWORD", srv.URLWith("sales", ""), wrong, []string{wrong}, "wrong password"},
		{"unreachable, password in the URL", "sales=" + strings.Replace(srv.URL("sales"), url.QueryEscape(srv.Socket), url.QueryEscape(srv.Socket+"-gone"), 1), "", []string{srv.Password}, "unreachable"},
		{"right password in the URL", "sales=" + srv.URL("sales"), "", []string{srv.Password}, ""},
		{"right password= word", "sales=" + dsn(srv.Password), "", []string{srv.Password}, ""},
		{"right PGPASSWORD", srv.URLWith("sales", ""), srv.Password, []string{srv.Password}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			isolateConfig(t)
			t.Setenv("PGPASSWORD", c.pgpassword)
			t.Setenv("PGPASSFILE", filepath.Join(t.TempDir(), "none"))
			t.Setenv("DOCKER_HOST", "unix:///nonexistent.sock")
			t.Setenv("QUARRY_MODEL", "gpt-fake")
			t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
			t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
			check := func(exit, out string) {
				for _, s := range c.secrets {
					requireNoKey(t, exit, s, out)
				}
			}
			code, out, errOut := runCmd(t, "-p", "total?", "--db", c.db, "--output-dir", filepath.Join(t.TempDir(), "o"))
			check("the start-up check", out+errOut)
			if c.fails != "" {
				if code != exitUsage || !strings.Contains(errOut, "source sales") || !strings.Contains(errOut, c.fails) {
					t.Errorf("exit %d, want %d naming the source and %q:\n%s", code, exitUsage, c.fails, errOut)
				}
			} else if strings.Contains(errOut, "source sales") {
				t.Errorf("a good source failed its check:\n%s", errOut)
			}
			_, out, errOut = runCmd(t, "config", "-v", "--db", c.db)
			check("quarry config", out+errOut)
			if !strings.Contains(out, "sales") {
				t.Errorf("quarry config does not show the source:\n%s", out)
			}
			_, out, errOut = runCmd(t, "doctor", "--db", c.db)
			check("quarry doctor", out+errOut)
			if !strings.Contains(out, "database sales") || (c.fails == "") != strings.Contains(out, "a read-only transaction works") {
				t.Errorf("doctor's check of the source:\n%s", out)
			}
		})
	}
}

// TestDatabaseSessionRecordAndJSON: a headless run whose cells read a
// real PostgreSQL through sql(db=): the query is part of its cell in the
// record, the answer is right, and the password is in no exit: stderr,
// --json, the session record.
func TestDatabaseSessionRecordAndJSON(t *testing.T) {
	sandboxtest.Engine(t)
	srv := pgtest.Start(t)
	srv.CreateDB(t, "sales")
	srv.Exec(t, "sales", "CREATE TABLE orders (region text, amount int); INSERT INTO orders VALUES ('North', 5), ('North', 7), ('South', 1)")
	isolateConfig(t)
	t.Setenv("PGPASSWORD", "")
	model := openaitest.New(t,
		openaitest.ToolCalls(`t = sql("SELECT region, sum(amount)::int AS total FROM orders GROUP BY 1 ORDER BY 1", db="sales")`+"\n"+
			`print(t.to_dict('records'))`+"\n"+`sql("DELETE FROM orders", db="sales")`),
		openaitest.Text("North 12, South 1."))
	t.Setenv("QUARRY_TOOL_MODE", "native")
	var stdout, stderr bytes.Buffer
	a := newApp(Build{}, strings.NewReader(""), &stdout, &stderr)
	f := &rootFlags{prompt: "totals by region?", promptSet: true, jsonOut: true}
	out := filepath.Join(t.TempDir(), "out")
	f.overrides.OutputDir = out
	f.overrides.DB = []string{"sales=" + srv.URL("sales")}
	t.Setenv("QUARRY_MODEL", "gpt-fake")
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
	t.Setenv("OPENAI_BASE_URL", model.URL)
	err := a.headlessRun(context.Background(), f, nil)
	if err != nil {
		a.printError(&stderr, fang.Styles{}, err)
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	record, rerr := os.ReadFile(filepath.Join(out, "session.jsonl"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	requireNoKey(t, "stderr", srv.Password, stderr.String())
	requireNoKey(t, "--json", srv.Password, stdout.String())
	requireNoKey(t, "the session record", srv.Password, string(record))
	if !strings.Contains(string(record), `db=\"sales\"`) || !strings.Contains(string(record), `'total': 12`) ||
		!strings.Contains(string(record), "cannot execute DELETE in a read-only transaction") {
		t.Errorf("the record lacks the query, its result or the refused write:\n%s", record)
	}
	if n := srv.QueryInt(t, "sales", "SELECT count(*) FROM orders"); n != 3 {
		t.Errorf("%d rows after the refused DELETE", n)
	}
}

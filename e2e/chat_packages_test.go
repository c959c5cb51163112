package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image/apttest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// The model of these chats: each question names the cell it runs, and the
// answer after a cell repeats what the cell printed, so the screen shows
// what the kernel had.
func cellPerQuestion(cells map[string]string) func(openaitest.Request) openaitest.Reply {
	return func(r openaitest.Request) openaitest.Reply {
		msgs := r.Messages()
		if last := msgs[len(msgs)-1]; last.Role == openai.ChatMessageRoleTool {
			out := strings.TrimSpace(last.Content)
			if i := strings.Index(out, "[notes]"); i >= 0 {
				out = out[:i]
			}
			return openaitest.Text("The cell said: " + strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(out), "[stdout]")))
		}
		for word, code := range cells {
			if strings.Contains(r.LastUser(), word) {
				return openaitest.ToolCalls(code)
			}
		}
		return openaitest.Text("nothing to run")
	}
}

// A chat that hits an import of a module the sandbox lacks asks, adds the
// package from the signed archive (on 127.0.0.1: the test's own, in an
// image repository of its own), moves to the image with it, replays and
// answers, the earlier variables intact.
func TestChatAddsAPackageOnImport(t *testing.T) {
	requireChat(t)
	e := sandboxtest.Engine(t)
	repo := apttest.New(t, apttest.Hello, apttest.Greet)
	extras, _ := repo.Env(e)
	srv := openaitest.New(t)
	srv.Handle(cellPerQuestion(map[string]string{
		"budget": "budget = 40",
		"hello":  "import quarry_hello\nprint(quarry_hello.hello(), budget + 2)",
	}))
	dir := t.TempDir()
	env := append(modelEnv(srv.URL, "gpt-4o-mini"), extras...)
	c := startChatEnv(t, dir, env, []string{"--output-dir", filepath.Join(dir, "out")})
	c.waitFor("the sandbox", 3*time.Minute, has("sandbox ready"))

	c.typeLine("set the budget")
	c.waitFor("the first answer", 2*time.Minute, has("The cell said", "sandbox ready"))
	c.typeLine("say hello")
	s := c.waitFor("the question", 2*time.Minute, has("quarry_hello is in Debian (python3-quarry-hello 1.2, 2 packages,", "add it to the sandbox? [y/N]"))
	t.Logf("the question:\n%s", s)
	c.keys("y")
	s = c.waitFor("the answer after the package was added", 3*time.Minute, has("The cell said: hello, world 42", "sandbox ready"))
	t.Logf("after adding:\n%s", s)
	if !strings.Contains(strings.Join(strings.Fields(s), " "), "the sandbox was rebuilt: 1 cell replayed") {
		t.Errorf("the screen does not say the state was rebuilt:\n%s", s)
	}
}

// The engine restarts between two questions: a proxy in front of the real
// engine drops and refuses its connections, and the session's container is
// killed through the real engine, as a restart does to it (the shared
// engine itself is never restarted: other tests use it). The status bar
// stops saying ready; the second question's cell finds the first one's
// variables, and the screen says the sandbox was rebuilt.
func TestChatEngineRestartBetweenQuestions(t *testing.T) {
	requireChat(t)
	local := sandboxtest.Engine(t)
	p := sandboxtest.NewEngineProxy(t)
	t.Setenv("DOCKER_HOST", p.Host())
	srv := openaitest.New(t)
	srv.Handle(cellPerQuestion(map[string]string{
		"remember": "kept = 'from the first question'\nprint('set')",
		"recall":   "print(kept)",
	}))
	dir := t.TempDir()
	data := filepath.Join(dir, "q1.csv")
	os.WriteFile(data, []byte("a,b\n1,2\n"), 0o644)
	c := startChat(t, dir, srv.URL, data)
	c.waitFor("the sandbox", 3*time.Minute, has("sandbox ready", "q1.csv"))
	c.typeLine("remember this")
	c.waitFor("the first answer", 2*time.Minute, has("The cell said: set", "sandbox ready"))

	p.Cut()
	killSandbox(t, local, c.pid)
	s := c.waitFor("the status bar", time.Minute, has("sandbox lost"))
	if strings.Contains(s, "sandbox ready") {
		t.Errorf("the status bar still says ready:\n%s", s)
	}
	p.Restore()
	c.typeLine("recall it")
	s = c.waitFor("the second answer", 3*time.Minute, has("The cell said: from the first question", "sandbox ready"))
	if !strings.Contains(strings.Join(strings.Fields(s), " "), "the sandbox was rebuilt: 1 cell replayed") {
		t.Errorf("the screen does not say the sandbox was rebuilt:\n%s", s)
	}
}

// killSandbox kills the containers quarry process pid runs, through the
// engine e.
func killSandbox(t *testing.T, e *engine.Engine, pid int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := e.Client().ContainerList(ctx, client.ContainerListOptions{Filters: byPID(pid)})
	if err != nil || len(list.Items) == 0 {
		t.Fatalf("the sandbox of quarry %d: %v (%d containers)", pid, err, len(list.Items))
	}
	for _, c := range list.Items {
		if _, err := e.Client().ContainerKill(ctx, c.ID, client.ContainerKillOptions{Signal: "SIGKILL"}); err != nil {
			t.Fatal(err)
		}
	}
}

package agent

import (
	"slices"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent/openaitest"
)

func TestAutoFallsBackOnFencedCode(t *testing.T) {
	srv := openaitest.New(t,
		openaitest.Text("Let me compute it.\n```python\nprint(1 + 1)\n```\n"),
		openaitest.Text("The answer is **2**."),
	)
	k := echoKernel()
	a := newAgent(t, testConfig(srv), k)
	ans, rec, err := run(t, a, "1+1?")
	if err != nil || ans != "The answer is **2**." {
		t.Fatalf("Run = %q, %v", ans, err)
	}
	if got := k.Codes(); !slices.Equal(got, []string{"print(1 + 1)\n"}) {
		t.Errorf("kernel ran %q", got)
	}
	if w := rec.of(EventWarning); len(w) != 1 || !strings.Contains(w[0].Text, "code as text") {
		t.Errorf("warnings = %v", w)
	}
	r := srv.ChatRequests()[1]
	if r.HasTools() || !strings.Contains(r.System(), "```python") {
		t.Errorf("the second request still offers tools or lacks the markdown instructions")
	}
	if got := r.LastUser(); !strings.HasPrefix(got, "Output:\n") || !strings.Contains(got, "ran: print(1 + 1)") {
		t.Errorf("output message = %q", got)
	}
	if a.ToolMode() != modeMarkdown {
		t.Errorf("mode = %s, want markdown for the rest of the session", a.ToolMode())
	}
}

func TestAutoFallsBackOnJSONLookalike(t *testing.T) {
	for _, text := range []string{
		`{"name": "python", "arguments": {"code": "print(2)"}}`,
		"```json\n{\"name\": \"python\", \"arguments\": \"{\\\"code\\\": \\\"print(2)\\\"}\"}\n```",
		"<tool_call>\n{\"name\": \"python\", \"arguments\": {\"code\": \"print(2)\"}}\n</tool_call>",
	} {
		srv := openaitest.New(t, openaitest.Text(text), openaitest.Text("2"))
		k := echoKernel()
		a := newAgent(t, testConfig(srv), k)
		if ans, rec, err := run(t, a, "q"); err != nil || ans != "2" {
			t.Fatalf("%s: Run = %q, %v\n%s", text, ans, err, rec.all())
		}
		if got := k.Codes(); !slices.Equal(got, []string{"print(2)"}) {
			t.Errorf("%s: kernel ran %q", text, got)
		}
	}
}

func TestAutoFallsBackWhenServerRejectsTools(t *testing.T) {
	srv := openaitest.New(t,
		openaitest.Error(400, "registry.ollama.ai/library/gemma:2b does not support tools"),
		openaitest.Text("```python\nx = 41 + 1\nprint(x)\n```"),
		openaitest.Text("42"),
	)
	k := echoKernel()
	a := newAgent(t, testConfig(srv), k)
	ans, rec, err := run(t, a, "q")
	if err != nil || ans != "42" {
		t.Fatalf("Run = %q, %v\n%s", ans, err, rec.all())
	}
	reqs := srv.ChatRequests()
	if !reqs[0].HasTools() || reqs[1].HasTools() || reqs[2].HasTools() {
		t.Errorf("tools offered: %v %v %v", reqs[0].HasTools(), reqs[1].HasTools(), reqs[2].HasTools())
	}
	if len(k.Codes()) != 1 || len(rec.of(EventRetry)) != 0 || len(rec.of(EventWarning)) != 1 {
		t.Errorf("codes %q, events:\n%s", k.Codes(), rec.all())
	}
}

func TestNativeModeDoesNotFallBack(t *testing.T) {
	srv := openaitest.New(t, openaitest.Text("Here is how:\n```python\nprint(1)\n```"))
	cfg := testConfig(srv)
	cfg.ToolMode = "native"
	k := echoKernel()
	a := newAgent(t, cfg, k)
	if ans, _, err := run(t, a, "q"); err != nil || !strings.Contains(ans, "```python") || len(k.Codes()) != 0 {
		t.Fatalf("Run = %q, %v, ran %q", ans, err, k.Codes())
	}
}

func TestMarkdownModeRunsBlocks(t *testing.T) {
	srv := openaitest.New(t,
		openaitest.Text("First:\n```python\na = 1\n```\nthen\n```py\nprint(a)\n```"),
		openaitest.Text("a is 1"),
	)
	cfg := testConfig(srv)
	cfg.ToolMode = "markdown"
	k := echoKernel()
	a := newAgent(t, cfg, k)
	if _, rec, err := run(t, a, "q"); err != nil || len(rec.of(EventWarning)) != 0 {
		t.Fatalf("Run: %v\n%s", err, rec.all())
	}
	if got := k.Codes(); !slices.Equal(got, []string{"a = 1\n", "print(a)\n"}) {
		t.Errorf("kernel ran %q", got)
	}
	r := srv.ChatRequests()
	if r[0].HasTools() || !strings.Contains(r[1].LastUser(), "Output of code block 2:") {
		t.Errorf("markdown requests: tools %v, output %q", r[0].HasTools(), r[1].LastUser())
	}
}

func TestLookalikeShapes(t *testing.T) {
	for text, want := range map[string]string{
		`{"code": "x"}`: "x",
		`{"function": {"name": "python", "arguments": "{\"code\": \"y\"}"}}`: "y",
		`{"tool": "python", "code": "z"}`:                                    "z",
		`{"name": "search", "arguments": {"code": "no"}}`:                    "",
		`{"answer": 42}`:                 "",
		"Plain text with `inline` code.": "",
	} {
		got := strings.Join(lookalikeCode(text), "|")
		if got != want {
			t.Errorf("lookalikeCode(%s) = %q, want %q", text, got, want)
		}
	}
}

package agent

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent/openaitest"
)

// The shapes real servers stream, one class at a time, each with the
// instance that broke quarry before (headless/replay_test.go replays the
// recordings themselves against the real sandbox).

func choice(delta, finish string) string {
	if finish == "" {
		finish = "null"
	} else {
		finish = `"` + finish + `"`
	}
	return `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}`
}

func callDelta(fields string) string { return `{"tool_calls":[` + fields + `]}` }

// runRaw runs one turn against raw streams and returns what it produced.
func runRaw(t *testing.T, k *stubKernel, replies ...openaitest.Reply) (string, *recorder, *openaitest.Server) {
	t.Helper()
	srv := openaitest.New(t, replies...)
	a := newAgent(t, testConfig(srv), k)
	ans, rec, err := run(t, a, "q")
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, rec.all())
	}
	return ans, rec, srv
}

func joined(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(e.Text)
	}
	return b.String()
}

// Mistral's Magistral streams content as an array of thinking and text
// parts; quarry failed with "malformed response (not a JSON string)".
func TestContentPartsMagistral(t *testing.T) {
	think := func(s string) string {
		return `{"type":"thinking","thinking":[{"type":"text","text":"` + s + `"}],"closed":true}`
	}
	k := echoKernel()
	ans, rec, srv := runRaw(t, k,
		openaitest.Raw(sse(
			choice(`{"role":"assistant","content":[`+think("I should sum")+`]}`, ""),
			choice(`{"content":[`+think(" the column.")+`]}`, ""),
			choice(callDelta(`{"id":"a1","function":{"name":"python","arguments":"{\"code\":\"print(4)\"}"}}`), "tool_calls"))),
		openaitest.Raw(sse(
			choice(`{"content":[`+think("Now answer.")+`,{"type":"text","text":"The total "}]}`, ""),
			choice(`{"content":"is 4."}`, ""),
			choice(`{"content":[{"type":"image_url","image_url":{"url":"x"}}]}`, "stop"))))
	if ans != "The total is 4." {
		t.Errorf("answer = %q", ans)
	}
	if got := k.Codes(); !slices.Equal(got, []string{"print(4)"}) {
		t.Errorf("kernel ran %q", got)
	}
	if got := joined(rec.of(EventReasoning)); got != "I should sum the column.Now answer." {
		t.Errorf("reasoning deltas = %q", got)
	}
	if strings.Contains(rec.text(), "sum") {
		t.Errorf("reasoning leaked into the text deltas: %q", rec.text())
	}
	// Not sent back: most servers ignore or refuse it.
	for _, m := range srv.ChatRequests()[1].Messages() {
		if m.ReasoningContent != "" || strings.Contains(m.Content, "sum the column") {
			t.Errorf("reasoning went back to the model: %+v", m)
		}
	}
}

// A refusal (OpenAI's delta.refusal, or a refusal part) is the answer.
func TestRefusalIsShownAsTheAnswer(t *testing.T) {
	ans, _, _ := runRaw(t, echoKernel(), openaitest.Raw(sse(
		choice(`{"role":"assistant","content":null,"refusal":"I can't help "}`, ""),
		choice(`{"content":[{"type":"refusal","refusal":"with that."}]}`, "stop"))))
	if ans != "I can't help with that." {
		t.Errorf("answer = %q", ans)
	}
}

// MiniMax and some llama.cpp builds send the arguments as an object, not
// as JSON text; quarry refused the stream before reading them.
func TestObjectArguments(t *testing.T) {
	k := echoKernel()
	_, _, srv := runRaw(t, k,
		openaitest.Raw(sse(choice(callDelta(`{"id":"m1","type":"function","index":0,"function":{"name":"python","arguments":{"code":"print(\"ü\")"}}}`), "tool_calls"))),
		openaitest.Text("done"))
	if got := k.Codes(); !slices.Equal(got, []string{`print("ü")`}) {
		t.Fatalf("kernel ran %q", got)
	}
	sent := srv.ChatRequests()[1].Messages()[2].ToolCalls[0].Function.Arguments
	var v map[string]string
	if json.Unmarshal([]byte(sent), &v) != nil || v["code"] != `print("ü")` {
		t.Errorf("arguments sent back = %q", sent)
	}
}

// Names and ids as servers send them in later fragments: repeated whole
// (llama-server before b5500, which made "pythonpython…" and a silent
// answer without cells), growing, split, empty, or the id inside function.
func TestToolNameAndIDFragments(t *testing.T) {
	for _, tc := range []struct {
		name  string
		parts []string // per fragment: name, id field
	}{
		{"repeated name, id in function", []string{
			`"index":0,"function":{"name":"python","id":"call_9","arguments":"{\"code\":"}`,
			`"index":0,"function":{"name":"python","id":"call_9","arguments":"\"print(1)\""}`,
			`"index":0,"function":{"name":"python","id":"call_9","arguments":"}"}`}},
		{"growing name", []string{
			`"index":0,"id":"call_9","function":{"name":"py","arguments":""}`,
			`"index":0,"function":{"name":"python","arguments":"{\"code\":\"print(1)\"}"}`}},
		{"split name", []string{
			`"index":0,"id":"call_9","function":{"name":"pyt"}`,
			`"index":0,"function":{"name":"hon","arguments":"{\"code\":\"print(1)\"}"}`}},
		{"empty name and id later (LM Studio, DashScope)", []string{
			`"index":0,"id":"call_9","type":"function","function":{"name":"python","arguments":""}`,
			`"index":0,"id":"","type":"function","function":{"name":"","arguments":"{\"code\":"}`,
			`"index":0,"id":"","type":"function","function":{"name":"","arguments":"\"print(1)\"}"}`}},
		{"numeric id", []string{`"index":0,"id":12345,"function":{"name":"python","arguments":"{\"code\":\"print(1)\"}"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var chunks []string
			for _, p := range tc.parts {
				chunks = append(chunks, choice(callDelta("{"+p+"}"), ""))
			}
			chunks = append(chunks, choice(`{}`, "tool_calls"))
			k := echoKernel()
			_, rec, srv := runRaw(t, k, openaitest.Raw(sse(chunks...)), openaitest.Text("done"))
			if got := k.Codes(); !slices.Equal(got, []string{"print(1)"}) {
				t.Fatalf("kernel ran %q\n%s", got, rec.all())
			}
			req := srv.ChatRequests()[1]
			call := req.Messages()[2].ToolCalls[0]
			if call.Function.Name != "python" || call.ID == "" || len(req.UnansweredCalls()) > 0 {
				t.Errorf("call sent back = %+v, unanswered %v", call, req.UnansweredCalls())
			}
			if len(rec.of(EventIncomplete)) > 0 {
				t.Errorf("incomplete: %s", rec.all())
			}
		})
	}
}

// Calls without index: parallel ones each with an id (Gemini), one call
// in pieces with no id after the first (Mistral-like).
func TestCallsWithoutIndex(t *testing.T) {
	k := echoKernel()
	runRaw(t, k, openaitest.Raw(sse(
		choice(callDelta(`{"id":"g1","type":"function","function":{"name":"python","arguments":"{\"code\":\"a = 1\"}"},"extra_content":{"google":{"thought_signature":"sig-1"}}}`), ""),
		choice(callDelta(`{"id":"g2","type":"function","function":{"name":"python","arguments":"{\"code\":"}}`), ""),
		choice(callDelta(`{"function":{"arguments":"\"print(a)\"}"}}`), "stop"))),
		openaitest.Text("done"))
	if got := k.Codes(); !slices.Equal(got, []string{"a = 1", "print(a)"}) {
		t.Errorf("kernel ran %q", got)
	}
}

// Gemini's thought signature must come back with its call, or the next
// request fails.
func TestThoughtSignatureGoesBack(t *testing.T) {
	_, _, srv := runRaw(t, echoKernel(), openaitest.Raw(sse(
		choice(callDelta(`{"id":"g1","type":"function","function":{"name":"python","arguments":"{\"code\":\"1\"}"},"extra_content":{"google":{"thought_signature":"c2ln"}}}`), "stop"))),
		openaitest.Text("done"))
	body := string(srv.ChatRequests()[1].Body)
	if !strings.Contains(body, `"extra_content":{"google":{"thought_signature":"c2ln"}}`) {
		t.Errorf("the signature did not go back:\n%s", body)
	}
	if strings.Contains(string(srv.ChatRequests()[0].Body), "extra_content") {
		t.Error("the first request carries extra_content")
	}
}

// Finish reasons that disagree with the content.
func TestFinishReasonsThatDisagree(t *testing.T) {
	t.Run("tool_calls with the call left as text", func(t *testing.T) {
		k := echoKernel()
		ans, rec, _ := runRaw(t, k,
			openaitest.Raw(sse(
				choice(callDelta(`{"index":0,"id":"x1","function":{"name":"python","arguments":"{\"code\":\"a = 2\"}"}}`), "tool_calls"))),
			openaitest.Raw(sse(choice(`{"content":"<tool_call>\n{\"name\": \"python\", \"arguments\": {\"code\": \"print(a)\"}}\n</tool_call>"}`, "tool_calls"))),
			openaitest.Raw(sse(choice(`{"content":"Done."}`, "end_turn"))))
		if got := k.Codes(); !slices.Equal(got, []string{"a = 2", "print(a)"}) {
			t.Errorf("kernel ran %q\n%s", got, rec.all())
		}
		if ans != "Done." {
			t.Errorf("answer = %q", ans)
		}
	})
	t.Run("tool_calls with nothing", func(t *testing.T) {
		k := echoKernel()
		_, rec, srv := runRaw(t, k,
			openaitest.Raw(sse(choice(`{"content":""}`, "tool_calls"))),
			openaitest.ToolCalls("print(3)"),
			openaitest.Text("It is 3."))
		if got := k.Codes(); !slices.Equal(got, []string{"print(3)"}) {
			t.Errorf("kernel ran %q\n%s", got, rec.all())
		}
		if !strings.Contains(srv.ChatRequests()[1].LastUser(), "carried no call") {
			t.Errorf("the model was not told: %q", srv.ChatRequests()[1].LastUser())
		}
		if len(rec.of(EventIncomplete)) > 0 {
			t.Errorf("a cell ran in the end, yet: %s", rec.all())
		}
	})
	t.Run("spellings", func(t *testing.T) {
		for in, want := range map[string]string{`"tool_use"`: "tool_calls", `"STOP"`: "stop", `"end_turn"`: "stop", `"max_tokens"`: "length", `null`: "", `3`: ""} {
			if got := finishReason(json.RawMessage(in)); got != want {
				t.Errorf("finishReason(%s) = %q, want %q", in, got, want)
			}
		}
	})
}

// A call of a tool that does not exist gets a correction the model can act
// on; when the answer still ends without any cell, the turn says so.
func TestWrongToolIsNeverASilentSuccess(t *testing.T) {
	k := echoKernel()
	_, rec, srv := runRaw(t, k,
		openaitest.Call("", openaitest.ToolCall{Name: "search", Arguments: `{"query":"total"}`}),
		openaitest.Text("The total is probably 12."))
	if len(k.Codes()) != 0 {
		t.Fatalf("kernel ran %q", k.Codes())
	}
	tool := srv.ChatRequests()[1].LastToolResult()
	if !strings.Contains(tool, `no tool "search"`) || !strings.Contains(tool, `{"code"`) {
		t.Errorf("correction = %q", tool)
	}
	inc := rec.of(EventIncomplete)
	if len(inc) != 1 || !strings.Contains(inc[0].Text, `"search" that does not exist`) || !strings.Contains(inc[0].Text, "not computed from the data") {
		t.Errorf("incomplete events = %+v", inc)
	}
	if kinds := rec.kinds(); kinds[len(kinds)-1] != EventTurnDone {
		t.Errorf("events end with %v", kinds)
	}
}

// Reasoning fields (reasoning_content: DeepSeek, xAI, Qwen; reasoning:
// Cerebras, OpenRouter, vLLM) stream as reasoning, count in the usage,
// and go back only to a server that asks for them.
func TestReasoningStreamsAndGoesBackOnlyWhenAsked(t *testing.T) {
	k := echoKernel()
	srv := openaitest.New(t,
		openaitest.Raw(sse(
			choice(`{"role":"assistant","content":null,"reasoning_content":"Let me "}`, ""),
			choice(`{"reasoning_content":"sum it."}`, ""),
			choice(callDelta(`{"index":0,"id":"d1","type":"function","function":{"name":"python","arguments":"{\"code\":\"print(5)\"}"}}`), "tool_calls"),
			`{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":6,"total_tokens":60,"completion_tokens_details":{"reasoning_tokens":44}}}`)),
		openaitest.ErrorCode(400, "invalid_request_error", "Missing `reasoning_content` field in the assistant message at message index 2. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls"),
		openaitest.Raw(sse(choice(`{"reasoning":"Done thinking."}`, ""), choice(`{"content":"Five."}`, "stop"))))
	a := newAgent(t, testConfig(srv), k)
	ans, rec, err := run(t, a, "q")
	if err != nil || ans != "Five." {
		t.Fatalf("Run = %q, %v\n%s", ans, err, rec.all())
	}
	if got := joined(rec.of(EventReasoning)); got != "Let me sum it.Done thinking." {
		t.Errorf("reasoning = %q", got)
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 3 || len(rec.of(EventRetry)) != 0 {
		t.Fatalf("%d requests, %d retries: the request that lacked the reasoning is sent again at once", len(reqs), len(rec.of(EventRetry)))
	}
	if m := reqs[1].Messages()[2]; m.ReasoningContent != "" {
		t.Errorf("reasoning sent before the server asked: %+v", m)
	}
	if m := reqs[2].Messages()[2]; m.ReasoningContent != "Let me sum it." || len(m.ToolCalls) != 1 {
		t.Errorf("the tool-call step went back without its reasoning: %+v", m)
	}
	// xAI leaves reasoning out of completion_tokens: the total shows it.
	if u := a.TotalUsage(); u.Prompt != 10 || u.Completion != 50 || u.Reasoning != 44 {
		t.Errorf("usage = %+v, want 10 prompt, 50 completion of which 44 reasoning", u)
	}
}

// Servers that cannot stream: the stream setting asks for whole answers;
// a refusal to stream switches the session once; a proxy that strips the
// stream and sends the completion whole is read as it is.
func TestServersThatCannotStream(t *testing.T) {
	t.Run("setting", func(t *testing.T) {
		srv := openaitest.New(t, openaitest.ToolCalls("print(1)"), openaitest.Text("One."))
		cfg := testConfig(srv)
		cfg.NoStream = true
		k := echoKernel()
		a := newAgent(t, cfg, k)
		ans, rec, err := run(t, a, "q")
		if err != nil || ans != "One." || !slices.Equal(k.Codes(), []string{"print(1)"}) {
			t.Fatalf("Run = %q, %v, ran %q\n%s", ans, err, k.Codes(), rec.all())
		}
		for _, r := range srv.ChatRequests() {
			if r.Chat.Stream || r.Chat.StreamOptions != nil {
				t.Errorf("request %d asks for a stream", r.N)
			}
		}
		if joined(rec.of(EventText)) != "One." || a.TotalUsage().Prompt == 0 {
			t.Errorf("text %q, usage %+v", joined(rec.of(EventText)), a.TotalUsage())
		}
	})
	t.Run("refusal", func(t *testing.T) {
		srv := openaitest.New(t, openaitest.Error(400, "Streaming is not supported for this deployment"),
			openaitest.ToolCalls("print(2)"), openaitest.Text("Two."))
		k := echoKernel()
		ans, rec, err := run(t, newAgent(t, testConfig(srv), k), "q")
		if err != nil || ans != "Two." {
			t.Fatalf("Run = %q, %v\n%s", ans, err, rec.all())
		}
		reqs := srv.ChatRequests()
		if len(reqs) != 3 || !reqs[0].Chat.Stream || reqs[1].Chat.Stream || reqs[2].Chat.Stream {
			t.Errorf("%d requests; want one streaming refused, then whole answers", len(reqs))
		}
		if w := rec.of(EventWarning); len(w) != 1 || !strings.Contains(w[0].Text, "does not stream") || !strings.Contains(w[0].Text, "stream = false") {
			t.Errorf("warnings = %+v", w)
		}
	})
	t.Run("stripped stream", func(t *testing.T) {
		whole := `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,` +
			`"tool_calls":[{"id":"w1","type":"function","function":{"name":"python","arguments":"{\"code\":\"print(3)\"}"}}]},"finish_reason":"tool_calls"}],` +
			`"usage":{"prompt_tokens":7,"completion_tokens":3}}`
		bare := choice(`{"content":"Thr"}`, "") + "\n" + choice(`{"content":"ee."}`, "stop") + "\n"
		k := echoKernel()
		ans, rec, srv := runRaw(t, k, openaitest.Raw(whole), openaitest.Raw(bare))
		if ans != "Three." || !slices.Equal(k.Codes(), []string{"print(3)"}) {
			t.Errorf("answer %q, ran %q\n%s", ans, k.Codes(), rec.all())
		}
		if n := len(srv.ChatRequests()); n != 2 {
			t.Errorf("%d requests: a whole reply is not a broken stream", n)
		}
	})
}

// A reply that is not the API's format is named by its first bytes (an
// HTML login page of a proxy, another API's JSON), escaped.
func TestMalformedReplyIsNamed(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"html", "<html><body>Sign in to Corp Proxy\x1b[2J</body></html>\n", `it began "<html><body>Sign in to Corp Proxy\x1b[2J`},
		{"content of another kind", sse(`{"choices":[{"index":0,"delta":{"content":5}}]}`), `content: neither text nor a list of parts); it began "{\"choices\"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.New(t, openaitest.Raw(tc.body))
			_, _, err := run(t, newAgent(t, testConfig(srv), echoKernel()), "q")
			var ae *Error
			if !errors.As(err, &ae) || ae.Kind != KindProtocol || !strings.Contains(ae.Message, tc.want) {
				t.Fatalf("error = %v (%+v), want a protocol error with %s", err, ae, tc.want)
			}
			if strings.ContainsRune(ae.Message, '\x1b') {
				t.Errorf("an escape character reached the message: %q", ae.Message)
			}
		})
	}
}

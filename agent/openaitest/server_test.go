package openaitest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const streamBody = `{"model":"gpt-fake","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`

func TestStreamWireFormat(t *testing.T) {
	srv := New(t, Reply{Text: "Hé", ToolCalls: []ToolCall{PythonCall("print('ü')"), PythonCall("x")}, ChunkSize: 3})
	resp := post(t, srv.URL, streamBody)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var datas []map[string]any
	var sawPing, sawDone bool
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "": // event separator
		case line == ": ping":
			sawPing = true
		case line == "data: [DONE]":
			sawDone = true
		case strings.HasPrefix(line, "data: "):
			var m map[string]any
			// Fragments may hold partial UTF-8, which encoding/json accepts.
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m); err != nil {
				t.Fatalf("bad chunk %q: %v", line, err)
			}
			datas = append(datas, m)
		default:
			t.Fatalf("unexpected line %q", line)
		}
	}
	if !sawPing || !sawDone {
		t.Errorf("ping %v, done %v", sawPing, sawDone)
	}
	id := datas[0]["id"]
	for _, d := range datas {
		if d["id"] != id || d["object"] != "chat.completion.chunk" {
			t.Errorf("chunk %v does not share the id %v", d, id)
		}
	}
	first := datas[0]["choices"].([]any)[0].(map[string]any)["delta"].(map[string]any)
	if first["role"] != "assistant" || first["content"] != "" {
		t.Errorf("first delta = %v", first)
	}
	var frags []map[string]any
	var finish any
	for _, d := range datas[1 : len(datas)-1] {
		ch := d["choices"].([]any)[0].(map[string]any)
		if tc, ok := ch["delta"].(map[string]any)["tool_calls"]; ok {
			frags = append(frags, tc.([]any)[0].(map[string]any))
		}
		if ch["finish_reason"] != nil {
			finish = ch["finish_reason"]
		}
	}
	if finish != "tool_calls" {
		t.Errorf("finish_reason = %v", finish)
	}
	if f := frags[0]; f["index"] != 0.0 || f["id"] != "call_0" || f["type"] != "function" || f["function"].(map[string]any)["name"] != "python" {
		t.Errorf("first fragment = %v", f)
	}
	if f := frags[1]; len(f) != 2 || f["index"] != 0.0 || len(f["function"].(map[string]any)) != 1 {
		t.Errorf("a later fragment carries more than index and arguments: %v", f)
	}
	if f := frags[len(frags)-1]; f["index"] != 1.0 {
		t.Errorf("the second call is not at index 1: %v", f)
	}
	last := datas[len(datas)-1]
	if ch := last["choices"].([]any); len(ch) != 0 || last["usage"] == nil {
		t.Errorf("usage chunk = %v", last)
	}
}

func TestGoOpenAIReadsTheStream(t *testing.T) {
	srv := New(t, Text("Hello there, world"))
	cfg := openai.DefaultConfig("k")
	cfg.BaseURL = srv.URL
	c := openai.NewClientWithConfig(cfg)
	s, err := c.CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model: "gpt-fake", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}},
		StreamOptions: &openai.StreamOptions{IncludeUsage: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var text strings.Builder
	var usage *openai.Usage
	for {
		r, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.Usage != nil {
			usage = r.Usage
		}
		for _, ch := range r.Choices {
			text.WriteString(ch.Delta.Content)
		}
	}
	if text.String() != "Hello there, world" || usage == nil || usage.CompletionTokens == 0 {
		t.Errorf("text %q usage %+v", text.String(), usage)
	}
	if reqs := srv.ChatRequests(); len(reqs) != 1 || reqs[0].LastUser() != "hi" || reqs[0].Header.Get("Authorization") != "Bearer k" {
		t.Errorf("recorded %+v", reqs)
	}
}

func TestErrorsAndRateLimits(t *testing.T) {
	srv := New(t, RateLimited(1500*time.Millisecond), ErrorCode(404, "model_not_found", "no such model"))
	resp := post(t, srv.URL, streamBody)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" || resp.Header.Get("retry-after-ms") != "1500" {
		t.Errorf("429: %d %v", resp.StatusCode, resp.Header)
	}
	resp = post(t, srv.URL, streamBody)
	var body struct {
		Error struct{ Message, Type, Code string }
	}
	json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != 404 || body.Error.Code != "model_not_found" || body.Error.Message != "no such model" {
		t.Errorf("404: %d %+v", resp.StatusCode, body)
	}
	resp = post(t, srv.URL, streamBody)
	if resp.StatusCode != 400 {
		t.Errorf("empty queue answered %d", resp.StatusCode)
	}
}

func TestDropClosesTheConnection(t *testing.T) {
	srv := New(t, Drop(Text("abcdefghijklmnop"), 2))
	resp := post(t, srv.URL, streamBody)
	b, err := io.ReadAll(resp.Body)
	if err == nil || strings.Contains(string(b), "[DONE]") {
		t.Errorf("read %q, err %v; want a broken body", b, err)
	}
}

func TestHangEndsWhenClientLeaves(t *testing.T) {
	srv := New(t, Hang())
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/chat/completions", strings.NewReader(streamBody))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Error("a hanging stream finished")
	}
}

func TestNonStreamingAndModels(t *testing.T) {
	srv := New(t, ToolCalls("1+1"))
	srv.SetModels("a", "b")
	resp := post(t, srv.URL, `{"model":"m","messages":[{"role":"user","content":"q"}]}`)
	var out openai.ChatCompletionResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if tc := out.Choices[0].Message.ToolCalls; len(tc) != 1 || tc[0].Function.Arguments != `{"code":"1+1"}` || out.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("completion = %+v", out)
	}
	mr, err := http.Get(srv.URL + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer mr.Body.Close()
	var models openai.ModelsList
	json.NewDecoder(mr.Body).Decode(&models)
	if len(models.Models) != 2 || models.Models[1].ID != "b" {
		t.Errorf("models = %+v", models)
	}
}

func TestHandlerSeesConversation(t *testing.T) {
	srv := New(t)
	srv.Handle(func(r Request) Reply { return Text("echo: " + r.LastUser()) })
	resp := post(t, srv.URL, `{"model":"m","messages":[{"role":"user","content":"ping"}]}`)
	var out openai.ChatCompletionResponse
	json.NewDecoder(resp.Body).Decode(&out)
	if out.Choices[0].Message.Content != "echo: ping" {
		t.Errorf("got %q", out.Choices[0].Message.Content)
	}
}

func TestStartWithoutT(t *testing.T) {
	srv := Start(Text("x"))
	srv.Close()
	srv.Close() // twice is fine
	if _, err := http.Get(srv.URL + "/models"); err == nil {
		t.Error("the server still answers after Close")
	}
}

func TestRawStreamIsSentAsIs(t *testing.T) {
	body := "data: {\"choices\":[]}\n\n: odd\ndata: [DONE]\n\n"
	srv := New(t, Raw(body))
	resp := post(t, srv.URL, `{"model":"m","stream":true,"messages":[]}`)
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(got) != body || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("status %d, type %q, body %q", resp.StatusCode, resp.Header.Get("Content-Type"), got)
	}
}

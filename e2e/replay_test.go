package e2e

// Replays of the streams that real model servers sent (recorded by other
// projects for their tests, in ../shared/corpus/wire, read from there and
// never copied here): each shape is a provider's tool-call stream rewritten
// to carry a real cell, then its answer stream built from what the sandbox
// printed. The real binary runs the cell in the real sandbox; the answer,
// the cells and the usage it reports must be right.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// wireCorpus is the folder of recorded streams beside the project.
func wireCorpus(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "corpus", "wire")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the recorded streams %s are missing in CI: %v", dir, err)
		}
		t.Skipf("recorded streams %s not found (they live beside the project, in ../shared/corpus/wire): %v", dir, err)
	}
	return dir
}

const ledgerCSV = `region,account,amount
Nord,Ventes,1250.50
Süd,"Marketing, online",-310.25
Ost,Ventes,980.00
West,Frais,45.75
`

// The cell carries quotes, a backslash, non-ASCII and an emoji, so every
// escape and multi-byte character crosses the servers' fragmenting.
const ledgerCode = `import pandas as pd
df = pd.read_csv("/data/ledger.csv")
total = df["amount"].sum()
print(f"TOTAL={total:.2f} ROWS={len(df)} — «ok» \\ 😀")
`

// regionsCode is the second of two parallel calls: it uses the first's df.
const regionsCode = `print(f"REGIONS={df['region'].nunique()}")`

var totalLine = regexp.MustCompile(`TOTAL=(-?[0-9.]+) ROWS=([0-9]+)`)

const wantAnswer = "The ledger total is **1966.00** over 4 rows ✓."

// ledgerAnswer is what the fake model answers: the numbers the sandbox
// printed, read from the tool results it was sent.
func ledgerAnswer(req openaitest.Request) string {
	for _, m := range req.Messages() {
		if mm := totalLine.FindStringSubmatch(m.Content); mm != nil && (m.Role == "tool" || m.Role == "user") {
			return fmt.Sprintf("The ledger total is **%s** over %s rows ✓.", mm[1], mm[2])
		}
	}
	return "I could not compute the total."
}

// shape is one server's way of streaming, replayed.
type shape struct {
	name, provider string
	// call is the first response (a tool call); answer the one after the
	// cell, carrying text. A second answer, when set, follows a
	// continuation request (the first answer stopped at the length limit).
	call           func(c *wireSet) openaitest.Stream
	answer         func(c *wireSet, text string) openaitest.Stream
	continued      func(c *wireSet, text string) openaitest.Stream
	framing        openaitest.Framing
	callSplits     func(c *wireSet) map[int]int
	cells          int    // cells the calls run
	prompt, output int    // the turn's tokens, as the server reported them
	reasoning      string // a phrase of the streamed reasoning (shown with --verbose)
	secondRequest  func(openaitest.Request) error
	callCodes      []string
}

// wireSet loads recordings once per test.
type wireSet struct {
	t    *testing.T
	dir  string
	recs map[string]*openaitest.Recording
}

func (w *wireSet) rec(file string) *openaitest.Recording {
	if r, ok := w.recs[file]; ok {
		return r
	}
	r, err := openaitest.LoadRecording(filepath.Join(w.dir, file))
	if err != nil {
		w.t.Fatal(err)
	}
	w.recs[file] = r
	return r
}

func (w *wireSet) stream(file string, i int) openaitest.Stream {
	r := w.rec(file)
	if i >= len(r.Streams) {
		w.t.Fatalf("%s holds %d streams, not %d", file, len(r.Streams), i+1)
	}
	return r.Streams[i]
}

// recorded is a shape whose call and answer are both recordings.
func recorded(callFile string, callStream int, answerFile string, answerStream int) (func(*wireSet) openaitest.Stream, func(*wireSet, string) openaitest.Stream) {
	return func(w *wireSet) openaitest.Stream {
			return w.stream(callFile, callStream)
		}, func(w *wireSet, text string) openaitest.Stream {
			return w.stream(answerFile, answerStream).AsAnswer(text)
		}
}

func shapes() []shape {
	var out []shape
	add := func(s shape) { out = append(out, s) }

	call, answer := recorded("openai-tool-call.chunks.txt", 0, "openai-text.chunks.txt", 0)
	add(shape{name: "openai", provider: "OpenAI gpt-4o / gpt-4.1-nano", call: call, answer: answer, prompt: 58 + 16, output: 12 + 300})
	add(shape{name: "openai-nodone", provider: "OpenAI, connection closed without [DONE]", call: call, answer: answer,
		framing: openaitest.Framing{NoDone: true}, prompt: 58 + 16, output: 12 + 300})

	self := func(file string, stream int) (func(*wireSet) openaitest.Stream, func(*wireSet, string) openaitest.Stream) {
		return recorded(file, stream, file, stream)
	}
	call, answer = self("azure-model-router.chunks.txt", 0)
	add(shape{name: "azure-model-router", provider: "Azure OpenAI gpt-5-nano (model router)", call: call, answer: answer, prompt: 30, output: 156})
	call, answer = self("azure-content-filter-offsets.chunks.txt", 0)
	add(shape{name: "azure-content-filter", provider: "Azure OpenAI, content_filter_offsets after the finish", call: call, answer: answer, prompt: 30, output: 10})

	call, answer = recorded("deepseek-tool-call.chunks.txt", 0, "deepseek-text.chunks.txt", 0)
	add(shape{name: "deepseek", provider: "DeepSeek deepseek-reasoner / deepseek-chat", call: call, answer: answer,
		continued: func(w *wireSet, text string) openaitest.Stream {
			return w.stream("deepseek-text.chunks.txt", 0).AsAnswer(text).SetFinish("stop")
		},
		prompt: 339 + 13 + 13, output: 83 + 400 + 400, reasoning: "The user is asking for the weather"})

	call, answer = recorded("groq-tool-call.chunks.txt", 0, "groq-text.chunks.txt", 0)
	add(shape{name: "groq", provider: "Groq llama-3.3-70b", call: call, answer: answer, prompt: 210 + 45, output: 15 + 662})

	call, answer = recorded("mistral-tool-call.chunks.txt", 0, "mistral-text.chunks.txt", 0)
	add(shape{name: "mistral", provider: "Mistral mistral-small", call: call, answer: answer, prompt: 124 + 13, output: 22 + 8})
	call, answer = self("magistral-reasoning.chunks.txt", 0)
	add(shape{name: "magistral", provider: "Mistral magistral-medium (content parts)", call: call, answer: answer,
		prompt: 20, output: 92, reasoning: "This is basic arithmetic"})
	call, answer = self("mistral-thinking-issue13703.chunks.txt", 0)
	add(shape{name: "mistral-thinking", provider: "Mistral mistral-small with thinking (parts, then a string)", call: call, answer: answer,
		prompt: 56, output: 278, reasoning: "asking for the product"})

	call, answer = recorded("xai-tool-call.chunks.txt", 0, "xai-text.chunks.txt", 0)
	add(shape{name: "xai", provider: "xAI grok-3-mini", call: call, answer: answer,
		prompt: 291 + 12, output: 26 + 196 + 1 + 290, reasoning: "First, the user is"})

	call, answer = recorded("alibaba-tool-call.chunks.txt", 0, "alibaba-text.chunks.txt", 0)
	add(shape{name: "alibaba", provider: "Alibaba Qwen qwen3-max (DashScope)", call: call, answer: answer, prompt: 295 + 18, output: 22 + 779})

	call, answer = recorded("cerebras-tools.chunks.txt", 0, "cerebras-tools.chunks.txt", 1)
	add(shape{name: "cerebras", provider: "Cerebras zai-glm-4.7", call: call, answer: answer,
		prompt: 322 + 433, output: 104 + 122, reasoning: "magic number"})

	call, answer = recorded("ollama-tool-call.sse.txt", 1, "ollama-tool-call.sse.txt", 0)
	add(shape{name: "ollama", provider: "Ollama /v1 qwen2.5-coder (parallel calls)", call: call, answer: answer,
		cells: 2, callCodes: []string{ledgerCode, regionsCode}})

	call, _ = self("llamaserver-b6522-tool-call.chunks.txt", 0)
	add(shape{name: "llamaserver", provider: "llama.cpp llama-server b6522 / b6676", call: call,
		answer: func(w *wireSet, text string) openaitest.Stream {
			return w.stream("llamaserver-b6676-framing.sse.txt", 0).AsAnswer(text)
		},
		framing: openaitest.Framing{Sep: "\n\n\n"}})

	call, answer = self("vllm-tool-call.sse.txt", 0)
	add(shape{name: "vllm", provider: "vLLM (hermes parser)", call: call, answer: answer})
	add(shape{name: "sse-starlette", provider: "vLLM payload in sse-starlette framing (CRLF, pings)", call: call, answer: answer,
		framing: openaitest.Framing{Sep: "\r\n\r\n", Comment: "ping - 2025-04-13 03:07:44.123456+00:00"}})

	call, answer = self("openrouter-bedrock-claude.sse.txt", 0)
	add(shape{name: "openrouter", provider: "OpenRouter → Amazon Bedrock claude-4.5-haiku", call: call, answer: answer,
		framing: openaitest.Framing{Comment: "OPENROUTER PROCESSING"}, prompt: 2 * 25105, output: 2 * 55})

	out = append(out, geminiShape(), minimaxShape(), lmstudioShape(), llamaserverB5481Shape())
	return out
}

func TestReplayRecordedStreams(t *testing.T) {
	dir := wireCorpus(t)
	sandboxtest.Engine(t)
	w := &wireSet{t: t, dir: dir, recs: map[string]*openaitest.Recording{}}
	data := filepath.Join(t.TempDir(), "ledger.csv")
	if err := os.WriteFile(data, []byte(ledgerCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sh := range shapes() {
		t.Run(sh.name, func(t *testing.T) { replay(t, w, sh, data) })
	}
}

func replay(t *testing.T, w *wireSet, sh shape, data string) {
	codes := sh.callCodes
	if codes == nil {
		codes = []string{ledgerCode}
	}
	cells := max(sh.cells, 1)
	call := sh.call(w).AsCall("call_replay_"+strings.ReplaceAll(sh.name, "-", "_"), codes...)
	callFraming := sh.framing
	if sh.callSplits != nil {
		callFraming.Splits = sh.callSplits(w)
	}
	srv := openaitest.New(t, openaitest.Writes(openaitest.Frame(call, callFraming)...))
	srv.Handle(func(req openaitest.Request) openaitest.Reply {
		if req.N == 2 && sh.secondRequest != nil {
			if err := sh.secondRequest(req); err != nil {
				return openaitest.Error(400, err.Error())
			}
		}
		text := ledgerAnswer(req)
		if sh.continued != nil {
			half := len([]rune(text)) / 2
			if strings.Contains(req.LastUser(), "cut off by the output length limit") {
				return openaitest.Writes(openaitest.Frame(sh.continued(w, string([]rune(text)[half:])), sh.framing)...)
			}
			text = string([]rune(text)[:half])
		}
		return openaitest.Writes(openaitest.Frame(sh.answer(w, text), sh.framing)...)
	})

	r := newRun(t, srv.URL, "-p", "What is the ledger total?", "--json", "--verbose", data)
	code := r.exec(2 * time.Minute)
	if code != 0 {
		t.Fatalf("%s: exit %d, want 0\nstdout:\n%s", sh.provider, code, r.stdout.String())
	}
	var res struct {
		Answer string
		Cells  []struct{ Code, Stdout string }
		Usage  struct {
			Prompt     int `json:"prompt_tokens"`
			Completion int `json:"completion_tokens"`
		}
	}
	if err := json.Unmarshal(r.stdout.Bytes(), &res); err != nil {
		t.Fatalf("stdout is not the JSON document: %v\n%s", err, r.stdout.String())
	}
	if res.Answer != wantAnswer {
		t.Errorf("%s: answer = %q, want %q", sh.provider, res.Answer, wantAnswer)
	}
	if len(res.Cells) != cells {
		t.Fatalf("%s: %d cells ran, want %d", sh.provider, len(res.Cells), cells)
	}
	for i, c := range res.Cells {
		if c.Code != codes[min(i, len(codes)-1)] {
			t.Errorf("%s: cell %d ran %q, want %q", sh.provider, i+1, c.Code, codes[i])
		}
	}
	if !strings.Contains(res.Cells[0].Stdout, "TOTAL=1966.00 ROWS=4 — «ok» \\ 😀") {
		t.Errorf("%s: cell output %q", sh.provider, res.Cells[0].Stdout)
	}
	if res.Usage.Prompt != sh.prompt || res.Usage.Completion != sh.output {
		t.Errorf("%s: usage %d prompt + %d completion tokens, want %d + %d", sh.provider, res.Usage.Prompt, res.Usage.Completion, sh.prompt, sh.output)
	}
	if strings.Contains(r.stderr.String(), "quarry: warning") {
		t.Errorf("%s: warnings on stderr:\n%s", sh.provider, r.stderr.String())
	}
	// The thinking shows on stderr with --verbose, never in the answer.
	if sh.reasoning != "" {
		if !strings.Contains(r.stderr.String(), "quarry: thinking:\n") || !strings.Contains(r.stderr.String(), sh.reasoning) {
			t.Errorf("%s: stderr lacks the thinking %q:\n%s", sh.provider, sh.reasoning, r.stderr.String())
		}
		if strings.Contains(r.stdout.String(), sh.reasoning) {
			t.Errorf("%s: the thinking reached stdout:\n%s", sh.provider, r.stdout.String())
		}
	}
	requireNoContainers(t, r.cmd.Process.Pid)
}

// chunk decodes one reconstructed chunk.
func chunk(s string) openaitest.Chunk {
	var c openaitest.Chunk
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&c); err != nil {
		panic(fmt.Sprintf("reconstructed chunk %s: %v", s, err))
	}
	return c
}

// geminiShape: the recorded chunk (a call without index, carrying a
// thought signature in extra_content) and the rest RECONSTRUCTED from the
// reports named in SOURCES.md: the call's finish reason is "stop", usage
// comes with the finish chunk, and the signature must come back with the
// call in the next request.
func geminiShape() shape {
	head := `"model":"gemini-3.8-flash","object":"chat.completion.chunk"`
	finish := func(p, c int) openaitest.Chunk {
		return chunk(fmt.Sprintf(`{"choices":[{"delta":{"role":"assistant"},"finish_reason":"stop","index":0}],"created":1776000000,%s,"usage":{"completion_tokens":%d,"prompt_tokens":%d,"total_tokens":%d}}`, head, c, p, p+c))
	}
	return shape{name: "gemini", provider: "Google Gemini, OpenAI-compatible endpoint",
		call: func(w *wireSet) openaitest.Stream {
			return append(w.stream("gemini-openai-compat-chunk.json", 0).Clone(), finish(880, 25))
		},
		answer: func(w *wireSet, text string) openaitest.Stream {
			var s openaitest.Stream
			for range 3 {
				s = append(s, chunk(`{"choices":[{"delta":{"content":"x","role":"assistant"},"index":0}],"created":1776000001,`+head+`}`))
			}
			return append(s, finish(1030, 40)).AsAnswer(text)
		},
		prompt: 880 + 1030, output: 25 + 40,
		secondRequest: func(req openaitest.Request) error {
			if !strings.Contains(string(req.Body), `"thought_signature":"…"`) {
				return fmt.Errorf("Function call is missing a thought_signature in functionCall parts")
			}
			return nil
		}}
}

// minimaxShape: the recorded head chunk (role "", reasoning_content "",
// usage in every chunk with total_characters) and, RECONSTRUCTED, a
// reasoning chunk and a call whose arguments are a JSON object.
func minimaxShape() shape {
	tail := `"created":1771279826,"object":"chat.completion.chunk","input_sensitive":false,"output_sensitive":false`
	zero := `"usage":{"total_tokens":0,"total_characters":0}`
	return shape{name: "minimax", provider: "MiniMax M2.5 (object arguments)",
		call: func(w *wireSet) openaitest.Stream {
			s := w.stream("minimax-m2.5-chunk.json", 0).Clone()
			return append(s,
				chunk(`{"choices":[{"index":0,"delta":{"reasoning_content":"The user wants the ledger total; I will sum the amount column."}}],`+zero+`,`+tail+`}`),
				chunk(`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_function_6rmw5n","type":"function","index":0,"function":{"name":"python","arguments":{"code":"x"}}}]}}],`+zero+`,`+tail+`}`),
				chunk(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"total_tokens":542,"prompt_tokens":512,"completion_tokens":30,"total_characters":0},`+tail+`}`))
		},
		answer: func(w *wireSet, text string) openaitest.Stream {
			s := w.stream("minimax-m2.5-chunk.json", 0).Clone()
			return append(s,
				chunk(`{"choices":[{"index":0,"delta":{"content":"x"}}],`+zero+`,`+tail+`}`),
				chunk(`{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}],"usage":{"total_tokens":660,"prompt_tokens":640,"completion_tokens":20,"total_characters":0},`+tail+`}`),
			).AsAnswer(text)
		},
		prompt: 512 + 640, output: 30 + 20, reasoning: "sum the amount column"}
}

// lmstudioShape: the two recorded fragments (type and name "" repeated in
// each) between a RECONSTRUCTED head chunk (a numeric-string id) and
// finish chunk.
func lmstudioShape() shape {
	head := `"id":"chatcmpl-8cybkqa7743exgha66o2hg","object":"chat.completion.chunk","created":1746707722,"model":"qwen3-30b-a3b-128k","system_fingerprint":"qwen3-30b-a3b-128k"`
	first := chunk(`{` + head + `,"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"365174485","type":"function","function":{"name":"python","arguments":""}}]},"logprobs":null,"finish_reason":null}]}`)
	last := func(reason string) openaitest.Chunk {
		return chunk(`{` + head + `,"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"` + reason + `"}]}`)
	}
	return shape{name: "lmstudio", provider: "LM Studio 0.3.15",
		call: func(w *wireSet) openaitest.Stream {
			s := append(openaitest.Stream{first}, w.stream("lmstudio-0.3.15-packets.json", 0).Clone()...)
			return append(s, last("tool_calls"))
		},
		answer: func(w *wireSet, text string) openaitest.Stream {
			s := openaitest.Stream{chunk(`{` + head + `,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`)}
			for range 4 {
				s = append(s, chunk(`{`+head+`,"choices":[{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":null}]}`))
			}
			return append(s, last("stop")).AsAnswer(text)
		}}
}

// llamaserverB5481Shape is RECONSTRUCTED from llama.cpp issue 13774 and PR
// 13800: before b5500 llama-server repeated the full tool name in every
// delta, put the id inside function and sent no type.
func llamaserverB5481Shape() shape {
	head := `"created":1748000000,"id":"chatcmpl-b5481","model":"qwen2.5-coder","system_fingerprint":"b5481-abc","object":"chat.completion.chunk"`
	return shape{name: "llamaserver-b5481", provider: "llama.cpp llama-server b5481 (name repeated)",
		call: func(*wireSet) openaitest.Stream {
			s := openaitest.Stream{chunk(`{"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],` + head + `}`)}
			for i := range 6 {
				s = append(s, chunk(`{"choices":[{"finish_reason":null,"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"python","id":"call_b5481_`+strconv.Itoa(1)+`","arguments":"x`+strconv.Itoa(i)+`"}}]}}],`+head+`}`))
			}
			return append(s, chunk(`{"choices":[{"finish_reason":"tool_calls","index":0,"delta":{}}],`+head+`}`))
		},
		answer: func(_ *wireSet, text string) openaitest.Stream {
			s := openaitest.Stream{chunk(`{"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],` + head + `}`)}
			for range 5 {
				s = append(s, chunk(`{"choices":[{"finish_reason":null,"index":0,"delta":{"content":"x"}}],`+head+`}`))
			}
			return append(s, chunk(`{"choices":[{"finish_reason":"stop","index":0,"delta":{}}],`+head+`}`)).AsAnswer(text)
		}}
}

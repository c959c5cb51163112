package openaitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Server is a fake OpenAI-compatible endpoint on loopback.
type Server struct {
	// URL is the base URL to configure clients with; it ends in /v1.
	URL string

	srv     *httptest.Server
	closing chan struct{}
	once    sync.Once

	mu      sync.Mutex
	queue   []Reply
	handler func(Request) Reply
	reqs    []Request
	models  []string
	apiKey  string
}

// Request is a request the server received, parsed.
type Request struct {
	N      int    // 1-based, over all requests
	Method string // GET, POST
	Path   string // e.g. /v1/chat/completions
	Query  string
	Header http.Header
	Body   []byte
	// Chat is the parsed body of a chat completion request.
	Chat openai.ChatCompletionRequest
}

// New starts a server that closes when the test ends; replies are answered
// in order, one per chat completion request.
func New(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := Start(replies...)
	t.Cleanup(s.Close)
	return s
}

// Start is New without a testing.TB: the caller must Close the server.
func Start(replies ...Reply) *Server {
	s := &Server{
		closing: make(chan struct{}),
		queue:   append([]Reply(nil), replies...),
		models:  []string{"gpt-fake", "gpt-fake-mini"},
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close stops the server, ending hanging streams first. Safe to call twice.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closing)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Push appends replies to the queue.
func (s *Server) Push(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Handle sets the function that answers chat requests once the queue is
// empty; it may look at the conversation (e.g. req.LastToolResult()).
func (s *Server) Handle(f func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = f
}

// RequireKey makes every request without "Bearer key" (or an api-key
// header equal to key) fail with 401, echoing the key as some servers do.
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apiKey = key
}

// SetModels sets what GET /v1/models lists (default gpt-fake, gpt-fake-mini).
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = ids
}

// Requests returns every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// ChatRequests returns the chat completion requests received so far.
func (s *Server) ChatRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if isChatPath(r.Path) {
			out = append(out, r)
		}
	}
	return out
}

func isChatPath(p string) bool { return strings.HasSuffix(p, "/chat/completions") }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	if isChatPath(r.URL.Path) && r.Method == http.MethodPost {
		if err := json.Unmarshal(body, &req.Chat); err != nil {
			writeError(w, Error(400, "openaitest: the body is not a chat completion request: "+err.Error()))
			return
		}
	}
	s.mu.Lock()
	req.N = len(s.reqs) + 1
	s.reqs = append(s.reqs, req)
	key, models := s.apiKey, s.models
	s.mu.Unlock()

	if key != "" && r.Header.Get("Authorization") != "Bearer "+key && r.Header.Get("api-key") != key {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		writeError(w, ErrorCode(401, "invalid_api_key", "Incorrect API key provided: "+got+". You can find your API key at https://platform.openai.com/account/api-keys."))
		return
	}
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		writeModels(w, models)
	case r.Method == http.MethodPost && isChatPath(r.URL.Path):
		reply := s.next(req)
		switch {
		case reply.Status != 0:
			writeError(w, reply)
		case reply.RawStream != "":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, reply.RawStream)
		case reply.RawWrites != nil:
			w.Header().Set("Content-Type", "text/event-stream")
			for _, part := range reply.RawWrites {
				io.WriteString(w, part)
				if f, ok := w.(http.Flusher); ok {
					f.Flush()
				}
			}
		case req.Chat.Stream:
			s.writeStream(w, r, req, reply)
		default:
			writeCompletion(w, req, reply)
		}
	default:
		writeError(w, Error(404, fmt.Sprintf("openaitest: no route for %s %s", r.Method, r.URL.Path)))
	}
}

func (s *Server) next(req Request) Reply {
	s.mu.Lock()
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return r
	}
	h := s.handler
	s.mu.Unlock()
	if h != nil {
		return h(req)
	}
	return Error(400, fmt.Sprintf("openaitest: no scripted reply left for request %d", req.N))
}

func writeError(w http.ResponseWriter, r Reply) {
	if r.RetryAfter > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(int((r.RetryAfter+time.Second-1)/time.Second)))
		w.Header().Set("retry-after-ms", fmt.Sprint(r.RetryAfter.Milliseconds()))
	}
	if r.RawBody != "" {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(r.Status)
		io.WriteString(w, r.RawBody)
		return
	}
	var code any
	if r.ErrCode != "" {
		code = r.ErrCode
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.Status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": r.ErrMessage, "type": r.ErrType, "param": nil, "code": code,
	}})
}

func writeModels(w http.ResponseWriter, ids []string) {
	data := make([]map[string]any, 0, len(ids))
	for _, id := range ids {
		data = append(data, map[string]any{"id": id, "object": "model", "created": 1700000000, "owned_by": "openaitest"})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

// writeCompletion answers a non-streaming request.
func writeCompletion(w http.ResponseWriter, req Request, r Reply) {
	msg := map[string]any{"role": "assistant", "content": r.Text}
	if len(r.ToolCalls) > 0 {
		var calls []map[string]any
		for i, tc := range r.ToolCalls {
			tc = tc.withDefaults(i)
			calls = append(calls, map[string]any{"id": tc.ID, "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}})
		}
		msg["tool_calls"] = calls
	}
	p, c := usage(req, r)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-fake-%d", req.N), "object": "chat.completion",
		"created": time.Now().Unix(), "model": req.Chat.Model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": r.finishReason()}},
		"usage":   map[string]int{"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c},
	})
}

func usage(req Request, r Reply) (prompt, completion int) {
	prompt, completion = r.PromptTokens, r.CompletionTokens
	if prompt == 0 {
		prompt = len(req.Body)/4 + 1
	}
	if completion == 0 {
		n := len(r.Text)
		for _, tc := range r.ToolCalls {
			n += len(tc.Arguments)
		}
		completion = n/4 + 1
	}
	return prompt, completion
}

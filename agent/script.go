package agent

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// Script plays the model's side from code instead of a server (quarry
// demo): no network, no key. The loop, the cells and the events are the
// real ones; only the replies are written by the script.
type Script interface {
	// Reply is the next reply of the turn, given what the turn holds so far.
	Reply(ScriptTurn) ScriptReply
}

// ScriptTurn is what a scripted model knows of the turn: the question and
// what it was told of each cell that ran since, exactly as a real model is
// told (the tool results).
type ScriptTurn struct {
	Prompt  string
	Results []string
}

// ScriptReply is one reply: text, and Python for the python tool. Without
// code the text is the turn's answer.
type ScriptReply struct {
	Text string
	Code string
}

// scriptPace is the pause between the pieces of a scripted reply, so that
// it streams as a model's does.
const scriptPace = 8 * time.Millisecond

// scriptWire answers every request from a Script.
type scriptWire struct{ s Script }

func (w scriptWire) open(ctx context.Context, req request, _ func(string)) (stream, error) {
	reply := w.s.Reply(scriptTurn(req.messages))
	resp := &response{finish: "stop"}
	if reply.Code != "" {
		args, err := json.Marshal(map[string]string{"code": reply.Code})
		if err != nil {
			return nil, err
		}
		resp.finish = "tool_calls"
		resp.calls = []*wireCall{{id: "call_script_" + strconv.Itoa(len(req.messages)), name: toolName, args: args}}
	}
	return &scriptStream{ctx: ctx, resp: resp, pieces: pieces(reply.Text)}, nil
}

// scriptTurn reads the turn out of a request: the last question and the
// tool results after it. Quarry's own notes to the model are not questions.
func scriptTurn(msgs []message) ScriptTurn {
	var t ScriptTurn
	for _, m := range msgs {
		switch {
		case m.role == roleUser && !strings.HasPrefix(m.content, "[quarry]"):
			t = ScriptTurn{Prompt: m.content}
		case m.role == roleTool:
			t.Results = append(t.Results, m.content)
		}
	}
	return t
}

// pieces cuts text after each space, the size of a streamed token or two.
func pieces(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			i = len(text) - 1
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// scriptStream hands out a scripted reply piece by piece.
type scriptStream struct {
	ctx    context.Context
	resp   *response
	pieces []string
	cur    delta
	err    error
}

func (s *scriptStream) Next() bool {
	if len(s.pieces) == 0 || s.err != nil {
		return false
	}
	t := time.NewTimer(scriptPace)
	defer t.Stop()
	select {
	case <-s.ctx.Done():
		s.err = s.ctx.Err()
		return false
	case <-t.C:
	}
	p := s.pieces[0]
	s.pieces = s.pieces[1:]
	if err := s.resp.addText([]byte(p)); err != nil {
		s.err = err
		return false
	}
	s.cur = s.resp.pending(len(s.pieces) == 0)
	return true
}

func (s *scriptStream) Current() delta      { return s.cur }
func (s *scriptStream) Err() error          { return s.err }
func (s *scriptStream) Response() *response { return s.resp }
func (s *scriptStream) Close() error        { return nil }

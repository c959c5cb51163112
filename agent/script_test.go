package agent

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/kernel"
)

// countScript runs one cell per question, then answers with what the cell
// printed; it records each turn it was shown.
type countScript struct{ seen []ScriptTurn }

func (s *countScript) Reply(t ScriptTurn) ScriptReply {
	s.seen = append(s.seen, t)
	if len(t.Results) == 0 {
		return ScriptReply{Text: "Counting first.", Code: "print(len(" + t.Prompt + "))"}
	}
	return ScriptReply{Text: "The cell said: " + t.Results[0]}
}

// failingTransport makes any HTTP request a test failure.
type failingTransport struct{ t *testing.T }

func (f failingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.t.Errorf("a scripted agent made an HTTP request to %s", r.URL)
	return nil, errors.New("no network")
}

func TestScriptPlaysTheModel(t *testing.T) {
	k := &stubKernel{run: func(_ context.Context, code string, onChunk func(kernel.Chunk)) (kernel.Result, error) {
		onChunk(kernel.Chunk{Stream: kernel.Stdout, Text: "3\n"})
		return kernel.Result{Stdout: "3\n"}, nil
	}}
	s := &countScript{}
	a, err := New(Config{Model: "scripted", Script: s, HTTPClient: &http.Client{Transport: failingTransport{t}}}, k)
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder
	answer, err := a.Run(context.Background(), "abc", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if got := k.Codes(); len(got) != 1 || got[0] != "print(len(abc))" {
		t.Errorf("cells run: %q", got)
	}
	if answer != "The cell said: [stdout]\n3" {
		t.Errorf("answer %q", answer)
	}
	if len(s.seen) != 2 || s.seen[1].Prompt != "abc" || len(s.seen[1].Results) != 1 {
		t.Errorf("the script was shown %+v", s.seen)
	}
	if n := len(rec.of(EventText)); n < 4 {
		t.Errorf("%d text deltas: the reply should stream in pieces", n)
	}
	if e := rec.of(EventCellDone); len(e) != 1 || e[0].Result.Stdout != "3\n" {
		t.Errorf("cell events: %+v", e)
	}

	// A second question starts a new turn for the script: the earlier
	// results are not part of it.
	if _, err := a.Run(context.Background(), "de", (&recorder{}).emit); err != nil {
		t.Fatal(err)
	}
	if last := s.seen[len(s.seen)-2]; last.Prompt != "de" || len(last.Results) != 0 {
		t.Errorf("the second turn began as %+v", last)
	}
}

func TestScriptStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a, err := New(Config{Model: "scripted", Script: &countScript{}}, &stubKernel{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Run(ctx, "abc", (&recorder{}).emit)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want cancelled", err)
	}
}

func TestPiecesKeepTheText(t *testing.T) {
	for _, s := range []string{"", "one", "a b  c ", "ünï cödé\nnext line"} {
		if got := strings.Join(pieces(s), ""); got != s {
			t.Errorf("pieces(%q) joined = %q", s, got)
		}
	}
}

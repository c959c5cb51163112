package session

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/secret"
)

const transcriptName = "transcript.jsonl"

// transcript appends one JSON object per line: a header, the user's prompts
// and every event the session publishes, so a run can be audited or
// replayed. Events arrive masked (Session.publish); the transcript's own
// records are masked here with the same Masker. A nil *transcript discards
// everything.
type transcript struct {
	mu   sync.Mutex
	f    *os.File
	mask *secret.Masker
	err  error // first write error; later writes are skipped
}

// record is a transcript line that is not an agent event.
type record struct {
	Kind    string    `json:"kind"` // session, user, reset, model
	Time    time.Time `json:"time"`
	Text    string    `json:"text,omitempty"`
	Session string    `json:"session,omitempty"`
	Model   string    `json:"model,omitempty"`
}

func openTranscript(path string, mask *secret.Masker) (*transcript, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	return &transcript{f: f, mask: mask}, nil
}

func (t *transcript) header(id, model string) {
	t.write(record{Kind: "session", Time: time.Now(), Session: id, Model: model})
}

func (t *transcript) user(prompt string) { t.note("user", prompt) }

func (t *transcript) note(kind, text string) {
	if t == nil {
		return
	}
	t.write(record{Kind: kind, Time: time.Now(), Text: t.mask.Mask(text)})
}

// event writes an event published by the session (already masked).
func (t *transcript) event(e agent.Event) { t.write(e) }

func (t *transcript) write(v any) {
	if t == nil {
		return
	}
	line, err := json.Marshal(v)
	if err != nil {
		return
	}
	line = append(line, '\n')
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil || t.err != nil {
		return
	}
	_, t.err = t.f.Write(line)
}

// Close closes the file; safe on nil and twice.
func (t *transcript) Close() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f = nil
	return err
}

package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/quarry-cli/quarry/agent"
)

const transcriptName = "transcript.jsonl"

// transcript appends one JSON object per line: a header, the user's prompts
// and every agent event, so a run can be audited or replayed. The API key is
// never in it: it is not part of any event, and each line is scrubbed of it
// in case an error message quoted it. A nil *transcript discards everything.
type transcript struct {
	mu      sync.Mutex
	f       *os.File
	secrets [][]byte
	err     error // first write error; later writes are skipped
}

// record is a transcript line that is not an agent event.
type record struct {
	Kind    string    `json:"kind"` // session, user, reset, model
	Time    time.Time `json:"time"`
	Text    string    `json:"text,omitempty"`
	Session string    `json:"session,omitempty"`
	Model   string    `json:"model,omitempty"`
}

func openTranscript(path, apiKey string) (*transcript, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	t := &transcript{f: f}
	if len(apiKey) >= 4 { // a shorter "key" would scrub ordinary words
		t.secrets = append(t.secrets, []byte(apiKey))
		if q, err := json.Marshal(apiKey); err == nil && string(q[1:len(q)-1]) != apiKey {
			t.secrets = append(t.secrets, q[1:len(q)-1]) // as it appears inside JSON
		}
	}
	return t, nil
}

func (t *transcript) header(id, model string) {
	t.write(record{Kind: "session", Time: time.Now(), Session: id, Model: model})
}

func (t *transcript) user(prompt string) {
	t.write(record{Kind: "user", Time: time.Now(), Text: prompt})
}

func (t *transcript) note(kind, text string) {
	t.write(record{Kind: kind, Time: time.Now(), Text: text})
}

func (t *transcript) event(e agent.Event) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	t.write(e)
}

func (t *transcript) write(v any) {
	if t == nil {
		return
	}
	line, err := json.Marshal(v)
	if err != nil {
		return
	}
	for _, secret := range t.secrets {
		line = bytes.ReplaceAll(line, secret, []byte("[redacted]"))
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

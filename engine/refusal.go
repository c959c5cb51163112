package engine

import (
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"
)

// Refused is a request the engine answered with an error status, in the
// engine's own words. The moby client keeps the words for ordinary requests
// ("Error response from daemon: …") but drops the body of a refused
// connection upgrade: its attach fails with "unable to upgrade to tcp,
// received 409", which says nothing of why; Attach keeps them.
type Refused struct {
	Op      string // what was asked: "container attach"
	Status  int    // the HTTP status
	Message string // the engine's message, one line
}

func (r *Refused) Error() string {
	return r.Op + ": the engine refused (" + http.StatusText(r.Status) + "): " + r.Message
}

// engineMessage is the message of an engine's error body: Docker's and
// Podman's JSON {"message": …} (Podman adds "cause"), or the text itself.
func engineMessage(b []byte) string {
	var j struct {
		Message string `json:"message"`
		Cause   string `json:"cause"`
	}
	msg := strings.TrimSpace(string(b))
	if json.Unmarshal(b, &j) == nil && j.Message != "" {
		msg = j.Message
	}
	return oneLine(msg)
}

var spaceRun = regexp.MustCompile(`\s+`)

func oneLine(s string) string {
	return strings.TrimSpace(spaceRun.ReplaceAllString(strings.ToValidUTF8(s, "\uFFFD"), " "))
}

// Message is the engine's own words in err, without the client's wrapping
// ("Error response from daemon: "), or err's text when the engine said
// nothing.
func Message(err error) string {
	if err == nil {
		return ""
	}
	var r *Refused
	if errors.As(err, &r) {
		return r.Message
	}
	s := err.Error()
	if _, after, ok := strings.Cut(s, "Error response from daemon: "); ok {
		return oneLine(after)
	}
	return oneLine(s)
}

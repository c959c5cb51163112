package config

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/quarry-cli/quarry/secret"
)

// ErrNoModelList means the endpoint does not list its models (Azure, or a
// server without GET /models), so the model cannot be checked up front.
var ErrNoModelList = errors.New("the endpoint does not list its models")

// UnknownModelError is a model name the endpoint does not offer.
type UnknownModelError struct {
	Model    string
	Endpoint string
	Closest  []string // nearest names the endpoint has, best first
}

func (e *UnknownModelError) Error() string {
	msg := fmt.Sprintf("model %q is not offered by %s", e.Model, e.Endpoint)
	if len(e.Closest) > 0 {
		msg += "; closest: " + strings.Join(e.Closest, ", ")
		return msg + fmt.Sprintf("\n  fix: --model %s, or set model in the config file", e.Closest[0])
	}
	return msg + "\n  fix: choose a model the endpoint has (--model NAME, or model in the config file)"
}

// endpoint is the base URL requests go to.
func (c Config) endpoint() string {
	if c.BaseURL != "" {
		return c.BaseURL
	}
	return OpenAIBaseURL
}

// Endpoint is the base URL requests go to (BaseURL, or OpenAI's), for
// display: a password or key embedded in it is hidden.
func (c Config) Endpoint() string { return secret.URL(c.endpoint()) }

const listModelsTimeout = 10 * time.Second

// ListModels asks the endpoint for its models (GET {base}/models, with the key).
func ListModels(ctx context.Context, c Config) ([]string, error) {
	if c.Provider == ProviderAzure {
		return nil, ErrNoModelList
	}
	ctx, cancel := context.WithTimeout(ctx, listModelsTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint()+"/models", nil)
	base := c.Endpoint() // for messages only
	mask := c.Masker()
	if err != nil {
		return nil, fmt.Errorf("model endpoint %s: %s", base, mask.MaskError(err.Error()))
	}
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		// url.Error quotes the URL only, never headers.
		return nil, fmt.Errorf("model endpoint %s does not answer: %v", base, mask.MaskError(errors.Unwrap(err).Error()))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		// The body may quote part of the key: leave it out.
		return nil, fmt.Errorf("model endpoint %s refused the key (HTTP %d): check %s", base, resp.StatusCode, keyHint(c))
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed:
		return nil, ErrNoModelList
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("model endpoint %s: HTTP %d: %s", base, resp.StatusCode, shortBody(body, mask))
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("model endpoint %s: the model list is not JSON: is base_url an OpenAI-compatible API (often ending in /v1)?", base)
	}
	names := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		if printableName(m.ID) {
			names = append(names, m.ID)
		}
	}
	return names, nil
}

// printableName reports whether a model name from a server can be shown
// and used as is: config cannot reach the terminal sanitizer, and a name
// with escapes or bidi controls is no model anyone typed.
func printableName(s string) bool {
	return s != "" && len(s) <= 256 && !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) })
}

// CheckModel reports whether the endpoint answers and offers c.Model; an
// unknown model gives an *UnknownModelError with the closest names. An
// endpoint that does not list its models passes.
func CheckModel(ctx context.Context, c Config) error {
	names, err := ListModels(ctx, c)
	if errors.Is(err, ErrNoModelList) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, n := range names {
		if n == c.Model || (c.Provider == ProviderOllama && strings.TrimSuffix(n, ":latest") == c.Model) {
			return nil
		}
	}
	return &UnknownModelError{Model: c.Model, Endpoint: c.Endpoint(), Closest: closest(c.Model, names, 3, false)}
}

func keyHint(c Config) string {
	if c.APIKeySource != "" {
		return "the key from " + c.APIKeySource
	}
	return displayEnvName(c.APIKeyEnv) + " (no key is set)"
}

var controlRE = regexp.MustCompile(`[\x00-\x1f\x7f]+`)

// shortBody is a server's error message made safe to show: the key and
// anything like one hidden, control characters removed, length capped.
func shortBody(body []byte, mask *secret.Masker) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	s := string(body)
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		s = e.Error.Message
	}
	s = controlRE.ReplaceAllString(mask.MaskError(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return strings.TrimSpace(s)
}

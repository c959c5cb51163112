package agent

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent/openaitest"
)

// A Config or an Agent printed into a log or an error must not show the key.
func TestFormattedConfigHidesKey(t *testing.T) {
	srv := openaitest.New(t)
	cfg := testConfig(srv)
	a := newAgent(t, cfg, echoKernel())
	type holder struct {
		Cfg Config
		A   *Agent
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X"} {
		for _, v := range []any{cfg, &cfg, a, holder{cfg, a}} {
			out := fmt.Sprintf(verb, v)
			if strings.Contains(out, cfg.APIKey) || strings.Contains(out, fmt.Sprintf("%x", cfg.APIKey)) || strings.Contains(out, fmt.Sprintf("%X", cfg.APIKey)) {
				t.Errorf("%s of %T shows the key: %s", verb, v, out)
			}
		}
	}
	if out := fmt.Sprintf("%+v", cfg); !strings.Contains(out, "gpt-fake") || !strings.Contains(out, "[hidden]") {
		t.Errorf("%%+v of Config = %s, want the model and a [hidden] key", out)
	}
}

// A key written into base_url (user info, as some proxies want) must not
// come back in the error Run returns, nor in its event.
func TestErrorsHideKeyInBaseURL(t *testing.T) {
	srv := openaitest.New(t, openaitest.Error(404, "no such route"))
	cfg := testConfig(srv)
	cfg.BaseURL = strings.Replace(srv.URL, "http://", "http://user:"+cfg.APIKey+"@", 1)
	_, rec, err := run(t, newAgent(t, cfg, echoKernel()), "q")
	var ae *Error
	if !errors.As(err, &ae) || ae.Status != 404 {
		t.Fatalf("Run error = %v, want the 404", err)
	}
	if strings.Contains(err.Error(), cfg.APIKey) || strings.Contains(rec.all(), cfg.APIKey) {
		t.Errorf("the key leaked:\nerror: %v\nevents: %s", err, rec.all())
	}
}

package agent

import (
	"fmt"

	"github.com/quarry-cli/quarry/secret"
)

// The key must not reach a log or an error through fmt: Config and Agent
// print themselves with it hidden, under every verb.

// Format prints the configuration with the API key hidden.
func (c Config) Format(f fmt.State, verb rune) {
	type plain Config // no methods: no recursion into Format
	p := plain(c)
	if p.APIKey != "" {
		p.APIKey = secret.Hidden
	}
	p.BaseURL = secret.URL(p.BaseURL)
	fmt.Fprintf(f, fmt.FormatString(f, verb), p)
}

// Format prints an agent as its model and mode: its fields hold the key.
func (a *Agent) Format(f fmt.State, verb rune) {
	if a == nil {
		fmt.Fprint(f, "agent.Agent(nil)")
		return
	}
	fmt.Fprintf(f, "agent.Agent{model %q, mode %s, %d cells}", a.cfg.Model, a.mode, a.cells)
}

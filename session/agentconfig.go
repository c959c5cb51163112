package session

import (
	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/config"
)

// AgentConfig converts the effective configuration into the agent's. The
// API key travels only here: into the agent's HTTP requests.
func AgentConfig(c config.Config) agent.Config {
	ac := agent.Config{
		Model:             c.Model,
		BaseURL:           c.BaseURL,
		APIKey:            c.APIKey,
		AzureAPIVersion:   c.AzureAPIVersion,
		ToolMode:          c.ToolMode,
		MaxSteps:          c.MaxSteps,
		Share:             c.Share,
		Verify:            c.Verify != config.VerifyOff,
		NoStream:          !c.Stream,
		StreamIdleTimeout: c.StallTimeout,
	}
	if len(c.Prices) > 0 {
		ac.Prices = make(map[string]agent.Price, len(c.Prices))
		for model, p := range c.Prices {
			ac.Prices[model] = agent.Price{Input: p.Input, Output: p.Output}
		}
	}
	return ac
}

package agent

import "strings"

// price finds the model's price: an exact name, else the longest key the
// name starts with ("gpt-4o" prices "gpt-4o-2024-08-06").
func (a *Agent) price() (Price, bool) {
	if p, ok := a.cfg.Prices[a.cfg.Model]; ok {
		return p, true
	}
	best, found := "", false
	for k := range a.cfg.Prices {
		if k != "" && strings.HasPrefix(a.cfg.Model, k) && len(k) > len(best) {
			best, found = k, true
		}
	}
	return a.cfg.Prices[best], found
}

// addUsage counts one response in the turn and the conversation, and
// reports both. Servers that send no usage count as zero.
func (t *turn) addUsage(u *tokenUsage) {
	var d Tokens
	if u != nil {
		d.Prompt, d.Completion, d.Reasoning = u.prompt, u.completion, u.reasoning
	}
	p, priced := t.a.price()
	if priced {
		d.CostUSD = (float64(d.Prompt)*p.Input + float64(d.Completion)*p.Output) / 1e6
	}
	add := func(to *Tokens) {
		to.Prompt += d.Prompt
		to.Completion += d.Completion
		to.Reasoning += d.Reasoning
		to.CostUSD += d.CostUSD
	}
	add(&t.usage)
	add(&t.a.total)
	t.emit(Event{Kind: EventUsage, Usage: &Usage{Turn: t.usage, Total: t.a.total, Priced: priced}})
}

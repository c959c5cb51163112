package config

// builtinPrices are list prices in US dollars per million tokens for common
// OpenAI models; the file's [prices] table adds to and overrides them.
func builtinPrices() map[string]Price {
	return map[string]Price{
		"gpt-4o":       {Input: 2.50, Output: 10.00},
		"gpt-4o-mini":  {Input: 0.15, Output: 0.60},
		"gpt-4.1":      {Input: 2.00, Output: 8.00},
		"gpt-4.1-mini": {Input: 0.40, Output: 1.60},
		"gpt-4.1-nano": {Input: 0.10, Output: 0.40},
		"o3":           {Input: 2.00, Output: 8.00},
		"o4-mini":      {Input: 1.10, Output: 4.40},
		"gpt-5":        {Input: 1.25, Output: 10.00},
		"gpt-5-mini":   {Input: 0.25, Output: 2.00},
		"gpt-5-nano":   {Input: 0.05, Output: 0.40},
	}
}

// PriceOf is the price of a model, matching a dated snapshot such as
// gpt-4o-2024-08-06 to its family; ok is false when quarry has no price.
func (c Config) PriceOf(model string) (Price, bool) {
	if p, ok := c.Prices[model]; ok {
		return p, true
	}
	best := ""
	for name := range c.Prices {
		if len(model) > len(name) && model[:len(name)] == name && model[len(name)] == '-' && len(name) > len(best) {
			best = name
		}
	}
	if best == "" {
		return Price{}, false
	}
	return c.Prices[best], true
}

package config

import (
	"fmt"
	"os"
	"strings"

	"github.com/quarry-cli/quarry/secret"
)

// Masker hides this configuration's secrets (the API key and any
// credential written into base_url) and credentials by shape, wherever
// text leaves quarry.
func (c Config) Masker() *secret.Masker {
	return secret.New(c.Secrets()...)
}

// Secrets are the values Masker hides: the key, base_url's credentials,
// and the passwords of the database sources (in their URLs, as password=
// words, and PGPASSWORD when a source may use it).
func (c Config) Secrets() []string {
	out := append([]string{c.APIKey}, secret.FromURL(c.BaseURL)...)
	for _, u := range c.Sources {
		out = append(out, secret.FromDBURL(u)...)
	}
	if len(c.Sources) > 0 {
		out = append(out, os.Getenv("PGPASSWORD"))
	}
	return out
}

// plainConfig has Config's fields but none of its methods, so fmt can print
// it without recursing into Format.
type plainConfig Config

func (c Config) redacted() plainConfig {
	p := plainConfig(c)
	if p.APIKey != "" {
		p.APIKey = secret.Hidden
	}
	p.BaseURL = secret.URL(p.BaseURL)
	p.APIKeyCmd = secret.Shapes(p.APIKeyCmd)
	if len(p.Sources) > 0 {
		m := c.Masker()
		p.Sources = map[string]string{}
		for n, u := range c.Sources {
			p.Sources[n] = m.Mask(u)
		}
	}
	return p
}

// String prints the configuration with the API key (and any key in
// base_url) hidden.
func (c Config) String() string { return fmt.Sprintf("%+v", c.redacted()) }

// GoString is %#v with the API key hidden.
func (c Config) GoString() string {
	return strings.Replace(fmt.Sprintf("%#v", c.redacted()), "config.plainConfig", "config.Config", 1)
}

// Format keeps the key out of every fmt verb: %v, %+v, %#v, %s and the
// rest (%x would otherwise print it in hex).
func (c Config) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		fmt.Fprint(f, c.GoString())
	case verb == 'v' && f.Flag('+'), verb == 's':
		fmt.Fprint(f, c.String())
	case verb == 'v':
		fmt.Fprintf(f, "%v", c.redacted())
	default:
		fmt.Fprintf(f, "%%!%c(config.Config)", verb)
	}
}

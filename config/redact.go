package config

import (
	"fmt"
	"regexp"
	"strings"
)

// plainConfig has Config's fields but none of its methods, so fmt can print
// it without recursing into Format.
type plainConfig Config

const hidden = "[hidden]"

func (c Config) redacted() plainConfig {
	p := plainConfig(c)
	if p.APIKey != "" {
		p.APIKey = hidden
	}
	p.BaseURL = redactURL(p.BaseURL)
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

// userinfoRE and keyParamRE find credentials people embed in base_url:
// https://user:KEY@host/v1 or ?api-key=KEY (some proxies and Azure-style
// gateways take the key that way).
var (
	userinfoRE = regexp.MustCompile(`(://)([^/?#@]*)@`)
	keyParamRE = regexp.MustCompile(`(?i)([?&;](?:api[-_]?key|key|access[-_]?token|token|auth|authorization|secret|password|pass|sig|signature|code)=)[^&;#]*`)
)

const hiddenURLPart = "xxxxx"

// redactURL hides a password in the userinfo of a URL, a user name that
// looks like a key, and key-like query parameters. It works on text that
// does not parse as a URL too: that is the text error messages quote.
func redactURL(s string) string {
	s = userinfoRE.ReplaceAllStringFunc(s, func(m string) string {
		info := strings.TrimSuffix(strings.TrimPrefix(m, "://"), "@")
		if user, _, ok := strings.Cut(info, ":"); ok {
			return "://" + maskSecrets(user) + ":" + hiddenURLPart + "@"
		}
		return "://" + maskSecrets(info) + "@"
	})
	return keyParamRE.ReplaceAllString(s, "${1}"+hiddenURLPart)
}

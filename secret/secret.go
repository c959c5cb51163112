// Package secret owns every rule that keeps a credential out of what quarry
// shows or stores: the API key in any of its encodings, credentials inside
// URLs (user info, key-like query parameters), authorization headers quoted
// in error texts, and tokens shaped like API keys. Every masked part reads
// Hidden. The session applies a Masker to its event stream once, so the
// chat, the headless output and the transcript receive masked text; the
// command line applies the same Masker to every message it prints.
//
// It is a leaf: it must not import any other quarry package.
package secret

import (
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// Hidden replaces every masked part.
const Hidden = "[hidden]"

// minSecret is the shortest value treated as a secret: a shorter "key"
// would hide ordinary words.
const minSecret = 4

// Masker hides a set of known secrets, and credentials by shape. A nil
// *Masker applies the shape rules only.
type Masker struct {
	known []string // every encoding of every secret, longest first
}

// New returns a Masker for the given secret values (the API key, the
// credentials FromURL finds in the base URL); empty and very short values
// are ignored.
func New(values ...string) *Masker {
	m := &Masker{}
	seen := map[string]bool{}
	for _, v := range values {
		if len(v) < minSecret {
			continue
		}
		for _, enc := range encodings(v) {
			if !seen[enc] {
				seen[enc] = true
				m.known = append(m.known, enc)
			}
		}
	}
	// Longest first: a secret that contains another is hidden whole.
	sort.Slice(m.known, func(i, j int) bool { return len(m.known[i]) > len(m.known[j]) })
	return m
}

// encodings are the forms a value takes in text quarry handles: as is,
// inside JSON (transcripts, server bodies), and percent-encoded in URLs.
func encodings(v string) []string {
	out := []string{v}
	if q, err := json.Marshal(v); err == nil {
		out = append(out, string(q[1:len(q)-1]))
	}
	out = append(out, url.QueryEscape(v), url.PathEscape(v), (&url.URL{User: url.User(v)}).User.String())
	return out
}

// Mask hides the known secrets, credentials in URLs and authorization
// headers. It leaves other text alone, so it is safe on data the kernel
// prints.
func (m *Masker) Mask(s string) string {
	if m != nil {
		for _, k := range m.known {
			s = strings.ReplaceAll(s, k, Hidden)
		}
	}
	return headers(DSN(URL(s)))
}

// MaskError is Mask plus Shapes, for error texts: a server may echo a key
// quarry never knew (a wrong one, a proxy's), and no data is lost there.
func (m *Masker) MaskError(s string) string { return Shapes(m.Mask(s)) }

// WrapError returns err with its text masked as MaskError masks it, keeping
// its identity: errors.Is and errors.As still reach the cause, and Masked
// says it is masked. One wrapped already is returned as it is.
func (m *Masker) WrapError(err error) error {
	if err == nil {
		return nil
	}
	var me *maskedError
	if errors.As(err, &me) && me == err {
		return err
	}
	return &maskedError{msg: m.MaskError(err.Error()), err: err}
}

// Masked reports that err, or an error it wraps, came from WrapError.
func Masked(err error) bool {
	var me *maskedError
	return errors.As(err, &me)
}

// maskedError is an error whose message is masked.
type maskedError struct {
	msg string
	err error
}

func (e *maskedError) Error() string { return e.msg }
func (e *maskedError) Unwrap() error { return e.err }

// userinfoRE finds the user info of URLs, also in text that does not parse
// as a URL (error messages quote URLs inside other text).
var userinfoRE = regexp.MustCompile(`(?i)([a-z][a-z0-9+.\-]*://)[^/?#@\s"'<>]+@`)

// keyParamRE finds query parameters people put keys in: ?api-key=KEY
// (Azure-style gateways, proxies), ?key=, ?token=, ?sig=.
var keyParamRE = regexp.MustCompile(`(?i)([?&;](?:api[-_]?key|key|access[-_]?token|token|auth|authorization|secret|password|pass|sig|signature|code)=)[^&;#\s"'<>]*`)

// URL hides the user info of every URL in s (https://user:pass@host becomes
// https://[hidden]@host) and the values of key-like query parameters.
func URL(s string) string {
	if strings.Contains(s, "@") { // no user info without one
		s = userinfoRE.ReplaceAllString(s, "${1}"+Hidden+"@")
	}
	if strings.Contains(s, "=") {
		s = keyParamRE.ReplaceAllString(s, "${1}"+Hidden)
	}
	return s
}

// headerRE finds credentials quoted as headers or fields: "Authorization:
// Bearer KEY", "api-key: KEY", "x-api-key=KEY", "\"api_key\": \"KEY\"".
var headerRE = regexp.MustCompile(`(?i)((?:proxy-)?authorization|x-api-key|api[-_]?key)(["']?\s*[:=]\s*["']?)(?:(bearer|basic|token)\s+)?[^\s"',;&]+`)

func headers(s string) string {
	if !strings.ContainsAny(s, ":=") { // cheap: most text the kernel prints has neither
		return s
	}
	return headerRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := headerRE.FindStringSubmatch(m)
		out := sub[1] + sub[2]
		if sub[3] != "" {
			out += sub[3] + " "
		}
		if v := m[len(out):]; strings.HasPrefix(v, Hidden) || strings.HasSuffix(v, "...") || strings.HasSuffix(v, "…") {
			return m // already masked, or a placeholder in advice ("export OPENAI_API_KEY=sk-...")
		}
		return out + Hidden
	})
}

// shapeRE finds tokens shaped like API keys: the prefixes providers use
// (OpenAI sk-, sk-proj-, Anthropic sk-ant-, Groq gsk_, xAI xai-, Google
// AIza, GitHub ghp_/github_pat_, Hugging Face hf_) and long opaque runs
// mixing letters and digits (Azure's 32 hex digits).
var shapeRE = regexp.MustCompile(`(?:sk-|sk_|gsk_|xai-|AIza|ghp_|github_pat_|hf_)[A-Za-z0-9_\-*.]{6,}|\b[A-Za-z0-9]{32,}\b`)

// Shapes hides every token shaped like an API key. For texts where any key
// may appear and none is data: error messages, a command line, a URL that
// does not parse.
func Shapes(s string) string {
	return shapeRE.ReplaceAllStringFunc(s, func(m string) string {
		if !strings.ContainsAny(m[:4], "-_") && !randomLooking(m) {
			return m // a long word, number, name or engine id, not a key
		}
		key := strings.TrimRight(m, ".") // the end of a sentence stays
		return Hidden + m[len(key):]
	})
}

// randomLooking tells a long run that may be a key from the long runs error
// texts hold for other reasons: a key mixes letters and digits, has no
// word in it (eight lower-case letters in a row: a test's or a file's name)
// and is not a 64-digit hex id (containers, image digests).
func randomLooking(s string) bool {
	letters, digits, hex := false, false, len(s) == 64
	lowerRun := 0
	for _, c := range s {
		lower := c >= 'a' && c <= 'z'
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case lower, c >= 'A' && c <= 'Z':
			letters = true
		}
		if lower {
			lowerRun++
			if lowerRun >= 8 {
				return false
			}
		} else {
			lowerRun = 0
		}
		hex = hex && (c >= '0' && c <= '9' || c >= 'a' && c <= 'f')
	}
	return letters && digits && !hex
}

// FromURL returns the credentials written into a URL: the user name and
// password of its user info and the values of key-like query parameters,
// decoded. Feed them to New so they are hidden wherever they show up.
func FromURL(raw string) []string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		// Unparseable: fall back to the raw user info, if any.
		if m := userinfoRE.FindString(raw); m != "" {
			info := m[strings.Index(m, "://")+3 : len(m)-1]
			user, pass, _ := strings.Cut(info, ":")
			return nonEmpty(user, pass)
		}
		return nil
	}
	var out []string
	if u.User != nil {
		p, _ := u.User.Password()
		out = nonEmpty(u.User.Username(), p)
	}
	for name, vals := range u.Query() {
		if keyParamRE.MatchString("?" + name + "=") {
			out = append(out, nonEmpty(vals...)...)
		}
	}
	return out
}

func nonEmpty(vs ...string) []string {
	var out []string
	for _, v := range vs {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// passwordWordRE finds libpq's password=VALUE in a key=value connection
// string (host=db password=s3cret) and in text quoting one, quoted or not.
var passwordWordRE = regexp.MustCompile(`(?i)\b(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&;"'<>]+)`)

// FromDSN returns the password of a libpq key=value connection string
// (password=VALUE, or password='quoted value'), for New.
func FromDSN(s string) []string {
	var out []string
	for _, m := range passwordWordRE.FindAllStringSubmatch(s, -1) {
		v := m[2]
		if len(v) >= 2 && v[0] == '\'' {
			v = strings.ReplaceAll(v[1:len(v)-1], `\'`, `'`)
		}
		out = append(out, nonEmpty(v)...)
	}
	return out
}

// DSN hides the values of password= words, as URL hides user info.
func DSN(s string) string {
	if !strings.Contains(s, "=") {
		return s
	}
	return passwordWordRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := passwordWordRE.FindStringSubmatch(m)
		if strings.HasPrefix(sub[2], Hidden) {
			return m
		}
		return sub[1] + Hidden
	})
}

// FromDBURL returns the credentials of a database connection string: the
// password of a URL's user info (not the user name, which error texts and
// the chat show), its password= parameter, or a key=value string's
// password= word.
func FromDBURL(raw string) []string {
	out := FromDSN(raw)
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || !strings.Contains(raw, "://") {
		if m := userinfoRE.FindString(raw); m != "" {
			info := m[strings.Index(m, "://")+3 : len(m)-1]
			_, pass, _ := strings.Cut(info, ":")
			out = append(out, nonEmpty(pass)...)
		}
		return out
	}
	if u.User != nil {
		p, _ := u.User.Password()
		out = append(out, nonEmpty(p)...)
	}
	for name, vals := range u.Query() {
		if keyParamRE.MatchString("?" + name + "=") {
			out = append(out, nonEmpty(vals...)...)
		}
	}
	return out
}

// DBURL shows a database connection string as quarry names a source: the
// user name kept (the chat, doctor and the record show user@host/db), the
// password of the user info, password= words and key-like parameters
// hidden. Anything that does not parse is hidden as URL hides it.
func DBURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.User == nil || !strings.Contains(raw, "://") {
		return DSN(URL(raw))
	}
	info := url.User(u.User.Username()).String()
	if _, ok := u.User.Password(); ok {
		info += ":" + Hidden
	}
	rest := raw[strings.LastIndex(raw, "@")+1:] // host, path and query
	if strings.Contains(rest, "=") {
		rest = keyParamRE.ReplaceAllString(rest, "${1}"+Hidden)
	}
	return u.Scheme + "://" + info + "@" + rest
}

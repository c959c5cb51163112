package source

import (
	"github.com/quarry-cli/quarry/secret"
)

// maskSpec hides what a connection string holds of credentials, for a
// message about a spec that may not even parse.
func maskSpec(s string) string {
	return secret.New(secret.FromDBURL(s)...).MaskError(s)
}

// Secrets: the password pgx found too (PGPASSWORD, ~/.pgpass, a service
// file).
func (s *pgSource) Secrets() []string {
	out := secret.FromDBURL(s.spec.URL)
	if s.password != "" {
		out = append(out, s.password)
	}
	return out
}

// mask masks err's text and keeps its identity (a *pgconn.PgError for the
// server's words stays reachable with errors.As).
func (s *pgSource) mask(err error) error { return s.masker.WrapError(err) }

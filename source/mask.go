package source

import (
	"errors"

	"github.com/quarry-cli/quarry/secret"
)

// maskSpec hides what a connection string holds of credentials, for a
// message about a spec that may not even parse.
func maskSpec(s string) string {
	return secret.New(secret.FromDBURL(s)...).MaskError(s)
}

// Secrets are the credential values in a spec and the password pgx found
// for it (PGPASSWORD, ~/.pgpass, a service file), for a secret.Masker.
func (s *Source) Secrets() []string {
	out := secret.FromDBURL(s.spec.URL)
	if s.password != "" {
		out = append(out, s.password)
	}
	return out
}

// maskedError is an error whose text is masked; errors.Is and As still
// reach the cause (a *pgconn.PgError for the server's words).
type maskedError struct {
	text  string
	cause error
}

func (e *maskedError) Error() string { return e.text }
func (e *maskedError) Unwrap() error { return e.cause }

func (s *Source) mask(err error) error {
	if err == nil {
		return nil
	}
	var me *maskedError
	if errors.As(err, &me) && me == err {
		return err
	}
	return &maskedError{text: s.masker.MaskError(err.Error()), cause: err}
}

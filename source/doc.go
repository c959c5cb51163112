// Package source owns quarry's database sources on the host: live
// PostgreSQL (and servers speaking its protocol) reached with pgx. It
// parses and checks a source (--db NAME=URL, [sources.NAME] in a profile),
// finds the password as psql does (the URL, PGPASSWORD, ~/.pgpass, a
// service file), profiles the schema from the catalogue, and runs the
// kernel's sql(query, db=NAME) in a READ ONLY transaction with a statement
// timeout and caps on rows and bytes, writing the result as an Arrow IPC
// stream. The sandbox never gets a network: only results cross.
//
// Credentials never leave this package unmasked: every error and every
// text it returns is masked with the source's own secrets.
//
// It imports only secret and kernel (FormatSize) of quarry.
package source

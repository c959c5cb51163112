// Package source owns quarry's database sources on the host, behind one
// interface, Source, of which there are two kinds (the table in kinds.go):
// PostgreSQL (and servers speaking its protocol) reached with pgx, and
// MariaDB and MySQL reached with go-sql-driver/mysql. It parses and checks
// a source (--db NAME=URL, [sources.NAME] in a profile; a URL of another
// kind is refused naming the kinds), finds the password as the kind's own
// client does (the URL, PGPASSWORD, ~/.pgpass, a service file; ~/.my.cnf,
// MYSQL_PWD), profiles the schema from the catalogue, and runs the
// kernel's sql(query, db=NAME) in a read-only transaction under the
// server's statement time limit and caps on rows and bytes, writing the
// result as an Arrow IPC stream; a stopped query is stopped on the server.
// The sandbox never gets a network: only results cross.
//
// Credentials never leave this package unmasked: every error and every
// text it returns is masked with the source's own secrets.
//
// It imports only secret and kernel (FormatSize) of quarry.
package source

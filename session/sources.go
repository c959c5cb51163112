package session

import (
	"context"
	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/config"
	"io"
	"time"

	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/source"
)

// The session wires the sandbox's sql(query, db=NAME) to the sources the
// launch path opened: the sandbox sees only the DB interface, the sources
// only a query and a writer.

// sourceDB answers the sandbox's DB calls from a source.Set.
type sourceDB struct {
	set               *source.Set
	maxRows, maxBytes int64 // the settings; a call's max_rows overrides maxRows
}

func (d sourceDB) QueryDB(ctx context.Context, name, query string, maxRows int64, timeout time.Duration, w io.Writer) (sandbox.DBResult, error) {
	src, err := d.set.Get(name)
	if err != nil {
		return sandbox.DBResult{}, err
	}
	if maxRows <= 0 {
		maxRows = d.maxRows
	}
	res, err := src.Query(ctx, query, source.Limits{Timeout: timeout, MaxRows: maxRows, MaxBytes: d.maxBytes}, w)
	return sandbox.DBResult{Rows: res.Rows, Note: res.Cut}, err
}

// SourceInfo is what the chat shows of a connected source.
type SourceInfo struct {
	Name   string
	Where  string // user@host/db, no credentials
	Server string // the server's product and version: "MariaDB 10.11.19"
	Kind   string // the kind's first URL scheme: postgres, mysql
}

// Sources lists the connected database sources.
func (s *Session) Sources() []SourceInfo {
	var out []SourceInfo
	for _, src := range s.opts.Sources.Sources() {
		out = append(out, SourceInfo{Name: src.Name(), Where: src.Where(), Server: src.Server(), Kind: src.Kind().Schemes[0]})
	}
	return out
}

// profileSources tells the agent what the connected databases hold; a
// database that cannot be profiled is still connected, with a warning.
func (s *Session) profileSources(ctx context.Context) {
	srcs := s.opts.Sources.Sources()
	if len(srcs) == 0 || s.ag == nil {
		return
	}
	examples := s.opts.Config.Share != config.ShareSchema
	var texts []string
	for _, src := range srcs {
		s.progress("reading the schema of database " + src.Name())
		p, err := src.Profile(ctx, source.ProfileOptions{Examples: examples, Memory: s.opts.Config.Memory})
		if err != nil {
			s.emit(agent.Event{Kind: agent.EventWarning, Text: "database " + src.Name() + ": the schema could not be read: " + err.Error()})
		}
		texts = append(texts, p.Text(examples))
	}
	s.ag.SetSources(texts)
}

// warnMissingSources says which databases an earlier run read that this
// one has not connected: their cells fail when replayed.
func (s *Session) warnMissingSources(rec *Record) {
	if rec == nil {
		return
	}
	have := map[string]bool{}
	for _, src := range s.Sources() {
		have[src.Name] = true
	}
	for _, src := range rec.Settings.Sources {
		if !have[src.Name] {
			s.emit(agent.Event{Kind: agent.EventWarning, Text: "the session read database " + src.Name + " (" + src.Where + "), which is not connected now: its cells fail until you start quarry with --db " + src.Name + "=URL"})
		}
	}
}

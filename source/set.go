package source

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Set is the sources of one session, by name.
type Set struct {
	list []Source
}

// OpenAll parses and checks every spec, in parallel; the error names
// each source that failed and why.
func OpenAll(ctx context.Context, specs []Spec) (*Set, error) {
	seen := map[string]bool{}
	for _, sp := range specs {
		if seen[sp.Name] {
			return nil, fmt.Errorf("source %s is given twice; give each database its own name (--db NAME=URL)", sp.Name)
		}
		seen[sp.Name] = true
	}
	srcs := make([]Source, len(specs))
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	for i, sp := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			srcs[i], errs[i] = Open(ctx, sp)
		}()
	}
	wg.Wait()
	var msgs []string
	for _, err := range errs {
		if err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	set := &Set{}
	for _, s := range srcs {
		if s != nil {
			set.list = append(set.list, s)
		}
	}
	sort.Slice(set.list, func(i, j int) bool { return set.list[i].Name() < set.list[j].Name() })
	if len(msgs) > 0 {
		set.Close()
		return nil, fmt.Errorf("%s", strings.Join(msgs, "\n"))
	}
	return set, nil
}

// Sources lists them by name.
func (s *Set) Sources() []Source {
	if s == nil {
		return nil
	}
	return s.list
}

// Get finds a source by name.
func (s *Set) Get(name string) (Source, error) {
	for _, src := range s.Sources() {
		if src.Name() == name {
			return src, nil
		}
	}
	names := make([]string, 0, len(s.Sources()))
	for _, src := range s.Sources() {
		names = append(names, src.Name())
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no database source named %q: none is connected (start quarry with --db %s=URL, e.g. %s), and no SQLite or DuckDB file in /data has that name", name, name, examples())
	}
	return nil, fmt.Errorf("no database source named %q: connected are %s (or attach a SQLite or DuckDB file named %s)", name, strings.Join(names, ", "), name)
}

// Secrets of every source, for the session's masker.
func (s *Set) Secrets() []string {
	var out []string
	for _, src := range s.Sources() {
		out = append(out, src.Secrets()...)
	}
	return out
}

// Close ends every connection.
func (s *Set) Close() {
	if s == nil {
		return
	}
	for _, src := range s.Sources() {
		src.Close()
	}
}

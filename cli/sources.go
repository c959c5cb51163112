package cli

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/source"
)

// sourceCheckTimeout bounds the start-up check of the database sources.
const sourceCheckTimeout = 20 * time.Second

// openSources connects to every configured database and checks it (a
// read-only transaction); nil when there is none. Its error names each
// source that failed and why, with the passwords masked.
func openSources(ctx context.Context, cfg config.Config) (*source.Set, error) {
	if len(cfg.Sources) == 0 {
		return nil, nil
	}
	names := make([]string, 0, len(cfg.Sources))
	for n := range cfg.Sources {
		names = append(names, n)
	}
	sort.Strings(names)
	specs := make([]source.Spec, len(names))
	for i, n := range names {
		specs[i] = source.Spec{Name: n, URL: cfg.Sources[n]}
	}
	ctx, cancel := context.WithTimeout(ctx, sourceCheckTimeout)
	defer cancel()
	set, err := source.OpenAll(ctx, specs)
	if err != nil {
		return nil, fmt.Errorf("%s\nCheck the source's URL and password (%s), or leave it out: quarry config shows the sources", cfg.Masker().MaskError(err.Error()), source.PasswordPlaces())
	}
	return set, nil
}

// openCluster checks the configured Dask cluster's address and TLS files;
// nil when none is set. Whether the scheduler answers is the session's to
// find out, at the sandbox's start.
func openCluster(cfg config.Config) (*source.Dask, error) {
	if cfg.Dask.Address == "" {
		return nil, nil
	}
	c, err := source.ParseDask(cfg.Dask.Spec())
	if err != nil {
		return nil, fmt.Errorf("%w\nCheck --dask, DASK_SCHEDULER_ADDRESS or [dask] in the config (quarry config shows where it came from)", err)
	}
	return c, nil
}

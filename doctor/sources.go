package doctor

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/source"
)

// checkSources checks each database source as a session's start does: it
// connects, reads the server's version and opens a read-only transaction.
func checkSources(ctx context.Context, c config.Config) []Check {
	names := make([]string, 0, len(c.Sources))
	for n := range c.Sources {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Check
	for _, n := range names {
		r := Check{Name: "database " + n}
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		src, err := source.Open(cctx, source.Spec{Name: n, URL: c.Sources[n]})
		cancel()
		if err != nil {
			r.State, r.Detail = Failed, err.Error()
			r.Fix = "check the URL, the server and the password; quarry config shows the sources"
			if k, kerr := source.KindOf(c.Sources[n]); kerr == nil {
				r.Fix = "check the URL, the server and the password (" + k.Passwords + "); quarry config shows the sources"
			}
			out = append(out, r)
			continue
		}
		r.Detail = fmt.Sprintf("%s at %s; a read-only transaction works", src.Server(), src.Where())
		src.Close()
		out = append(out, r)
	}
	return out
}

package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/session"
)

// resumption is a saved session about to be continued, its inputs checked
// before anything starts.
type resumption struct {
	rec     *session.Record
	inputs  map[string]string    // input name -> host file given by --map
	changed []session.InputCheck // changed or gone, and not mapped
}

// findResumption loads the session --resume names and checks its inputs
// against their files now (SHA-256). An input that changed or vanished
// is bad input unless --map names its file or the front end asks.
func findResumption(f *rootFlags, ask bool) (*resumption, error) {
	rec, err := session.FindSession(session.DefaultIndex(), f.resume)
	if err != nil {
		return nil, err
	}
	if rec.InUse() {
		return nil, fmt.Errorf("session %s is open in another quarry process: quit it there first", rec.ID)
	}
	rs := &resumption{rec: rec}
	if rs.inputs, err = parseMaps(f.maps, rec.MatchInput); err != nil {
		return nil, err
	}
	for _, c := range rec.CheckInputs() {
		if _, ok := rs.inputs[c.Name]; ok || c.Problem == "" {
			continue
		}
		rs.changed = append(rs.changed, c)
	}
	if len(rs.changed) > 0 && !ask {
		return nil, changedInputsError(rec.ID, rs.changed)
	}
	return rs, nil
}

// parseMaps reads --map OLD=NEW: OLD names an input (match finds it), NEW
// must be a file quarry can attach (check, when given, says for the input).
func parseMaps(maps []string, match func(string) (session.Input, bool), check ...func(session.Input, string) error) (map[string]string, error) {
	out := map[string]string{}
	for _, m := range maps {
		old, path, ok := strings.Cut(m, "=")
		if !ok || old == "" || path == "" {
			return nil, fmt.Errorf("--map %s: give OLD=NEW, e.g. --map q1.csv=q3.csv", m)
		}
		in, ok := match(old)
		if !ok {
			return nil, fmt.Errorf("--map %s: there is no input %s to replace", m, old)
		}
		checkErr := session.CheckFile(path)
		if len(check) > 0 {
			checkErr = check[0](in, path)
		}
		if checkErr != nil {
			return nil, fmt.Errorf("--map %s: %w", m, checkErr)
		}
		out[in.Name] = path
	}
	return out, nil
}

// changedInputsError names each input that cannot be used as recorded.
func changedInputsError(id string, changed []session.InputCheck) error {
	var b strings.Builder
	fmt.Fprintf(&b, "session %s cannot be resumed as it was:", id)
	for _, c := range changed {
		where := c.Path
		if where == "" {
			where = "its file"
		}
		fmt.Fprintf(&b, "\n  %s: %s %s", render.SanitizeLine(c.Name), render.SanitizeLine(where), c.Problem)
	}
	c := changed[0]
	fmt.Fprintf(&b, "\nName the file to use with --map %s=FILE", render.SanitizeLine(c.Name))
	if !c.Gone {
		fmt.Fprintf(&b, " (--map %s=%s takes it as it is now)", render.SanitizeLine(c.Name), render.SanitizeLine(c.Path))
	}
	return errors.New(b.String())
}

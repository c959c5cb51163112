package agent

import "github.com/quarry-cli/quarry/kernel"

// readCall is the pandas call that loads a profiled file: exactly the one
// the profile itself ran (kernel.Profile.Read), rendered on path, so the
// model's first read succeeds where the profile did. Empty when the file
// could not be profiled or is not tabular.
func readCall(p kernel.Profile, path string) string {
	if p.Error != "" {
		return ""
	}
	return p.Read.Python(path)
}

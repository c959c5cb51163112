package sandbox_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// A cell that fails for want of a module says which, as a field the host
// reads (not words in a traceback): an import in the cell, one in a library
// it called, or a %pip line's request; other failures say nothing of it.
func TestErrorNeeds(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	request := "class PackageRequest(ImportError):\n    def __init__(self, packages, via):\n        super().__init__('install ' + ' '.join(packages))\n        self.packages, self.via = packages, via\n"
	for _, c := range []struct {
		name, code string
		want       *kernel.Needs
	}{
		{"import", "import quarry_missing_mod", &kernel.Needs{Modules: []string{"quarry_missing_mod"}}},
		{"submodule", "import xgboostish.core", &kernel.Needs{Modules: []string{"xgboostish"}}},
		{"library's optional dependency", "import pandas as pd\npd.DataFrame({'a': [1]}).to_excel('x.xlsx', engine='xlsxwriter')", &kernel.Needs{Modules: []string{"xlsxwriter"}}},
		{"pip line", request + "raise PackageRequest(['xgboost==2.0', 'shap'], 'pip')", &kernel.Needs{Packages: []string{"xgboost==2.0", "shap"}, Via: "pip"}},
		{"handled import, other error", "try:\n    import quarry_missing_mod\nexcept ImportError:\n    {}['k']", nil},
		{"other error", "1/0", nil},
	} {
		res, err := s.Exec(ctx, c.code, nil)
		if err != nil || res.Error == nil {
			t.Fatalf("%s: %v %+v", c.name, err, res.Error)
		}
		got := res.Error.Needs
		if (got == nil) != (c.want == nil) || got != nil && (!slices.Equal(got.Modules, c.want.Modules) || !slices.Equal(got.Packages, c.want.Packages) || got.Via != c.want.Via) {
			t.Errorf("%s: needs %+v, want %+v (%s: %s)", c.name, got, c.want, res.Error.Type, res.Error.Message)
		}
	}
}

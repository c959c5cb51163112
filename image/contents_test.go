package image

import (
	"path/filepath"
	"testing"
)

// The module index reads Contents lines as Debian writes them: a module is
// the package that has its __init__.py, .py or extension; a namespace part
// does not count; pip names come from dist-info folders.
func TestModuleIndex(t *testing.T) {
	idx := &moduleIndex{modules: map[string]map[string]bool{}, dists: map[string]map[string]bool{}}
	for _, l := range [][2]string{
		{"usr/lib/python3/dist-packages/xgboost/__init__.py", "python/python3-xgboost"},
		{"usr/lib/python3/dist-packages/xgboost/core.py", "python/python3-xgboost"},
		{"usr/lib/python3/dist-packages/xgboost/testing/data.py", "python/python3-xgboost-tests"},
		{"usr/lib/python3/dist-packages/xgboost-3.3.0.dist-info/METADATA", "python/python3-xgboost"},
		{"usr/lib/python3/dist-packages/sklearn/__init__.py", "python/python3-sklearn"},
		{"usr/lib/python3/dist-packages/scikit_learn-1.9.0.dist-info/METADATA", "python/python3-sklearn"},
		{"usr/lib/python3/dist-packages/yaml/__init__.py", "python/python3-yaml,debug/python3-yaml-dbg"},
		{"usr/lib/python3/dist-packages/_yaml.cpython-314-x86_64-linux-gnu.so", "python/python3-yaml"},
		{"usr/lib/python3/dist-packages/cv2.cpython-314-x86_64-linux-gnu.so", "python/python3-opencv"},
		{"usr/lib/python3/dist-packages/google/protobuf/__init__.py", "python/python3-protobuf"},
		{"usr/lib/python3/dist-packages/google/cloud/storage/__init__.py", "python/python3-google-cloud-storage"},
		{"usr/lib/python3/dist-packages/six.py", "python/python3-six"},
		{"usr/lib/python3.14/tkinter/__init__.py", "python/python3-tk"},
		{"usr/lib/python3/dist-packages/mpl_toolkits/axisartist/axes_grid.py", "python/python3-matplotlib"},
		{"usr/lib/python3/dist-packages/bad-name/x.py", "python/python3-bad"},
		{"usr/share/doc/xgboost/copyright", "doc/xgboost"},
	} {
		idx.add(l[0], l[1])
	}
	for module, want := range map[string]string{
		"xgboost": "python3-xgboost", "sklearn": "python3-sklearn", "yaml": "python3-yaml", "_yaml": "python3-yaml",
		"cv2": "python3-opencv", "six": "python3-six", "tkinter": "python3-tk", "google": "",
		"mpl_toolkits": "python3-matplotlib", "bad-name": "", "nothing": "",
	} {
		if got := idx.module(module); got != want {
			t.Errorf("module %s: %q, want %q", module, got, want)
		}
	}
	for dist, want := range map[string]string{"scikit-learn": "python3-sklearn", "Scikit_Learn": "python3-sklearn", "xgboost": "python3-xgboost", "pyyaml": ""} {
		if got := idx.dist(dist); got != want {
			t.Errorf("dist %s: %q, want %q", dist, got, want)
		}
	}
	// Written once, read back the same.
	path := filepath.Join(t.TempDir(), "modules.tsv")
	if err := idx.write(path, "stamp"); err != nil {
		t.Fatal(err)
	}
	back, ok := readModuleIndex(path, "stamp")
	if !ok || back.module("xgboost") != "python3-xgboost" || back.dist("scikit-learn") != "python3-sklearn" || back.module("google") != "" {
		t.Fatalf("index read back: %v", ok)
	}
	if _, ok := readModuleIndex(path, "other stamp"); ok {
		t.Fatal("an index of other Contents files was used")
	}
}

// The packages setup.sh purges are read from the recipe, the one list.
func TestForbiddenPackagesComeFromTheRecipe(t *testing.T) {
	got := forbiddenPackages()
	for _, want := range []string{"python3-pip", "gcc", "python3-dev", "make"} {
		if !contains(got, want) {
			t.Errorf("forbidden packages %v lack %s", got, want)
		}
	}
	if err := checkNames([]Package{{Name: "python3-x"}, {Name: "gcc", Version: "4:15"}}, []string{"python3-x"}); err == nil ||
		err.Error() != "python3-x is refused: it needs gcc, a compiler toolchain, which builds code; the sandbox allows no pip, no compiler and no setuid or setgid file" {
		t.Fatalf("a dependency on gcc: %v", err)
	}
	if err := checkNames([]Package{{Name: "python3-pip"}}, []string{"python3-pip"}); err == nil || err.(*RefusedError).Package != "python3-pip" {
		t.Fatalf("pip asked for: %v", err)
	}
}

func TestUpstreamVersion(t *testing.T) {
	for v, want := range map[string]string{"3.3.0-1+b1": "3.3.0", "1:2.4.6+ds-5+b1": "2.4.6+ds", "2026f": "2026f", "0.6~dev2-1": "0.6~dev2"} {
		if got := UpstreamVersion(v); got != want {
			t.Errorf("%s: %s, want %s", v, got, want)
		}
	}
}

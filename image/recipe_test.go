package image

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestRecipeHashIsStableAndShort(t *testing.T) {
	h := RecipeHash()
	if !regexp.MustCompile(`^[0-9a-f]{12}$`).MatchString(h) {
		t.Fatalf("RecipeHash() = %q, want 12 hex characters", h)
	}
	if h != loadRecipe().hash() {
		t.Fatalf("hash differs between loads of the same recipe")
	}
	if Ref() != "quarry-sandbox:"+h {
		t.Fatalf("Ref() = %q", Ref())
	}
}

func TestRecipeHashChangesWithEveryFile(t *testing.T) {
	base := loadRecipe()
	for _, name := range recipeFiles {
		changed := recipe{}
		for k, v := range base {
			changed[k] = v
		}
		changed[name] = append(slices.Clone(base[name]), []byte("\n# edited\n")...)
		if changed.hash() == base.hash() {
			t.Errorf("editing %s did not change the recipe hash", name)
		}
	}
	// Moving bytes from one file to the next must also change it.
	moved := recipe{"packages.txt": []byte("python3\nx"), "Dockerfile": []byte("FROM y"), "setup.sh": nil}
	moved2 := recipe{"packages.txt": []byte("python3\n"), "Dockerfile": []byte("xFROM y"), "setup.sh": nil}
	if moved.hash() == moved2.hash() {
		t.Errorf("moving text between recipe files kept the same hash")
	}
}

func TestRecipeHashChangesWithPackageList(t *testing.T) {
	base := loadRecipe()
	more := recipe{"Dockerfile": base["Dockerfile"], "setup.sh": base["setup.sh"],
		"packages.txt": append(slices.Clone(base["packages.txt"]), []byte("python3-xlrd\n")...)}
	if more.hash() == base.hash() {
		t.Fatal("adding a package did not change the recipe hash")
	}
	if !slices.Contains(more.packages(), "python3-xlrd") {
		t.Fatalf("packages() = %v, want python3-xlrd in it", more.packages())
	}
}

func TestRecipePackages(t *testing.T) {
	pkgs := currentRecipe.packages()
	for _, want := range []string{"python3", "python3-pandas", "python3-numpy", "python3-matplotlib",
		"python3-scipy", "python3-seaborn", "python3-statsmodels", "python3-sklearn",
		"python3-openpyxl", "python3-tabulate", "fonts-dejavu-core"} {
		if !slices.Contains(pkgs, want) {
			t.Errorf("packages.txt lacks %s", want)
		}
	}
	for _, p := range pkgs {
		if strings.ContainsAny(p, "#, ") || p == "" {
			t.Errorf("bad package entry %q", p)
		}
		if p == "python3-pip" || p == "gcc" || p == "tini" {
			t.Errorf("packages.txt must not list %s", p)
		}
	}
}

func TestImageChangesMirrorDockerfile(t *testing.T) {
	changes := currentRecipe.imageChanges()
	for _, want := range []string{"USER sandbox", "WORKDIR /output", "ENV LANG=C.UTF-8",
		"ENV MPLBACKEND=Agg", "ENV MPLCONFIGDIR=/etc/quarry/mpl", "LABEL io.quarry.recipe=" + RecipeHash()} {
		if !slices.Contains(changes, want) {
			t.Errorf("import changes %q lack %q", changes, want)
		}
	}
	for _, c := range changes {
		if strings.HasPrefix(c, "RUN") || strings.HasPrefix(c, "FROM") || strings.HasPrefix(c, "COPY") {
			t.Errorf("import change %q is not a config instruction", c)
		}
	}
}

func TestDebianMirror(t *testing.T) {
	t.Setenv(MirrorEnv, "")
	cases := []struct{ dir, want string }{
		{"deb822", "http://mirror.example.test/debian"},        // vendor lists skipped, security stanza skipped
		{"oneline", "http://ftp.example.test/debian"},          // deb-src, security skipped; options parsed; slash trimmed
		{"disabled", "http://multi.example.test/debian"},       // Enabled: no skipped; multi-line URIs
		{"security-first", "http://plain.example.test/debian"}, // -security and contrib-only skipped
	}
	for _, c := range cases {
		got, err := DebianMirror(filepath.Join("testdata", "apt", c.dir))
		if err != nil || got != c.want {
			t.Errorf("%s: DebianMirror = %q, %v; want %q", c.dir, got, err, c.want)
		}
	}
}

func TestDebianMirrorNoneFound(t *testing.T) {
	t.Setenv(MirrorEnv, "")
	for _, dir := range []string{"ubuntu", "does-not-exist"} {
		_, err := DebianMirror(filepath.Join("testdata", "apt", dir))
		if err == nil || !strings.Contains(err.Error(), MirrorEnv) {
			t.Errorf("%s: err = %v, want an error naming %s", dir, err, MirrorEnv)
		}
	}
	t.Setenv(MirrorEnv, "http://override.example.test/debian")
	got, err := DebianMirror(filepath.Join("testdata", "apt", "ubuntu"))
	if err != nil || got != "http://override.example.test/debian" {
		t.Errorf("override: %q, %v", got, err)
	}
}

func TestNoMirrorHostHardCoded(t *testing.T) {
	// The mirror always comes from the host; guard against a fallback creeping in.
	files, _ := filepath.Glob("*.go")
	files = append(files, "recipe/Dockerfile", "recipe/setup.sh")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, host := range []string{"deb.debian.org", "ftp.debian.org", "httpredir", "mirrors."} {
			if strings.Contains(string(b), host) {
				t.Errorf("%s hard-codes the mirror host %s", f, host)
			}
		}
	}
}

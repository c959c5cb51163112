package image

import (
	"bufio"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"strings"
)

// The recipe is three embedded files; both build paths read them, and their
// hash names the image so a changed recipe means a new tag.
//
//go:embed recipe/packages.txt recipe/Dockerfile recipe/setup.sh
var recipeFS embed.FS

// recipeFiles are hashed and shipped in this order.
var recipeFiles = []string{"packages.txt", "Dockerfile", "setup.sh"}

const (
	imageRepo   = "quarry-sandbox"
	recipeLabel = "io.quarry.recipe"
	// Debian testing: the first suite with pyarrow, DuckDB, xlrd, odf and
	// pyreadstat all packaged (docs/image.md says why it is worth it).
	debianSuite   = "forky"
	dockerfileTag = "debian:forky-slim" // base image of build path (a)
)

// recipe is the content of the recipe files, by name.
type recipe map[string][]byte

func loadRecipe() recipe {
	r := recipe{}
	for _, name := range recipeFiles {
		b, err := fs.ReadFile(recipeFS, "recipe/"+name)
		if err != nil {
			panic("sandbox: embedded recipe file missing: " + name) // a build defect, not a runtime condition
		}
		r[name] = b
	}
	return r
}

// hash is 12 hex characters of SHA-256 over the files, each prefixed by its
// name and length so moving text between files changes it too.
func (r recipe) hash() string {
	h := sha256.New()
	for _, name := range recipeFiles {
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(r[name]))
		h.Write(r[name])
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// packages lists packages.txt without comments and blank lines.
func (r recipe) packages() []string {
	var pkgs []string
	sc := bufio.NewScanner(strings.NewReader(string(r["packages.txt"])))
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		pkgs = append(pkgs, strings.Fields(line)...)
	}
	return pkgs
}

// imageChanges turns the Dockerfile's ENV, USER, WORKDIR and LABEL lines
// into import changes, so the debootstrap path configures the image exactly
// as the Dockerfile does, plus the recipe label.
func (r recipe) imageChanges() []string {
	var changes []string
	for _, line := range strings.Split(string(r["Dockerfile"]), "\n") {
		line = strings.TrimSpace(line)
		word, _, _ := strings.Cut(line, " ")
		switch strings.ToUpper(word) {
		case "ENV", "USER", "WORKDIR", "LABEL":
			changes = append(changes, line)
		}
	}
	return append(changes, "LABEL "+recipeLabel+"="+r.hash())
}

var currentRecipe = loadRecipe()

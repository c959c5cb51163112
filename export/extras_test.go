package export

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/session"
)

// A session whose sandbox had Debian packages added says so in every
// export: the report's session line, the notebook's setup cell and its
// metadata, with the command that adds them.
func TestExportsNameTheExtras(t *testing.T) {
	dir := writeRecord(t, 1, 1)
	line, _ := json.Marshal(session.Entry{Kind: session.EntryExtras, Extras: []session.RecordedExtra{{Name: "python3-xgboost", Version: "3.3.0-1+b1"}}})
	f, err := os.OpenFile(filepath.Join(dir, session.RecordName), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(append(line, '\n'))
	f.Close()
	rec := loadRecord(t, dir)
	var md bytes.Buffer
	if err := Render(&md, rec, Markdown); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "Debian packages added to the sandbox: python3-xgboost 3.3.0-1+b1 (`quarry sandbox add python3-xgboost`)") {
		t.Fatalf("the report:\n%s", md.String())
	}
	var nb bytes.Buffer
	if err := Render(&nb, rec, Notebook); err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Metadata struct {
			Quarry struct {
				Extras []session.RecordedExtra `json:"extras"`
			} `json:"quarry"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(nb.Bytes(), &parsed); err != nil {
		t.Fatal(err)
	}
	if x := parsed.Metadata.Quarry.Extras; len(x) != 1 || x[0].Name != "python3-xgboost" {
		t.Fatalf("notebook metadata extras %+v", x)
	}
	if !strings.Contains(nb.String(), "quarry sandbox add python3-xgboost") {
		t.Fatal("the notebook's setup cell does not name the command")
	}
}

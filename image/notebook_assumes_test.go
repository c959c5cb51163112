package image_test

import (
	"strings"
	"testing"
)

// What notebooks written on an analyst's machine assume holds in the image:
// the legacy time-zone names, pandas' Styler (jinja2), read_html (lxml),
// UTF-8 locales by name, and the report libraries.
func TestImageHasWhatNotebooksAssume(t *testing.T) {
	out, code := runInImage(t, "", "python3", "-c", `
import locale, pandas as pd
print(pd.Timestamp("2012-03-11 01:30", tz="US/Eastern").isoformat())
print(pd.Timestamp("2026-01-01", tz="Asia/Calcutta").utcoffset())
df = pd.DataFrame({"a": [1.5, 2.25]})
print("styler" if "<table" in df.style.format("{:.1f}").to_html() else "no styler")
print(len(pd.read_html(__import__("io").StringIO(df.to_html()))))
for name in ("en_US.UTF-8", "de_DE.UTF-8", "fr_FR.UTF-8"):
    locale.setlocale(locale.LC_ALL, name)
print(locale.localeconv()["decimal_point"])
import reportlab, openpyxl
print("reportlab", reportlab.Version)
`)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{"2012-03-11T01:30:00-05:00", "5:30:00", "styler", "\n1\n", "\n,\n", "reportlab "} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
}

package cli

import (
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/export"
)

func TestParseReport(t *testing.T) {
	for in, want := range map[string]string{"xlsx,pdf": "xlsx pdf", "html": "html", "pdf, xlsx ,pdf": "pdf xlsx", "XLSX,excel": "xlsx"} {
		fs, err := parseReport(in)
		var got []string
		for _, f := range fs {
			got = append(got, string(f))
		}
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("parseReport(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", ",", "md", "ipynb", "docx", "xlsx,csv"} {
		if _, err := parseReport(in); err == nil {
			t.Errorf("parseReport(%q) took it", in)
		}
	}
	if !isReportFormat(export.PDF) || isReportFormat(export.Markdown) {
		t.Error("isReportFormat")
	}
}

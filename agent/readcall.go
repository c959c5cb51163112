package agent

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/quarry-cli/quarry/kernel"
)

// readCall is the pandas call that loads a profiled file as the profile
// describes it, so the model's first read_csv is the right one. It names the
// path, separators and column names only: never a value from the file.
// Empty when the file could not be profiled or is not tabular.
func readCall(p kernel.Profile, path string) string {
	if p.Error != "" {
		return ""
	}
	args := []string{pyStr(path)}
	switch p.Kind {
	case "csv":
		if p.Delimiter != "" && p.Delimiter != "," {
			args = append(args, "sep="+pyStr(p.Delimiter))
		}
		if p.Decimal != "" && p.Decimal != "." {
			args = append(args, "decimal="+pyStr(p.Decimal))
		}
		if p.Thousands != "" {
			args = append(args, "thousands="+pyStr(p.Thousands))
		}
		if p.Encoding != "" && p.Encoding != "utf-8" {
			args = append(args, "encoding="+pyStr(p.Encoding))
		}
		if p.HeaderRow < 0 {
			args = append(args, "header=None")
		} else if p.HeaderRow > 0 {
			args = append(args, fmt.Sprintf("header=%d", p.HeaderRow))
		}
		var names, formats []string
		for _, c := range p.Columns {
			if c.DateFormat != "" {
				names = append(names, pyStr(c.Name))
				formats = append(formats, pyStr(c.Name)+": "+pyStr(c.DateFormat))
			}
		}
		if len(names) > 0 {
			args = append(args, "parse_dates=["+strings.Join(names, ", ")+"]",
				"date_format={"+strings.Join(formats, ", ")+"}")
		}
		return "pd.read_csv(" + strings.Join(args, ", ") + ")"
	case "excel":
		if len(p.Sheets) > 1 {
			return "pd.read_excel(" + args[0] + ", sheet_name=None)  # dict of DataFrames by sheet name; or sheet_name='<name>'"
		}
		return "pd.read_excel(" + args[0] + ")"
	case "json":
		if lower := strings.ToLower(path); strings.HasSuffix(lower, ".jsonl") || strings.HasSuffix(lower, ".ndjson") {
			return "pd.read_json(" + args[0] + ", lines=True)"
		}
		return "pd.read_json(" + args[0] + ")"
	case "parquet":
		return "pd.read_parquet(" + args[0] + ")"
	}
	return ""
}

// pyStr quotes s as a Python string literal. File and column names are
// untrusted: quotes, backslashes and control characters are escaped so the
// literal can neither break the call nor the prompt's lines.
func pyStr(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch {
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == unicode.ReplacementChar || !unicode.IsPrint(r) && r != ' ':
			if r <= 0xffff {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

package config

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// fromTOML type-checks a value decoded from the file and parses it. It
// returns the parsed value, or a problem in words.
func (s *Setting) fromTOML(raw any) (any, string) {
	switch s.kind {
	case kindString, kindEnum, kindDuration:
		str, ok := raw.(string)
		if !ok {
			return nil, fmt.Sprintf("%s must be a string in quotes, but it is %s", s.Key, tomlType(raw))
		}
		return s.fromText(str)
	case kindSize:
		switch v := raw.(type) {
		case string:
			return s.fromText(v)
		case int64:
			return s.inRange(v, float64(v), formatSize(v))
		}
		return nil, fmt.Sprintf("%s must be a size in quotes such as \"2g\", but it is %s", s.Key, tomlType(raw))
	case kindFloat:
		switch v := raw.(type) {
		case int64:
			return s.inRange(float64(v), float64(v), strconv.FormatInt(v, 10))
		case float64:
			return s.inRange(v, v, strconv.FormatFloat(v, 'g', -1, 64))
		}
		return nil, fmt.Sprintf("%s must be a number, but it is %s", s.Key, tomlType(raw))
	case kindInt:
		v, ok := raw.(int64)
		if !ok {
			return nil, fmt.Sprintf("%s must be a whole number, but it is %s", s.Key, tomlType(raw))
		}
		return s.inRange(v, float64(v), strconv.FormatInt(v, 10))
	case kindBool:
		v, ok := raw.(bool)
		if !ok {
			return nil, fmt.Sprintf("%s must be true or false (without quotes), but it is %s", s.Key, tomlType(raw))
		}
		return v, ""
	}
	return nil, "unknown kind"
}

// fromText parses a value given as text: in the environment, on the command
// line, or as a TOML string.
func (s *Setting) fromText(text string) (any, string) {
	t := strings.TrimSpace(text)
	switch s.kind {
	case kindString:
		if s.validate != nil {
			if p := s.validate(t); p != "" {
				return nil, p
			}
		}
		return t, ""
	case kindEnum:
		l := strings.ToLower(t)
		for _, c := range s.choices {
			if l == c {
				return c, ""
			}
		}
		return nil, fmt.Sprintf("%q is not one of %s", text, strings.Join(s.choices, ", "))
	case kindDuration:
		d, err := time.ParseDuration(t)
		if err != nil {
			return nil, fmt.Sprintf("%q is not a duration", text)
		}
		return s.inRange(d, float64(d), d.String())
	case kindSize:
		n, ok := parseSize(t)
		if !ok {
			return nil, fmt.Sprintf("%q is not a size", text)
		}
		return s.inRange(n, float64(n), formatSize(n))
	case kindFloat:
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Sprintf("%q is not a number", text)
		}
		return s.inRange(f, f, t)
	case kindInt:
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return nil, fmt.Sprintf("%q is not a whole number", text)
		}
		return s.inRange(n, float64(n), t)
	case kindBool:
		switch strings.ToLower(t) {
		case "1", "t", "true", "yes", "y", "on":
			return true, ""
		case "0", "f", "false", "no", "n", "off":
			return false, ""
		}
		return nil, fmt.Sprintf("%q is not true or false", text)
	}
	return nil, "unknown kind"
}

func (s *Setting) inRange(v any, f float64, shown string) (any, string) {
	if s.min == 0 && s.max == 0 {
		return v, ""
	}
	if f < s.min || f > s.max {
		lo, hi := s.bound(s.min), s.bound(s.max)
		return nil, fmt.Sprintf("%s is out of range (%s to %s)", shown, lo, hi)
	}
	return v, ""
}

func (s *Setting) bound(f float64) string {
	switch s.kind {
	case kindDuration:
		return time.Duration(f).String()
	case kindSize:
		return formatSize(int64(f))
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// fix says how to write a good value where the bad one was found.
func (s *Setting) fix(where layer) string {
	example := s.Example
	var how string
	switch s.kind {
	case kindEnum:
		how = "use one of " + strings.Join(s.choices, ", ")
	case kindDuration:
		how = `use a Go duration such as "90s", "2m" or "1h"`
	case kindSize:
		how = `use a size with k, m or g, such as "2g" or "512m"`
	case kindFloat, kindInt:
		how = fmt.Sprintf("use a number from %s to %s", s.bound(s.min), s.bound(s.max))
	case kindBool:
		how = "use true or false"
	}
	var eg string
	switch where {
	case layerEnv:
		eg = s.Env[0] + "=" + strings.Trim(example, `"`)
	case layerFlag:
		eg = "--" + s.Flag + " " + strings.Trim(example, `"`)
	default:
		eg = s.Key + " = " + example
	}
	if how == "" {
		return "for example: " + eg
	}
	return how + ", for example: " + eg
}

func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a decimal number"
	case bool:
		return "a boolean"
	case map[string]any:
		return "a table"
	case []any, []map[string]any:
		return "an array"
	case time.Time:
		return "a date"
	}
	return fmt.Sprintf("a %T", v)
}

// parseSize reads "2g", "512m", "1.5GiB", "1024" (bytes), in binary units as
// Docker does.
func parseSize(s string) (int64, bool) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "ib"), "b")
	mult := float64(1)
	if t != "" {
		switch t[len(t)-1] {
		case 'k':
			mult = 1 << 10
		case 'm':
			mult = 1 << 20
		case 'g':
			mult = 1 << 30
		case 't':
			mult = 1 << 40
		}
		if mult != 1 {
			t = strings.TrimSpace(t[:len(t)-1])
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) || f*mult > math.MaxInt64/2 {
		return 0, false
	}
	return int64(f * mult), true
}

func formatSize(n int64) string {
	units := []struct {
		suffix string
		size   int64
	}{{"t", 1 << 40}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}}
	for _, u := range units {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	for _, u := range units {
		if n >= u.size {
			return strconv.FormatFloat(float64(n)/float64(u.size), 'f', 1, 64) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	return p
}

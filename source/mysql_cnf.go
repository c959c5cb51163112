package source

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// myClientOptions are what the mysql client takes from an option file
// when the command line does not give them: the [client] section and the
// client's own, later lines winning, as the client reads ~/.my.cnf.
type myClientOptions struct {
	user, password, host, port, socket string
	hasPassword                        bool // password= is there, even empty
	path                               string
}

// myGroups are the sections of an option file the mysql and mariadb
// clients read.
var myGroups = map[string]bool{"client": true, "client-mariadb": true, "mysql": true, "mariadb-client": true}

// readMyCnf reads ~/.my.cnf ($HOME's). A missing file is no options; a
// world-writable one is ignored, as the client ignores it.
func readMyCnf() myClientOptions {
	home, err := os.UserHomeDir()
	if err != nil {
		return myClientOptions{}
	}
	path := filepath.Join(home, ".my.cnf")
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o002 != 0 {
		return myClientOptions{}
	}
	f, err := os.Open(path)
	if err != nil {
		return myClientOptions{}
	}
	defer f.Close()
	o := parseMyCnf(bufio.NewScanner(f))
	o.path = "~/.my.cnf"
	return o
}

func parseMyCnf(sc *bufio.Scanner) myClientOptions {
	var o myClientOptions
	in := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';' || line[0] == '!':
			continue
		case line[0] == '[':
			name, _, _ := strings.Cut(line[1:], "]")
			in = myGroups[strings.ToLower(strings.TrimSpace(name))]
			continue
		case !in:
			continue
		}
		key, val, _ := strings.Cut(line, "=")
		key = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(key)), "_", "-")
		val = myValue(strings.TrimSpace(val))
		switch key {
		case "user":
			o.user = val
		case "password":
			o.password, o.hasPassword = val, true
		case "host":
			o.host = val
		case "port":
			o.port = val
		case "socket":
			o.socket = val
		}
	}
	return o
}

// myValue reads an option's value: quoted ('…' or "…", kept whole) or bare
// (a # after a space starts a comment), with the escapes \b \t \n \r \\ \s.
func myValue(v string) string {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') {
		for i := 1; i < len(v); i++ {
			switch v[i] {
			case '\\':
				i++
			case v[0]:
				return myUnescape(v[1:i])
			}
		}
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	if i := strings.Index(v, "\t#"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return myUnescape(v)
}

func myUnescape(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' || i+1 == len(v) {
			b.WriteByte(v[i])
			continue
		}
		i++
		switch v[i] {
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 's':
			b.WriteByte(' ')
		default:
			b.WriteByte(v[i])
		}
	}
	return b.String()
}

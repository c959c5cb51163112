package config

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/quarry-cli/quarry/source"
)

// Dask is the Dask cluster the kernel's client reaches: [dask] in the file
// (top level or a profile), --dask ADDR, and Dask's own variables as the
// fallback (DASK_SCHEDULER_ADDRESS and distributed's TLS settings). The
// address may hold a token: shown only as package source names it.
type Dask struct {
	Address   string `json:"-"`
	CAFile    string // distributed.comm.tls.ca-file
	CertFile  string // distributed.comm.tls.client.cert
	KeyFile   string // distributed.comm.tls.client.key
	MaxResult int64  // bytes one compute may bring back into the sandbox
	// Data are datasets the workers read, by name: [dask.data] NAME = "URL"
	// and --dask-data NAME=URL; profiled on the cluster for the model.
	Data map[string]string `json:"-"`
}

// Spec is the cluster as package source checks and dials it.
func (d Dask) Spec() source.DaskSpec {
	return source.DaskSpec{Address: d.Address, CAFile: d.CAFile, CertFile: d.CertFile, KeyFile: d.KeyFile, MaxResult: d.MaxResult}
}

// DefaultDaskMaxResult is the limit on one compute's result when none is set.
const DefaultDaskMaxResult = 256 << 20

// Dask's own environment variables, read when quarry's settings name none.
const (
	DaskAddressEnv = "DASK_SCHEDULER_ADDRESS"
	DaskCAEnv      = "DASK_DISTRIBUTED__COMM__TLS__CA_FILE"
	DaskCertEnv    = "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT"
	DaskKeyEnv     = "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY"
)

// daskKeys are the keys of [dask], each with what it sets.
var daskKeys = map[string]func(d *daskLayer, v string){
	"address":         func(d *daskLayer, v string) { d.Address = v },
	"tls_ca_file":     func(d *daskLayer, v string) { d.CAFile = expandHome(v) },
	"tls_client_cert": func(d *daskLayer, v string) { d.CertFile = expandHome(v) },
	"tls_client_key":  func(d *daskLayer, v string) { d.KeyFile = expandHome(v) },
}

type daskLayer struct {
	Dask
	set  bool
	line int
}

// daskTable reads [dask]: address, the TLS files and max_result.
func (c *checker) daskTable(v any, key string) daskLayer {
	l := daskLayer{line: c.line(key)}
	m, ok := v.(map[string]any)
	if !ok {
		c.add(key, fmt.Sprintf("dask must be a table, but it is %s", tomlType(v)), `write [dask] then address = "tcp://scheduler:8786"`)
		return l
	}
	for k, val := range m {
		kkey := key + "\x1f" + k
		if k == "data" {
			l.Data = c.daskData(val, kkey)
			l.set = l.set || len(l.Data) > 0
			continue
		}
		if k == "max_result" {
			n, ok := sizeOf(val)
			if !ok || n < 1<<20 {
				c.add(kkey, "max_result must be a size of at least 1m", `write max_result = "256m"`)
				continue
			}
			l.MaxResult, l.set = n, true
			continue
		}
		setter, known := daskKeys[k]
		if !known {
			c.add(kkey, fmt.Sprintf("unknown key %q in [dask]", k), "[dask] has address, tls_ca_file, tls_client_cert, tls_client_key, max_result and [dask.data]")
			continue
		}
		s, ok := val.(string)
		if !ok || strings.TrimSpace(s) == "" {
			c.add(kkey, fmt.Sprintf("dask %s must be a non-empty string", k), fmt.Sprintf(`write %s = "…"`, k))
			continue
		}
		setter(&l, strings.TrimSpace(s))
		l.set = true
	}
	return l
}

func sizeOf(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case string:
		return parseSize(x)
	}
	return 0, false
}

// applyDask lays a file's [dask] over what is set: a key given replaces.
func applyDask(c *Config, l daskLayer, where string) {
	if !l.set {
		return
	}
	if l.Address != "" {
		c.Dask.Address = l.Address
		c.sources["dask"] = fmt.Sprintf("%s:%d", where, l.line)
	}
	for _, p := range []struct {
		dst *string
		v   string
	}{{&c.Dask.CAFile, l.CAFile}, {&c.Dask.CertFile, l.CertFile}, {&c.Dask.KeyFile, l.KeyFile}} {
		if p.v != "" {
			*p.dst = p.v
		}
	}
	if l.MaxResult > 0 {
		c.Dask.MaxResult = l.MaxResult
	}
	for n, u := range l.Data {
		if c.Dask.Data == nil {
			c.Dask.Data = map[string]string{}
		}
		c.Dask.Data[n] = u
	}
}

// daskFallback fills what quarry's own settings left empty from Dask's
// variables, then the flags (--dask, --dask-data) go over both.
func daskFallback(c *Config, o Overrides, getenv func(string) string) error {
	if c.Dask.Address == "" {
		if a := strings.TrimSpace(getenv(DaskAddressEnv)); a != "" {
			c.Dask.Address = a
			c.sources["dask"] = "env " + DaskAddressEnv
		}
	}
	for _, p := range []struct {
		dst *string
		env string
	}{{&c.Dask.CAFile, DaskCAEnv}, {&c.Dask.CertFile, DaskCertEnv}, {&c.Dask.KeyFile, DaskKeyEnv}} {
		if *p.dst == "" {
			*p.dst = expandHome(strings.TrimSpace(getenv(p.env)))
		}
	}
	if a := strings.TrimSpace(o.Dask); a != "" {
		c.Dask.Address = a
		c.sources["dask"] = "flag --dask"
	}
	for _, v := range o.DaskData {
		n, u, ok := strings.Cut(v, "=")
		problem := DaskDataProblem(strings.TrimSpace(n), u)
		if !ok {
			problem = fmt.Sprintf("%q names no path or URL", v)
		}
		if problem != "" {
			return &Error{Where: "flag --dask-data", Key: "dask", Problem: problem, Fix: "write --dask-data NAME=PATH, a path or URL the workers read: --dask-data gl=/cluster/gl"}
		}
		if c.Dask.Data == nil {
			c.Dask.Data = map[string]string{}
		}
		c.Dask.Data[strings.TrimSpace(n)] = strings.TrimSpace(u)
	}
	if c.Dask.MaxResult == 0 {
		c.Dask.MaxResult = DefaultDaskMaxResult
	}
	return nil
}

// daskData reads [dask.data]: NAME = "URL", a dataset the workers read.
func (c *checker) daskData(v any, key string) map[string]string {
	m, ok := v.(map[string]any)
	if !ok {
		c.add(key, fmt.Sprintf("dask.data must be a table, but it is %s", tomlType(v)), `write [dask.data] then gl = "/cluster/gl"`)
		return nil
	}
	out := map[string]string{}
	for name, val := range m {
		u, ok := val.(string)
		if problem := DaskDataProblem(name, u); !ok || problem != "" {
			if problem == "" {
				problem = "the dataset's path or URL must be a string"
			}
			c.add(key+"\x1f"+name, problem, `write gl = "/cluster/gl" (a path or URL the workers read)`)
			continue
		}
		out[name] = strings.TrimSpace(u)
	}
	return out
}

// DaskDataProblem says what is wrong with a dataset's name or path; ""
// when nothing is. A name is what the prompt calls it: letters, digits, _
// and -, starting with a letter or _.
func DaskDataProblem(name, url string) string {
	if !daskDataName.MatchString(name) {
		return fmt.Sprintf("dataset name %q: use letters, digits, _ and -, starting with a letter or _ (at most 63)", name)
	}
	if strings.TrimSpace(url) == "" {
		return fmt.Sprintf("dataset %q has no path or URL", name)
	}
	return ""
}

var daskDataName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,62}$`)

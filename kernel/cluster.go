package kernel

// Cluster is what the kernel found on the Dask cluster it connected to:
// the workers and the versions on both sides. Everything in it came from
// the cluster or the sandbox: untrusted, shown only sanitized.
type Cluster struct {
	Name     string          `json:"name"` // the cluster as the host names it, without credentials
	Workers  int             `json:"workers"`
	Threads  int             `json:"threads"`
	Memory   int64           `json:"memory"` // bytes, summed over the workers' limits
	Limit    int64           `json:"limit"`  // bytes one compute may bring back to the sandbox
	Versions ClusterVersions `json:"versions"`
	Mismatch string          `json:"mismatch"` // the versions that differ, in words; empty when they match
	Warning  string          `json:"warning"`
	Error    string          `json:"error"` // why the kernel could not connect; the rest is then empty
}

// ClusterVersions are the packages' versions on each side, by package name.
type ClusterVersions struct {
	Sandbox   map[string]string   `json:"sandbox"`
	Scheduler map[string]string   `json:"scheduler"`
	Workers   []map[string]string `json:"workers"` // one entry per distinct set of versions
}

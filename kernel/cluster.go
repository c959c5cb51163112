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

// ClusterData is a dataset the cluster's workers read (--dask-data), as a
// worker profiled it without moving the rows.
type ClusterData struct {
	Name        string      `json:"name"`
	URL         string      `json:"url"`
	Format      string      `json:"format"` // parquet or csv
	Partitions  int         `json:"partitions"`
	Rows        int64       `json:"rows"`    // -1 when the metadata does not say
	Columns     [][2]string `json:"columns"` // name and dtype, the first 200
	ColumnCount int         `json:"column_count"`
	Head        [][]string  `json:"head"` // a few rows of the first partition; none when only the schema is shared
	Error       string      `json:"error"`
}

// ClusterVersions are the packages' versions on each side, by package name.
type ClusterVersions struct {
	Sandbox   map[string]string   `json:"sandbox"`
	Scheduler map[string]string   `json:"scheduler"`
	Workers   []map[string]string `json:"workers"` // one entry per distinct set of versions
}

package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/source"
)

// addConfigFlags declares the flags that feed config.Overrides, for the
// chat, the headless mode and the sub-commands that load the configuration
// (config, doctor), so their output shows what a chat with the same flags
// would use.
func addConfigFlags(fs *pflag.FlagSet, o *config.Overrides) {
	fs.StringVar(&o.ConfigPath, "config", "", "config file (default $XDG_CONFIG_HOME/quarry/config.toml)")
	fs.StringVar(&o.Profile, "profile", "", "provider profile from the config file")
	fs.StringVar(&o.Model, "model", "", "model name (env QUARRY_MODEL)")
	fs.StringVar(&o.BaseURL, "base-url", "", "base URL of an OpenAI-compatible API (env OPENAI_BASE_URL)")
	fs.StringVar(&o.ToolMode, "tool-mode", "", "auto, native or markdown")
	fs.StringVar(&o.OutputDir, "output-dir", "", "folder for figures and files (default ./quarry-output/<session>)")
	fs.StringVar(&o.Images, "images", "", "figures: auto, kitty, iterm, sixel, blocks or off")
	timeoutFlag(fs, &o.Timeout)
	fs.IntVar(&o.MaxSteps, "max-steps", 0, "most cells per answer (default 20)")
	fs.BoolVar(&o.Confirm, "confirm", false, "show each cell and wait for y/n/e before it runs")
	fs.StringVar(&o.Share, "share", "", "what the model sees of files: values or schema (default values)")
	fs.StringVar(&o.Verify, "verify", "", "check the answer's numbers against the cells' outputs: mark, ask, strict or off (default mark)")
	fs.StringArrayVar(&o.DB, "db", nil, "a database for sql(query, db=NAME): "+source.Examples()+", or a URL (its database name is NAME); repeatable")
	daskFlag(fs, &o.Dask)
	daskDataFlag(fs, &o.DaskData)
}

// daskDataFlag declares --dask-data, a dataset the cluster's workers read.
func daskDataFlag(fs *pflag.FlagSet, sets *[]string) {
	fs.StringArrayVar(sets, "dask-data", nil, "a dataset the Dask cluster's workers read, profiled there for the model: NAME=PATH or NAME=URL (a Parquet or CSV folder, file or glob); repeatable")
}

// daskFlag declares --dask, the Dask scheduler the cells' client reaches.
func daskFlag(fs *pflag.FlagSet, addr *string) {
	fs.StringVar(addr, "dask", "", "a Dask scheduler for the cells' client and dd: tcp://HOST:PORT or tls://HOST:PORT (env DASK_SCHEDULER_ADDRESS; [dask] in the config)")
}

// noTimeout is what --timeout -1 (nbclient's "no limit") means: the
// longest limit the setting takes.
const noTimeout = 24 * time.Hour

// timeoutFlag declares --timeout, the time limit of each cell: a Go
// duration (90s, 10m), or seconds as jupyter nbconvert and nbclient take
// them (600; -1 for none).
func timeoutFlag(fs *pflag.FlagSet, d *time.Duration) {
	fs.Var((*cellTimeout)(d), "timeout", "time limit of each cell: 90s, 10m, or seconds as nbclient takes them (600; -1 for none) (default 2m)")
}

type cellTimeout time.Duration

func (c *cellTimeout) String() string {
	if *c == 0 {
		return "" // the setting's default, said in the help
	}
	return time.Duration(*c).String()
}

func (c *cellTimeout) Type() string { return "duration" }

func (c *cellTimeout) Set(s string) error {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		switch {
		case n == -1:
			*c = cellTimeout(noTimeout)
		case n > 0:
			*c = cellTimeout(time.Duration(n * float64(time.Second)))
		default:
			return fmt.Errorf("%s: give seconds above 0 (600), -1 for no limit, or a duration (90s, 10m)", s)
		}
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return fmt.Errorf("%s: give a duration (90s, 10m), seconds (600) or -1 for no limit", s)
	}
	*c = cellTimeout(d)
	return nil
}

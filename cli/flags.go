package cli

import (
	"github.com/spf13/pflag"

	"github.com/quarry-cli/quarry/config"
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
	fs.DurationVar(&o.Timeout, "timeout", 0, "time limit of one cell, e.g. 3s or 2m (default 2m)")
	fs.Lookup("timeout").DefValue = "" // 0 means the setting's default, said above
	fs.IntVar(&o.MaxSteps, "max-steps", 0, "most cells per answer (default 20)")
	fs.BoolVar(&o.Confirm, "confirm", false, "show each cell and wait for y/n/e before it runs")
	fs.StringVar(&o.Share, "share", "", "what the model sees of files: values or schema (default values)")
	fs.StringVar(&o.Verify, "verify", "", "check the answer's numbers against the cells' outputs: mark, ask, strict or off (default mark)")
	fs.StringArrayVar(&o.DB, "db", nil, "a database for sql(query, db=NAME): NAME=postgres://user@host/db, or a URL (its database name is NAME); repeatable")
}

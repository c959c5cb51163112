package cli

import (
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/sandbox"
)

// envVar is an environment variable quarry reads that is no setting's (the
// settings' own are in config.Settings): `quarry config --help` lists
// them, and docs/configuration.md's table is checked against both.
type envVar struct {
	name, help string
}

var otherEnv = []envVar{
	{config.ConfigEnv, "the config file (as --config)"},
	{config.ProfileEnv, "the profile (as --profile)"},
	{config.OllamaHostEnv, "where to look for Ollama (default http://127.0.0.1:11434)"},
	{engine.SSHCommandEnv, "the ssh command and options for an engine at ssh://"},
	{image.MirrorEnv, "the Debian mirror the offline image build and quarry sandbox add use"},
	{image.SuiteEnv, "quarry sandbox add: the suite, when not the recipe's"},
	{image.KeyringEnv, "quarry sandbox add: the keyring the archive's Release file is signed with"},
	{image.AllowExpiredEnv, "1: quarry sandbox add accepts an expired Release file (a snapshot mirror)"},
	{image.RepoEnv, "the image repository of the images with extras (default quarry-sandbox)"},
	{config.DaskAddressEnv, "the Dask scheduler when neither --dask nor [dask] names one"},
	{config.DaskCAEnv, "the Dask scheduler's CA file, when [dask] names none (distributed's setting)"},
	{config.DaskCertEnv, "the client certificate for a tls:// Dask scheduler, when [dask] names none"},
	{config.DaskKeyEnv, "the client certificate's key for a tls:// Dask scheduler, when [dask] names none"},
	{sandbox.ImportsEnv, "eager: the kernel imports pandas and the rest before it says ready; wait: every cell waits for all of them"},
}

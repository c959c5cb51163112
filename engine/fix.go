package engine

import (
	"context"
	"errors"
	"regexp"
)

// A cause is a kind of engine refusal known by its words, and what to do.
type cause struct {
	words *regexp.Regexp
	fix   string
}

// causes are tried in order; the first whose words appear in the engine's
// message gives the fix.
var causes = []cause{
	{layoutRefusal, "the engine's OCI runtime refuses this host's cgroup layout: install runc (sudo apt-get install runc); " +
		"for Podman, which runs every container under one runtime, put runtime = \"runc\" under [engine] in " +
		"/etc/containers/containers.conf.d/50-runc.conf (rootless: ~/.config/containers/containers.conf) and restart its service; " +
		"for Docker, make runc its default-runtime in /etc/docker/daemon.json"},
	{regexp.MustCompile(`(?i)no space left on device|disk quota exceeded`),
		"free space where the engine keeps its data (docker system df or podman system df shows it; " +
			"docker system prune removes what nothing uses)"},
	{regexp.MustCompile(`(?i)no such image|image not known|manifest unknown|pull access denied|repository does not exist`),
		"build the sandbox image: quarry sandbox build (or load an archive: quarry sandbox load FILE)"},
	{regexp.MustCompile(`(?i)(cannot find|no) (uid|gid|subuid|subgid)|newuidmap|newgidmap|/etc/sub[ug]id`),
		"give your user subordinate ids (sudo usermod --add-subuids 100000-165535 --add-subgids 100000-165535 $USER), " +
			"then run podman system migrate"},
	{regexp.MustCompile(`(?i)permission denied.*\.sock|\.sock.*permission denied|connect: permission denied`),
		"let your user reach the engine: sudo usermod -aG docker $USER and log in again, or use rootless Podman " +
			"(DOCKER_HOST=unix:///run/user/$UID/podman/podman.sock)"},
	{regexp.MustCompile(`(?i)(oci )?runtime[^:]*(not found|not installed)|executable file not found|unknown runtime`),
		"install the OCI runtime the engine names (runc or crun), or choose an installed one in the engine's configuration"},
	{regexp.MustCompile(`(?i)exec format error`),
		"the image is for another processor: build it on this machine with quarry sandbox build"},
	{regexp.MustCompile(`(?i)out of memory|cannot allocate memory|oom`),
		"give the engine more memory, or lower memory in quarry's configuration (quarry config)"},
	{regexp.MustCompile(`(?i)is already in use by container|conflict\. the container name`),
		"a sandbox of an earlier run is still there: quarry removes it at the next start; or remove it by hand (docker rm -f NAME)"},
}

// Fix says what to do about err from the engine, chosen by what the engine
// said; a refusal of no known kind gets the general advice.
func Fix(err error) string {
	if fix, ok := KnownFix(err); ok {
		return fix
	}
	return "the engine's own words are above; docker info or podman info, and the engine's log, say more (see docs/install.md)"
}

// KnownFix is Fix for the causes it knows; false for any other error.
func KnownFix(err error) (string, bool) {
	if err == nil {
		return "", false
	}
	if errors.Is(err, ErrUnreachable) {
		return "start the engine (sudo systemctl start docker, or Podman's service), or point DOCKER_HOST at a running one", true
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "the engine did not answer in time: check that it is healthy (docker info or podman info), then try again", true
	}
	msg := Message(err)
	for _, c := range causes {
		if c.words.MatchString(msg) {
			return c.fix, true
		}
	}
	return "", false
}

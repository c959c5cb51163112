# Sourced by the scripts beside it: how a step runs as root, and how Debian
# packages are installed, the same in each.

# as_root sets ROOT to what runs a command as root: nothing for root; sudo
# where it may be used without a password, or where a terminal can ask for
# one. It fails when neither holds, and the caller says what to run.
as_root() {
	ROOT=()
	[[ $(id -u) -eq 0 ]] && return 0
	command -v sudo >/dev/null 2>&1 || return 1
	if sudo -n true 2>/dev/null; then
		ROOT=(sudo -n)
	elif [[ -t 0 ]] && sudo -v; then
		ROOT=(sudo)
	else
		return 1
	fi
}

# apt_install installs Debian packages, without their Recommends, as ROOT;
# apt says nothing unless something fails.
apt_install() {
	"${ROOT[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	"${ROOT[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

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

# apt_install_no_services is apt_install with no service started meanwhile
# (a policy-rc.d that refuses every start, as in a container, unless one is
# there already), and under systemd the units given before "--" disabled
# again, so none starts at the next boot either: the tests start their own
# servers (sshd, mariadbd) and want no system one.
#   apt_install_no_services mariadb.service -- mariadb-server
apt_install_no_services() {
	local units=() policy=/usr/sbin/policy-rc.d ours="" rc=0
	while (($# > 0)) && [[ $1 != -- ]]; do units+=("$1"); shift; done
	[[ ${1:-} == -- ]] && shift
	if [[ ! -e $policy ]]; then
		"${ROOT[@]}" sh -c "printf '#!/bin/sh\n# scripts/lib.sh: no service starts during the install\nexit 101\n' >$policy && chmod 0755 $policy"
		ours=1
	fi
	apt_install "$@" || rc=$?
	[[ -n $ours ]] && "${ROOT[@]}" rm -f "$policy"
	if ((${#units[@]} > 0)) && [[ $(ps -o comm= -p 1 2>/dev/null) == systemd ]] && command -v systemctl >/dev/null 2>&1; then
		"${ROOT[@]}" systemctl disable --now "${units[@]}" >/dev/null 2>&1 || true
	fi
	return $rc
}

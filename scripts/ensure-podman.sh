#!/usr/bin/env bash
# Make a rootful Podman engine reachable on its Docker-compatible socket
# (/run/podman/podman.sock, or the unix:// path given as $1): nothing to do
# when it answers; install Debian's podman and what it needs when root (or
# passwordless sudo) and it is missing; start `podman system service` when
# it is installed but not serving. Prints the DOCKER_HOST to use on stdout.
# Idempotent and quiet when the engine is already up.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

log() { echo "ensure-podman: $*" >&2; }

host="${1:-unix:///run/podman/podman.sock}"
[[ $host == unix://* ]] || { log "want a unix:// socket, got $host"; exit 2; }
sock="${host#unix://}"

engine_up() {
	[[ -S $sock ]] && curl -fsS --max-time 5 --unix-socket "$sock" http://d/_ping >/dev/null 2>&1
}

if engine_up; then
	echo "$host"
	exit 0
fi

if ! as_root; then
	log "the rootful Podman service is not running at $sock, and starting it needs root. Run:"
	log "  sudo scripts/ensure-podman.sh      # or use rootless Podman: scripts/podman-rootless.sh"
	exit 1
fi

# Debian 12 ships podman 4.3; uidmap, slirp4netns and fuse-overlayfs are what
# rootless Podman needs too, catatonit is its --init, crun its runtime.
pkgs=()
command -v podman >/dev/null 2>&1 || pkgs+=(podman)
command -v newuidmap >/dev/null 2>&1 || pkgs+=(uidmap)
command -v slirp4netns >/dev/null 2>&1 || pkgs+=(slirp4netns)
command -v fuse-overlayfs >/dev/null 2>&1 || pkgs+=(fuse-overlayfs)
[[ -x /usr/bin/catatonit || -x /usr/libexec/podman/catatonit ]] || pkgs+=(catatonit)
command -v crun >/dev/null 2>&1 || pkgs+=(crun)
command -v curl >/dev/null 2>&1 || pkgs+=(curl)
# runc: what podman-runtime.sh turns to when crun refuses the host.
command -v runc >/dev/null 2>&1 || pkgs+=(runc)
if ((${#pkgs[@]} > 0)); then
	command -v apt-get >/dev/null 2>&1 || { log "missing ${pkgs[*]}, and this is not Debian/Ubuntu: install them with your package manager"; exit 1; }
	log "installing ${pkgs[*]} (Debian packages)"
	apt_install "${pkgs[@]}"
fi

# Whether Podman's runtime can run a container here is decided by trying
# one, before the service reads its configuration.
"${ROOT[@]}" "$(dirname "$0")/podman-runtime.sh"

log "starting podman system service on $sock"
if [[ $sock == /run/podman/podman.sock && $(ps -o comm= -p 1 2>/dev/null) == systemd ]] && command -v systemctl >/dev/null 2>&1; then
	"${ROOT[@]}" systemctl start podman.socket
else
	# No systemd (containers, CI): run the service in the background, from
	# its socket's folder (conmon drops an "oom" file in its working folder).
	"${ROOT[@]}" mkdir -p "$(dirname "$sock")"
	"${ROOT[@]}" sh -c "cd '$(dirname "$sock")' && nohup podman system service --time=0 'unix://$sock' >/var/log/quarry-podman.log 2>&1 &"
fi

for _ in $(seq 1 60); do
	if engine_up; then
		log "engine is up"
		echo "$host"
		exit 0
	fi
	sleep 1
done
log "podman system service did not answer within 60s; see /var/log/quarry-podman.log"
exit 1

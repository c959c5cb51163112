#!/usr/bin/env bash
# Run as root: give a non-root user (default quarry-ci; created when
# missing) a rootless Podman engine on its own socket, the most isolated
# local set-up: no daemon runs as root and the container's root is the
# user's subordinate uid. Adds /etc/subuid and /etc/subgid ranges, makes
# the user's XDG_RUNTIME_DIR and starts `podman system service` as the user.
# Prints the DOCKER_HOST to use on stdout. Idempotent.
set -euo pipefail

log() { echo "podman-rootless: $*" >&2; }

user="${1:-quarry-ci}"
[[ $(id -u) -eq 0 ]] || { log "run as root (it adds a user and subordinate ids): sudo $0 $user"; exit 1; }
cd "$(dirname "$0")/.."
scripts/ensure-podman.sh >/dev/null # the packages; the rootful service too, harmless

if ! id "$user" >/dev/null 2>&1; then
	log "adding user $user"
	useradd --create-home --shell /bin/bash "$user"
fi
uid=$(id -u "$user")
home=$(getent passwd "$user" | cut -d: -f6)

# 65536 ids each, after any range already handed out.
for f in /etc/subuid /etc/subgid; do
	touch "$f"
	if ! grep -q "^$user:" "$f"; then
		start=$(awk -F: 'BEGIN{m=100000} {e=$2+$3; if (e>m) m=e} END{print m}' "$f")
		echo "$user:$start:65536" >>"$f"
		log "$f: $user:$start:65536"
	fi
done

run="/run/user/$uid"
mkdir -p "$run"
chown "$user:" "$run"
chmod 0700 "$run"
sock="$run/podman/podman.sock"
host="unix://$sock"
as_user() { runuser -u "$user" -- env -i HOME="$home" USER="$user" LOGNAME="$user" PATH=/usr/local/bin:/usr/bin:/bin XDG_RUNTIME_DIR="$run" "$@"; }

up() { [[ -S $sock ]] && as_user curl -fsS --max-time 5 --unix-socket "$sock" http://d/_ping >/dev/null 2>&1; }
if up; then
	echo "$host"
	exit 0
fi

# Without a storage.conf Podman 4.3 picks vfs for rootless storage, which
# copies the whole image for every container: ask for overlay (native on
# Linux 5.13+, else through fuse-overlayfs).
conf="$home/.config/containers/storage.conf"
if [[ ! -e $conf && ! -e /etc/containers/storage.conf ]]; then
	as_user mkdir -p "$(dirname "$conf")"
	printf '[storage]\ndriver = "overlay"\n' | as_user tee "$conf" >/dev/null
	if as_user podman info 2>&1 | grep -q 'database configuration mismatch'; then
		log "$user's storage was made with vfs: resetting it (podman system reset) to use overlay"
		as_user podman system reset --force >/dev/null 2>&1
	fi
fi
# A new subordinate range must be seen by the user's Podman storage.
as_user podman system migrate >/dev/null 2>&1 || true
log "starting rootless podman system service for $user on $sock"
as_user mkdir -p "$run/podman"
# From the socket's folder: conmon drops an "oom" file in its working folder.
pid=$(as_user sh -c "cd '$run/podman' && nohup podman system service --time=0 '$host' >'$home/quarry-podman.log' 2>&1 & echo \$!")
for _ in $(seq 1 60); do
	if up; then
		log "engine is up (rootless, user $user)"
		echo "$host"
		exit 0
	fi
	kill -0 "$pid" 2>/dev/null || { log "the service exited: $(tail -n 3 "$home/quarry-podman.log")"; exit 1; }
	sleep 1
done
log "the rootless service did not answer within 60s; see $home/quarry-podman.log"
exit 1

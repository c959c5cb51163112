#!/usr/bin/env bash
# Make sure rootful Podman's OCI runtime can run a container on this host,
# deciding by trying, not by reading files: a trivial container (a rootfs
# holding only /bin/true) is run; when the runtime refuses the host's cgroup
# layout (crun on a hybrid layout whose v2 hierarchy has controllers:
# "cgroups in hybrid mode not supported"), runc becomes Podman's runtime
# through a drop-in, and the trial runs again under it. Run as root, before
# Podman's service starts (it reads its configuration once).
#
# Settings a test can point elsewhere:
#   CGROUP_ROOT   where the cgroup hierarchy is mounted (/sys/fs/cgroup);
#                 read only to say which layout this is
#   DROPIN        the drop-in written on a refusal
#   PROBE         the command that runs the trivial container; it gets the
#                 runtime to use as $1 ("" for Podman's default)
set -euo pipefail

log() { echo "podman-runtime: $*" >&2; }

CGROUP_ROOT=${CGROUP_ROOT:-/sys/fs/cgroup}
DROPIN=${DROPIN:-/etc/containers/containers.conf.d/50-quarry-runc.conf}

# cgroup_layout names the layout under CGROUP_ROOT: v2 (unified), hybrid
# (v1 controllers and a v2 hierarchy at unified/, with or without
# controllers of its own) or v1. sysfs files report size 0, so they are
# read, never tested with -s.
cgroup_layout() {
	local root=$1 ctrl
	if [[ -e $root/cgroup.controllers ]]; then
		echo "v2 (controllers: $(tr -s ' \n' ' ' <"$root/cgroup.controllers" | sed 's/ $//'))"
	elif [[ -e $root/unified/cgroup.controllers ]]; then
		ctrl=$(tr -s ' \n' ' ' <"$root/unified/cgroup.controllers" | sed 's/^ //; s/ $//')
		if [[ -n $ctrl ]]; then
			echo "hybrid, v2 controllers: $ctrl"
		else
			echo "hybrid, no v2 controllers"
		fi
	else
		echo "v1"
	fi
}

# probe runs /bin/true in a container made from a rootfs of its own (no
# image, no registry), with the limits quarry's sandbox asks for.
probe() {
	local runtime=$1 root out rc=0
	root=$(mktemp -d /var/tmp/quarry-podman-probe.XXXXXX)
	mkdir -p "$root/bin"
	cp /bin/true "$root/bin/true"
	for lib in $(ldd /bin/true | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$lib")"
		cp "$lib" "$root$lib"
	done
	local args=()
	[[ -n $runtime ]] && args=(--runtime "$runtime")
	out=$(timeout 120 podman "${args[@]}" run --rm --network none --ulimit nofile=1024:1024 \
		--ulimit nproc=32768:32768 --rootfs "$root" /bin/true 2>&1) || rc=$?
	rm -rf "$root"
	printf '%s' "$out"
	return $rc
}
PROBE=${PROBE:-probe}

layout=$(cgroup_layout "$CGROUP_ROOT")
rc=0
out=$($PROBE "") || rc=$?
if ((rc == 0)); then
	log "Podman's runtime runs containers here (cgroup $layout)"
	exit 0
fi
if ! grep -Eqi 'cgroups? in hybrid mode not supported|cgroup.*not supported|requires cgroup ?v2' <<<"$out"; then
	log "a trial container failed on cgroup $layout: $out"
	exit 1
fi
log "Podman's runtime refuses this host's cgroup layout ($layout): ${out//$'\n'/ }"
rc=0
out=$($PROBE runc) || rc=$?
if ((rc != 0)); then
	log "runc fails too: ${out//$'\n'/ }"
	exit 1
fi
mkdir -p "$(dirname "$DROPIN")"
printf '# Written by quarry'"'"'s scripts/podman-runtime.sh: the default runtime refused\n# this host'"'"'s cgroup layout (%s); runc runs containers here.\n[engine]\nruntime = "runc"\n' "$layout" >"$DROPIN"
log "runc runs containers here: Podman uses it ($DROPIN)"

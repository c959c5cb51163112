#!/bin/sh
# Installs the sandbox's extras in a build container quarry created from the
# sandbox image: as root, with no network, from the .debs copied in beside
# this script over the engine's API (each already checked against the
# archive's signed index), in apt's order: "steps" holds "unpack FILE..." and
# "configure NAME..." lines. Then the recipe's rules (setup.sh) for what was
# added. A line "quarry-refused: WHAT" before exit 3 says what broke a rule.
set -eu
export DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 LC_ALL=C.UTF-8
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
dir=/tmp/quarry-extras
cd "$dir"

refuse() {
	echo "quarry-refused: $*"
	exit 3
}

# shellcheck disable=SC2086 # file and package names hold no blanks
while read -r op args; do
	case "$op" in
	unpack) dpkg --unpack --force-confdef --force-confold $args ;;
	configure) dpkg --configure $args ;;
	esac
done <steps
dpkg --configure --pending
problems=$(dpkg --audit 2>&1 || true)
[ -z "$problems" ] || refuse "dpkg left packages unconfigured: $problems"

# The recipe's rules: nothing setup.sh purges, no setuid or setgid file,
# no program that fetches or builds code (whatever a maintainer script did).
while read -r pkg; do
	if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed'; then
		refuse "package $pkg"
	fi
done <forbidden
find / -xdev -perm /6000 -type f >setuid 2>/dev/null || true
while read -r f; do
	refuse "setuid or setgid file $f ($(dpkg -S "$f" 2>/dev/null | cut -d: -f1))"
done <setuid
for p in pip pip3 gcc cc c++ g++ cpp clang make ld as tcc; do
	if command -v "$p" >/dev/null 2>&1; then
		refuse "program $(command -v "$p")"
	fi
done

# Slim as setup.sh does: docs (copyright kept), man pages, logs, caches.
rm -rf /usr/share/man/* /usr/share/info/* /usr/share/lintian/* /var/log/*.log \
	/var/log/apt/* /var/cache/debconf/*-old /var/lib/dpkg/*-old /root/.cache
find /usr/share/doc -mindepth 1 ! -name copyright ! -type d -delete 2>/dev/null || true
find /usr/share/doc -mindepth 1 -type d -empty -delete 2>/dev/null || true

# Byte-compiled once (the root is read-only in the sandbox): the Python
# files of what was added.
cut -f1 extras.tsv | while read -r pkg; do dpkg -L "$pkg" 2>/dev/null; done | grep '\.py$' >pyfiles || true
if [ -s pyfiles ]; then
	tr '\n' '\0' <pyfiles | xargs -0 python3 -m compileall -q >/dev/null || true
fi

# A new font: matplotlib's prebuilt font cache again.
if [ -n "$(find /usr/share/fonts -newer steps -type f 2>/dev/null | head -n 1)" ] && [ -d /etc/quarry/mpl ]; then
	MPLCONFIGDIR=/etc/quarry/mpl MPLBACKEND=Agg python3 -c \
		'import matplotlib.font_manager as fm; fm._load_fontmanager(try_read_cache=False)'
	chmod -R a+rX,go-w /etc/quarry/mpl
fi

# The manifests: every package (the prompt's list), and the extras.
dpkg-query -W -f='${Package}\t${Version}\n' | sort >/etc/quarry/packages.tsv
install -m 0644 extras.tsv /etc/quarry/extras.tsv
chmod 0644 /etc/quarry/packages.tsv
cd /
rm -rf "$dir" /tmp/* /var/tmp/*
echo "quarry-extras: installed"

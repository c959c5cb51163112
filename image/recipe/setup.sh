#!/bin/sh
# Shared last step of both build paths, run as root inside the new root file
# system (chroot or docker build). It must be idempotent and need no network.
set -eu
export DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# A non-root user the container runs as.
if ! getent group sandbox >/dev/null; then groupadd --gid 1000 sandbox; fi
if ! getent passwd sandbox >/dev/null; then
	useradd --uid 1000 --gid 1000 --home-dir /home/sandbox --create-home \
		--shell /bin/sh --comment "quarry sandbox" sandbox
fi
passwd -l sandbox >/dev/null 2>&1 || true

# /data holds the analyst's files (read-only for the user), /output what the
# code writes back.
install -d -o root -g root -m 0755 /data
install -d -o sandbox -g sandbox -m 0700 /output

# Nothing in the sandbox should build or fetch code.
for pkg in python3-pip python3-pip-whl python3-venv python3-setuptools-whl \
	gcc cpp g++ make binutils libc6-dev python3-dev; do
	if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed'; then
		dpkg --purge --force-depends "$pkg" >/dev/null
	fi
done
rm -f /usr/bin/pip /usr/bin/pip3 /usr/local/bin/pip /usr/local/bin/pip3

# UTF-8 locales by the names code asks for (locale.setlocale(LC_ALL,
# "de_DE.UTF-8")); C.UTF-8 stays the default.
if command -v localedef >/dev/null 2>&1; then
	for l in en_US en_GB de_DE de_CH fr_FR es_ES it_IT nl_NL pt_BR sv_SE da_DK pl_PL ja_JP zh_CN; do
		localedef -i "$l" -c -f UTF-8 -A /usr/share/locale/locale.alias "$l.UTF-8" 2>/dev/null || true
	done
fi

# matplotlib's font cache, built once here into a root-owned folder; the
# image points MPLCONFIGDIR at it.
install -d -o root -g root -m 0755 /etc/quarry
install -d -o root -g root -m 0755 /etc/quarry/mpl
MPLCONFIGDIR=/etc/quarry/mpl MPLBACKEND=Agg python3 -c \
	'import matplotlib.font_manager as fm; fm._load_fontmanager(try_read_cache=False)'
chmod -R a+rX,go-w /etc/quarry/mpl
# The sandbox user cannot write there, and matplotlib would
# then warn and rebuild the cache in a temporary folder on every start; give
# it a private copy in $TMPDIR instead, before any user code runs.
pyver=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
cat >/usr/lib/python3/dist-packages/quarry_mplconfig.py <<'PY'
"""quarry: point matplotlib at a writable copy of the prebuilt font cache."""
import os


def _use_copy(src="/etc/quarry/mpl"):
    if os.environ.get("MPLCONFIGDIR") != src or os.access(src, os.W_OK):
        return
    import shutil
    import tempfile
    try:
        dst = tempfile.mkdtemp(prefix="mpl-")
        for name in os.listdir(src):
            path = os.path.join(src, name)
            if os.path.isfile(path) and not os.path.islink(path):
                shutil.copyfile(path, os.path.join(dst, name))
    except OSError:
        return
    os.environ["MPLCONFIGDIR"] = dst


_use_copy()
PY
site=/etc/python$pyver/sitecustomize.py
[ -e "$site" ] || { mkdir -p "/etc/python$pyver"; : >"$site"; ln -sf "$site" "/usr/lib/python$pyver/sitecustomize.py"; }
grep -q quarry_mplconfig "$site" || printf '\n# quarry: writable matplotlib cache under a read-only root\nimport quarry_mplconfig  # noqa: F401\n' >>"$site"

# The exact package versions, read by `quarry sandbox status` and doctor.
dpkg-query -W -f='${Package}\t${Version}\n' | sort >/etc/quarry/packages.tsv
chmod 0644 /etc/quarry/packages.tsv

# Byte-compile once so imports are fast and nothing writes .pyc at run time.
python3 -m compileall -q -j 0 /usr/lib/python3/dist-packages "/usr/lib/python$pyver" >/dev/null

# Slim: package lists, caches, docs (copyright kept), man pages, logs.
apt-get clean >/dev/null 2>&1 || true
rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/cache/debconf/*-old \
	/usr/share/man/* /usr/share/info/* /usr/share/lintian/* /var/log/*.log \
	/var/log/apt/* /root/.cache /tmp/* /var/tmp/*
find /usr/share/doc -mindepth 1 ! -name copyright ! -type d -delete 2>/dev/null || true
find /usr/share/doc -mindepth 1 -type d -empty -delete 2>/dev/null || true

# No setuid or setgid programs: the last step, after anything could add one.
find / -xdev -perm /6000 -type f -exec chmod ug-s {} +

# Package installs in quarry's kernel (sent together with kernel.py, after
# ipython/shell.py): !pip install x, %pip, %conda, !apt-get install x and
# the like install nothing from inside a sandbox with no network; they
# raise PackageRequest, which the host turns into its packages path (Debian
# packages, quarry sandbox add). The contract with the host: an ImportError
# (code that catches ImportError still works) with packages (the names as
# typed, options dropped) and via (pip, conda or apt).
import re as ipy_re
import shlex as ipy_shlex


class PackageRequest(ImportError):
    """A line that installs packages (!pip install x, %pip, %conda, !apt-get
    install x). packages are the names as typed, options dropped; via is
    pip, conda or apt."""

    def __init__(self, via, packages, line):
        self.via, self.packages = via, list(packages)
        if self.packages:
            msg = (
                '%s: the sandbox has no network and %s does not run in it; quarry can add Debian packages '
                'to the sandbox: quarry sandbox add %s'
                % (line.strip()[:200], via, ' '.join(ipy_package_name(p) for p in self.packages))
            )
        else:
            msg = (
                '%s: the sandbox has no network and %s does not run in it; quarry can add Debian packages '
                'to the sandbox (quarry sandbox add PACKAGE), and quarry sandbox status lists what it has'
                % (line.strip()[:200], via)
            )
        super().__init__(msg)


def ipy_package_name(spec):
    """A requirement's name: xgboost for xgboost==3.0, pandas for pandas[excel]."""
    return ipy_re.split(r'[<>=!~\[;@ ]', spec, maxsplit=1)[0] or spec


# The commands that install, by their first word, and the options of each
# that take a value (dropped with it).
IPY_INSTALLERS = {
    'pip': (
        'pip',
        {
            '-r',
            '--requirement',
            '-c',
            '--constraint',
            '-i',
            '--index-url',
            '--extra-index-url',
            '-f',
            '--find-links',
            '-t',
            '--target',
            '--prefix',
            '--root',
            '--src',
            '-e',
            '--editable',
            '--upgrade-strategy',
            '--python-version',
            '--platform',
            '--only-binary',
            '--no-binary',
            '--trusted-host',
            '--proxy',
            '--timeout',
            '--retries',
            '--cache-dir',
            '--log',
        },
    ),
    'conda': ('conda', {'-c', '--channel', '-n', '--name', '-p', '--prefix', '--file', '--override-channels-from'}),
    'apt': ('apt', {'-o', '--option', '-t', '--target-release', '-c', '--config-file'}),
}
IPY_INSTALLER_NAMES = {
    'pip': 'pip',
    'pip3': 'pip',
    'conda': 'conda',
    'mamba': 'conda',
    'micromamba': 'conda',
    'apt': 'apt',
    'apt-get': 'apt',
    'aptitude': 'apt',
}


def ipy_install_words(words):
    """(via, words after the installer) when a simple command installs."""
    while words and (
        '=' in words[0] and not words[0].startswith('-') or words[0] in ('sudo', 'env', 'command', 'exec')
    ):
        words = words[1:]
    if not words:
        return None
    first = words[0].rsplit('/', 1)[-1]
    if first.startswith('python') and len(words) > 2 and words[1] == '-m' and words[2] in IPY_INSTALLER_NAMES:
        return IPY_INSTALLER_NAMES[words[2]], words[3:]
    if (
        first.startswith('python')
        and len(words) > 1
        and words[1].startswith('-m')
        and words[1][2:] in IPY_INSTALLER_NAMES
    ):
        return IPY_INSTALLER_NAMES[words[1][2:]], words[2:]
    if first in IPY_INSTALLER_NAMES:
        return IPY_INSTALLER_NAMES[first], words[1:]
    return None


def ipy_packages(via, args):
    """The packages an installer's arguments name: after install (or add),
    options and their values dropped; none for its other commands."""
    takes = IPY_INSTALLERS[via][1]
    words = list(args)
    while words and words[0].startswith('-'):
        words.pop(0)
    if not words or words[0] not in ('install', 'add', 'create'):
        return []
    out, skip = [], False
    for w in words[1:]:
        if skip:
            skip = False
        elif w.startswith('-'):
            skip = w in takes
        else:
            out.append(w)
    return out


def ipy_package_request(script, line=None):
    """Raises PackageRequest when a command of script (one line, or a shell
    script's lines) installs packages."""
    for part in ipy_re.split(r'\n|&&|\|\||;|\|', script):
        try:
            words = ipy_shlex.split(part, comments=True)
        except ValueError:
            words = part.split()
        found = ipy_install_words(words)
        if found:
            via, args = found
            raise PackageRequest(via, ipy_packages(via, args), line or part)

# A Dask cluster for the cells (sent with the kernel; nothing here is
# imported until the host connects a cluster). The sandbox has no network:
# the client connects to the relay on the sandbox's loopback (relay.py),
# which the host carries to the one scheduler configured, and it reaches
# the workers only through that scheduler (direct_to_workers=False).
import os
import socket
import stat
import threading
import types


class ClusterState:
    address = None  # the relay: tcp://127.0.0.1:PORT inside the sandbox
    port = 0
    name = ''  # the cluster as the host names it, without credentials
    limit = 0  # bytes one compute may bring back to the sandbox
    session = ''  # this session's namespace for published datasets
    relay_pid = 0  # spared when an interrupted cell's processes are killed
    client = None
    error = ''  # why the last connection failed
    info = None  # what the last connection found (workers, versions)
    before = frozenset()  # type: frozenset[object]  # the client's keys when the running cell started
    stale = []  # type: list[object]  # clients of an earlier kernel: a snapshot's copies, never closed from here
    progress = None  # send(done, total) for the running cell, or None


cluster = ClusterState()

# A cell that names one of these reconnects a lost cluster first.
CLUSTER_WORDS = ('client', 'dd.', 'dask', 'compute', 'persist')
CLUSTER_CONNECT_SECS = 10
CLUSTER_PROGRESS_SECS = 0.5


class ClusterError(RuntimeError):
    """The cluster failed in a way the cell's code did not cause."""


class ResultTooLarge(MemoryError):
    """A compute whose result would not fit what the sandbox takes back."""


def _cluster_bytes(n):
    for unit in ('bytes', 'KB', 'MB', 'GB', 'TB'):
        if abs(n) < 1000 or unit == 'TB':
            return ('%d %s' % (n, unit)) if unit == 'bytes' else ('%.1f %s' % (n, unit))
        n /= 1000.0


def cluster_request(msg):
    """The host's "dask" request: connect to the cluster through the relay."""
    cluster.port = int(msg.get('port') or 0)
    cluster.address = 'tcp://127.0.0.1:%d' % cluster.port
    cluster.name = str(msg.get('name') or '')[:200]
    cluster.limit = int(msg.get('limit') or 0)
    cluster.session = str(msg.get('session') or '')[:64]
    cluster.relay_pid = int(msg.get('relay_pid') or 0)
    ok = cluster_connect()
    reply = {'t': 'dask', 'id': msg.get('id'), 'info': cluster.info}
    if not ok:
        reply['text'] = cluster.error
    send(reply)


def cluster_connect():
    """Makes the client and puts client and dd in the user's namespace;
    False with cluster.error set when the scheduler cannot be reached."""
    try:
        import dask.dataframe  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as e:
        cluster.error = 'the sandbox image has no Dask (%s): rebuild it with quarry sandbox build' % e
        return False
    old = cluster.client
    if old is not None:
        try:
            old.close(timeout=2)
        except Exception:
            pass
    cluster.client = None
    cls = _cluster_client_class()
    made = {}

    def make():
        try:
            c = cls(
                cluster.address,
                timeout=CLUSTER_CONNECT_SECS,
                set_as_default=True,
                direct_to_workers=False,
                name='quarry-%s' % cluster.session,
            )
        except BaseException as e:
            made['error'] = e
            return
        if made.get('abandoned'):
            c.close(timeout=2)  # the kernel stopped waiting for it
            return
        made['client'] = c

    # distributed bounds its handshake, not every way a connection can
    # hang: the kernel waits a bounded time for the client, on a thread.
    th = threading.Thread(target=make, daemon=True)
    th.start()
    th.join(CLUSTER_CONNECT_SECS + 5)
    c = made.get('client')
    if c is None:
        made['abandoned'] = True
        failure = made.get('error')
        cluster.error = (
            'the Dask scheduler %s did not answer in %ds (%s): check that it runs and that quarry reaches it (quarry doctor)'
            % (
                cluster.name,
                CLUSTER_CONNECT_SECS,
                type(failure).__name__ if failure is not None else 'no handshake',
            )
        )
        cluster.info = None
        return False
    cluster.client = c
    cluster.error = ''
    cluster.info = cluster_describe(c)
    user_ns['client'] = c
    user_ns['dd'] = cluster_dd()
    return True


def cluster_describe(c):
    """Workers, threads, memory and the versions on both sides, with the
    mismatches in words."""
    info = {'name': cluster.name, 'workers': 0, 'threads': 0, 'memory': 0, 'limit': cluster.limit}
    try:
        si = c.scheduler_info()
        ws = si.get('workers') or {}
        info['workers'] = len(ws)
        info['threads'] = sum(int(w.get('nthreads') or 0) for w in ws.values())
        info['memory'] = sum(int(w.get('memory_limit') or 0) for w in ws.values())
    except Exception as e:
        info['warning'] = 'the scheduler did not describe its workers: %s' % type(e).__name__
    try:
        v = c.get_versions(check=False)
        info['versions'] = _cluster_versions(v)
        words = cluster_mismatch(info['versions'])
        if words:
            info['mismatch'] = words
    except Exception as e:
        info['warning'] = 'the cluster did not say its versions: %s' % type(e).__name__
    return info


CLUSTER_PACKAGES = ('python', 'dask', 'distributed', 'cloudpickle', 'msgpack', 'pandas', 'numpy', 'pyarrow')
CLUSTER_COMPARED = CLUSTER_PACKAGES[:6]  # what pickles across the wire depend on


def _cluster_versions(v):
    def pick(d):
        d = d or {}
        host, pk = d.get('host') or {}, d.get('packages') or {}
        out = {'python': str(host.get('python') or pk.get('python') or '')}
        for name in CLUSTER_PACKAGES[1:]:
            if pk.get(name):
                out[name] = str(pk[name])
        return out

    workers = v.get('workers') or {}
    return {
        'sandbox': pick(v.get('client')),
        'scheduler': pick(v.get('scheduler')),
        'workers': [dict(t) for t in sorted({tuple(sorted(pick(w).items())) for w in workers.values()})],
    }


def _cluster_same(a, b, name):
    if not a or not b:
        return True
    if name == 'python':  # pickles cross between equal minor versions
        return a.split('.')[:2] == b.split('.')[:2]
    return a.split('+')[0] == b.split('+')[0]


def cluster_mismatch(vs):
    """One sentence per package whose version differs between the sandbox
    and the cluster, naming both sides and what to do; empty when they match."""
    mine = vs.get('sandbox') or {}
    sides = [('the scheduler', vs.get('scheduler') or {})]
    sides += [('a worker', w) for w in vs.get('workers') or []]
    words = []
    for name in CLUSTER_COMPARED:
        for who, theirs in sides:
            if not _cluster_same(mine.get(name, ''), theirs.get(name, ''), name):
                words.append('%s runs %s %s, the sandbox %s %s' % (who, name, theirs.get(name), name, mine.get(name)))
                break
    if not words:
        return ''
    return (
        '; '.join(words)
        + ': results may fail to come back. Run the cluster on the versions of quarry\'s image '
        + '(quarry sandbox status names it; its scheduler and workers can run that image), '
        + 'or build the image from the Debian release the cluster uses.'
    )


def _cluster_client_class():
    import distributed
    from distributed.client import _wait, futures_of
    from distributed.comm import CommClosedError

    class QuarryClient(distributed.Client):
        """distributed.Client with quarry's walls: a size limit on what comes
        back, datasets named within the session, clear words when the
        scheduler goes away."""

        async def _gather(self, futures, errors='raise', direct=None, local_worker=None):
            fs = list(futures_of(futures))
            if fs:
                await _cluster_watch(self, fs, _wait)
                if cluster.limit > 0:
                    keys = [f.key for f in fs if f.status == 'finished']
                    if keys:
                        sizes = await self.scheduler.nbytes(keys=keys, summary=False)
                        total = sum(int(n or 0) for n in (sizes or {}).values())
                        if total > cluster.limit:
                            raise ResultTooLarge(
                                'the result is %s, over the %s quarry brings back from the cluster '
                                '(dask.max_result): aggregate on the cluster first (groupby, sum, head), '
                                'or write it where the workers write with to_parquet(PATH)'
                                % (_cluster_bytes(total), _cluster_bytes(cluster.limit))
                            )
                lost = [f for f in fs if f.status == 'cancelled' and self.status != 'running']
                if lost:
                    raise ClusterError(_cluster_lost_words())
            try:
                return await super()._gather(futures, errors=errors, direct=direct, local_worker=local_worker)
            except (OSError, CommClosedError) as e:
                raise ClusterError(_cluster_lost_words() + ' (%s)' % type(e).__name__)

        def _scoped(self, name):
            return '%s/%s' % (cluster.session, name)

        async def _publish_dataset(self, *args, name=None, override=False, **kwargs):
            named = {self._scoped(k): v for k, v in kwargs.items()}
            return await super()._publish_dataset(
                *args, name=self._scoped(name) if name else None, override=override, **named
            )

        async def _get_dataset(self, name, *args, **kwargs):
            return await super()._get_dataset(self._scoped(name), *args, **kwargs)

        def unpublish_dataset(self, name, **kwargs):
            return super().unpublish_dataset(self._scoped(name), **kwargs)

        def list_datasets(self, **kwargs):
            prefix = cluster.session + '/'
            names = super().list_datasets(**kwargs)
            return tuple(n[len(prefix) :] for n in names if isinstance(n, str) and n.startswith(prefix))

    return QuarryClient


def _cluster_lost_words():
    return (
        'the Dask scheduler %s went away while the cell ran: the session and its variables are kept; '
        'run the cell again once the cluster is back (the next cell reconnects)' % cluster.name
    )


async def _cluster_watch(c, fs, wait):
    """Waits for the futures, sending tasks done of total to the host now
    and then while they run."""
    import asyncio

    send_progress = cluster.progress
    if send_progress is None:
        await wait(fs)
        return
    keys = [f.key for f in fs]
    total = None
    while True:
        try:
            await asyncio.wait_for(wait(fs), CLUSTER_PROGRESS_SECS)
            if total:
                send_progress(total, total)
            return
        except TimeoutError:
            pass
        try:
            left, seen = await c._run_on_scheduler(_cluster_remaining, keys)
        except Exception:
            continue
        if total is None or seen > total:
            total = seen
        if total:
            send_progress(max(0, total - left), total)


def _cluster_remaining(keys, dask_scheduler=None):
    """On the scheduler: the tasks the keys need that are not done yet,
    and how many tasks they need in all."""
    tasks = dask_scheduler.tasks
    stack = [tasks[k] for k in keys if k in tasks]
    seen, left = set(), 0
    while stack:
        ts = stack.pop()
        if ts.key in seen:
            continue
        seen.add(ts.key)
        if ts.state not in ('memory', 'erred', 'forgotten'):
            left += 1
        stack.extend(ts.dependencies)
    return left, len(seen)


def cluster_before_cell(code, progress):
    """At a cell's start: remember the client's keys (an interrupt cancels
    what the cell added), reconnect a lost cluster the cell may use."""
    if cluster.address is None:
        return []
    notes = []
    c = cluster.client
    if (c is None or c.status not in ('running', 'connecting')) and any(w in code for w in CLUSTER_WORDS):
        was = c is not None or bool(cluster.error)
        if cluster_connect():
            if was:
                notes.append('reconnected to the Dask cluster %s' % cluster.name)
        else:
            notes.append(cluster.error)
        c = cluster.client
    cluster.before = frozenset(c.futures) if c is not None else frozenset()
    cluster.progress = progress
    return notes


def cluster_after_cell(interrupted):
    """After a cell: an interrupted one's tasks are cancelled on the
    cluster, so nothing the session started runs on there."""
    cluster.progress = None
    c = cluster.client
    if c is None or not interrupted:
        return []
    try:
        keys = [k for k in list(c.futures) if k not in cluster.before]
        if not keys:
            return []
        from distributed import Future

        c.cancel([Future(k, c) for k in keys], force=True)
        return ['cancelled %d task%s of the cell on the Dask cluster' % (len(keys), '' if len(keys) == 1 else 's')]
    except Exception as e:
        return ['the cell\'s tasks on the Dask cluster could not be cancelled: %s' % type(e).__name__]


def cluster_spared():
    return {cluster.relay_pid} if cluster.relay_pid else set()


def cluster_forget_in_child():
    """In a fork's child (a checkpoint's copy): the client's thread is not
    there, and its sockets are the kernel's. Close this copy's ends, so the
    kernel leaving closes its connections to the scheduler, and keep the
    old client from ever running its close()."""
    c = cluster.client
    if c is None:
        return
    cluster.stale.append(c)
    cluster.client = None
    try:
        c._Client__loop = None  # its __del__ then does nothing
    except Exception:
        pass
    for name in os.listdir('/proc/self/fd'):
        try:
            fd = int(name)
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                continue
            s = socket.socket(fileno=os.dup(fd))
            try:
                peer = s.getpeername()
            finally:
                s.close()
            if isinstance(peer, tuple) and peer[0] == '127.0.0.1' and peer[1] == cluster.port:
                os.close(fd)
        except OSError, ValueError:
            continue


def cluster_dd():
    """dask.dataframe, with the readers building their collection on a
    worker: without dask-expr a reader reads the files' metadata where it
    is called, and the sandbox sees neither the cluster's storage nor its
    credentials. The collection comes back as a graph; its tasks read the
    data on the workers."""
    import dask.dataframe as real

    mod = types.ModuleType('dask.dataframe')
    mod.__dict__.update({k: v for k, v in vars(real).items() if not k.startswith('__')})
    mod.__doc__ = real.__doc__
    for name in (
        'read_parquet',
        'read_csv',
        'read_table',
        'read_fwf',
        'read_json',
        'read_orc',
        'read_hdf',
        'read_sql_table',
    ):
        if hasattr(real, name):
            setattr(mod, name, _cluster_reader(name, getattr(real, name)))
    return mod


def _cluster_reader(name, reader):
    def read(*args, **kwargs):
        c = cluster.client
        if c is None or c.status != 'running':
            raise ClusterError(cluster.error or 'no Dask cluster is connected')
        fut = c.submit(_cluster_build, name, args, kwargs, pure=False)
        try:
            return fut.result()
        except FileNotFoundError as e:
            path = args[0] if args else kwargs.get('path') or kwargs.get('urlpath')
            if isinstance(path, str) and os.path.exists(path.split('*')[0].rstrip('/') or '/'):
                raise FileNotFoundError(
                    '%s is in the sandbox, not where the workers read: read it with pandas, '
                    'or send it to the cluster with dd.from_pandas(frame, npartitions=N)' % path
                ) from None
            raise FileNotFoundError('the workers cannot read %s: %s' % (path, e)) from None
        finally:
            fut.release()

    read.__name__ = name
    read.__doc__ = reader.__doc__
    return read


def _cluster_build(name, args, kwargs):
    import dask.dataframe as real

    return getattr(real, name)(*args, **kwargs)


def cluster_data_request(msg):
    """The host's "dask_data" request: profile the datasets named with
    --dask-data where the workers read them, without moving the rows."""
    out = []
    examples = bool(msg.get('examples'))
    for d in (msg.get('datasets') or [])[:32]:
        name, url = str(d.get('name') or '')[:64], str(d.get('url') or '')[:2000]
        entry = {'name': name, 'url': url}
        c = cluster.client
        if c is None or c.status != 'running':
            entry['error'] = cluster.error or 'no Dask cluster is connected'
            out.append(entry)
            continue
        fut = c.submit(_cluster_profile, url, examples, pure=False)
        try:
            entry.update(fut.result(timeout=60))
        except KeyboardInterrupt:
            raise
        except BaseException as e:
            entry['error'] = ('%s: %s' % (type(e).__name__, e))[:500]
        finally:
            fut.release()
        out.append(entry)
    send({'t': 'dask_data', 'id': msg.get('id'), 'datasets': out})


def _cluster_profile(url, examples):
    """On a worker: a dataset's format, partitions, dtypes, its row count
    where the metadata has it, and a few rows of its first partition."""
    import glob
    import os

    import dask
    import dask.dataframe as real

    textual = ('.csv', '.csv.gz', '.tsv', '.txt', '.csv.bz2', '.csv.xz')
    names = glob.glob(os.path.join(url, '*')) if os.path.isdir(url) else (glob.glob(url) if '*' in url else [url])
    csv = any(n.lower().endswith(textual) for n in names[:100])
    df = (real.read_csv if csv else real.read_parquet)(url)
    out = {
        'format': 'csv' if csv else 'parquet',
        'partitions': int(df.npartitions),
        'columns': [[str(k), str(t)] for k, t in list(df.dtypes.items())[:200]],
        'column_count': len(df.columns),
        'rows': -1,
    }
    if not csv:
        try:
            import pyarrow.dataset as ds

            out['rows'] = int(ds.dataset(url, format='parquet').count_rows())  # the footers, not the rows
        except Exception:
            pass
    if examples:
        with dask.config.set(scheduler='sync'):  # one partition, read here: no task of its own
            h = df.head(5, npartitions=1)
        out['head'] = [[str(v)[:80] for v in row] for row in h.itertuples(index=False)]
    return out

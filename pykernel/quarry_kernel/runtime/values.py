# Cell results for quarry's kernel (sent together with kernel.py): values
# as IPython shows them, tables, figures, changed output files, and the
# cleanup of processes an interrupted cell left behind.
import base64
import io
import os
import signal
import time


def cap_text(s, n=REPR_CHARS):
    if len(s) > n:
        return s[:n] + '\n[... %d characters cut ...]' % (len(s) - n)
    return s


def cell_str(v):
    s = str(v)
    return s if len(s) <= CELL_CHARS else s[: CELL_CHARS - 1] + '\u2026'


def shown(values):
    """Cells as pandas displays them: display.precision, the same digits
    for a whole column, NaN and None as pandas writes them. The exact
    values (cell_str) are what the model reads."""
    try:
        from pandas.io.formats.format import format_array

        return [cell_str(v.strip()) for v in format_array(values, None, leading_space=False)]
    except Exception:
        return [cell_str(v) for v in values]


# At most this many columns when display.max_columns says all (None or 0).
TABLE_MAX_COLS = 200


def pandas_as_jupyter(pd):
    """pandas' display options as in Jupyter: it takes the kernel for a
    terminal (no IPython) and would fit every frame to 80 columns, hiding
    the middle ones; Jupyter shows up to display.max_columns, 20 by
    default. The default itself changes, so reset_option gives 20 too."""
    try:
        cfg = pd._config.config
        key = 'display.max_columns'
        opt = cfg._registered_options.get(key)
        if opt is not None and opt.defval == 0:
            cfg._registered_options[key] = opt._replace(defval=20)
            if pd.get_option(key) == 0:
                pd.set_option(key, 20)
    except Exception:
        pass


def columns_shown(pd, n):
    """The positions of the columns Jupyter shows of n for the notebook's
    display.max_columns: all, or the first and the last half; and how many
    come before the gap (0: no gap)."""
    try:
        k = pd.get_option('display.max_columns')
    except Exception:
        k = 20
    if not k:
        k = TABLE_MAX_COLS
    if n <= k:
        return list(range(n)), 0
    half = max(1, k // 2)
    return list(range(half)) + list(range(n - half, n)), half


def levels_shown(idx, positions):
    """A MultiIndex's labels at positions, level by level as pandas
    displays each (dates without a midnight time), one list a label."""
    out = []
    for i in range(idx.nlevels):
        vals = idx.get_level_values(i)[positions]
        out.append(shown(vals._values))
    return [list(r) for r in zip(*out)]


def table_of(value):
    pd = whole_module('pandas')  # imports.py: not one the import thread is still making
    if pd is None:
        return None
    if isinstance(value, pd.Series):
        df = value.to_frame(name=value.name if value.name is not None else 0)
    elif isinstance(value, pd.DataFrame):
        df = value
    else:
        return None
    rows, cols = df.shape
    picked, gap = columns_shown(pd, cols)
    sub = df.iloc[:, picked]

    def rows_of(part):
        return [[cell_str(v) for v in r] for r in part.itertuples(index=False, name=None)]

    if rows <= TABLE_ALL:
        head, tail = sub, sub.iloc[0:0]
        at = list(range(rows))
    else:
        head, tail = sub.iloc[:TABLE_HEAD], sub.iloc[rows - TABLE_TAIL :]
        at = list(range(TABLE_HEAD)) + list(range(rows - TABLE_TAIL, rows))
    both = pd.concat([head, tail]) if len(tail) else head
    cols_shown = [shown(both.iloc[:, j]._values) for j in range(both.shape[1])]
    display = [list(r) for r in zip(*cols_shown)] if cols_shown else [[] for _ in range(len(both))]
    out = {
        'columns': [str(c) for c in sub.columns],
        'dtypes': [str(t) for t in sub.dtypes],
        'index_name': '' if df.index.name is None else str(df.index.name),
        'rows': int(rows),
        'cols': int(cols),
        'head': rows_of(head),
        'tail': rows_of(tail),
        'display': display,
    }
    if gap:
        out['column_gap'] = gap
    if df.columns.nlevels > 1:
        levels = levels_shown(df.columns, picked)
        out['column_levels'] = levels
        out['columns'] = [' '.join(x for x in c if x) for c in levels]
    if df.index.nlevels > 1:
        levels = levels_shown(df.index, at)
        out['index_levels'] = levels
        out['index_names'] = ['' if n is None else str(n) for n in df.index.names]
        out['index_name'] = ', '.join(n for n in out['index_names'] if n)
        out['index'] = out['index_display'] = [', '.join(l) for l in levels]
        return out
    out['index'] = [cell_str(i) for i in list(head.index) + list(tail.index)]
    try:
        out['index_display'] = shown(both.index._values)
    except Exception:
        out['index_display'] = out['index']
    return out


def value_of(value):
    if value is None:
        return None
    value = ipy_plain(value)  # ipython/syntax.py: an HTML table, a Styler, Markdown
    try:
        r = repr(value)
    except Exception as e:  # a broken __repr__ is the code's problem, not ours
        r = '<repr failed: %s: %s>' % (type(e).__name__, e)
    out = {'repr': cap_text(r)}
    try:
        t = table_of(value)
        if t is not None:
            out['table'] = t
    except Exception:
        pass
    return out


def inline_png(fig, box):
    """The figure drawn again for the chat: text box['font_px'] pixels high
    (the dpi says so), the figure shrunk in inches until it fits the box,
    laid out again so labels stay inside. None when it cannot be."""
    w, h, font_px = int(box.get('w', 0)), int(box.get('h', 0)), int(box.get('font_px', 0))
    if w <= 0 or h <= 0 or font_px <= 0:
        return None
    import matplotlib

    size = fig.get_size_inches()
    font_pt = float(matplotlib.rcParams.get('font.size', 10)) or 10.0
    dpi = max(30.0, min(300.0, font_px * 72.0 / font_pt))
    scale = min(1.0, w / (size[0] * dpi), h / (size[1] * dpi))
    fig.set_size_inches(size[0] * scale, size[1] * scale)
    try:
        fig.tight_layout()
    except Exception:
        pass
    buf = io.BytesIO()
    fig.savefig(buf, format='png', dpi=dpi)
    data = buf.getvalue()
    return data if len(data) <= MAX_PNG else None


def figures(box=None):
    plt = whole_module('matplotlib.pyplot')  # imports.py
    if plt is None:
        return [], [], []
    figs, inline, notes, total = [], [], [], 0
    for i, num in enumerate(plt.get_fignums()):
        fig = plt.figure(num)
        try:
            if i < MAX_FIGURES:
                buf = io.BytesIO()
                fig.savefig(buf, format='png', dpi=100)
                data = buf.getvalue()
                if len(data) > MAX_PNG:
                    notes.append('figure %d skipped: PNG larger than %d MiB' % (num, MAX_PNG >> 20))
                elif total + len(data) > MAX_PNG_TOTAL:
                    notes.append(
                        'figure %d skipped: the figures of one cell are capped at %d MiB' % (num, MAX_PNG_TOTAL >> 20)
                    )
                else:
                    total += len(data)
                    figs.append(base64.b64encode(data).decode('ascii'))
                    small = None
                    if box:
                        try:
                            small = inline_png(fig, box)
                        except Exception:
                            small = None
                    inline.append(base64.b64encode(small).decode('ascii') if small else '')
            elif i == MAX_FIGURES:
                notes.append('only the first %d figures of a cell are kept' % MAX_FIGURES)
        except Exception as e:
            notes.append('figure %d could not be drawn: %s: %s' % (num, type(e).__name__, str(e)[:200]))
        finally:
            plt.close(fig)
    return figs, inline, notes


def close_figures():
    plt = whole_module('matplotlib.pyplot')  # imports.py
    if plt is not None:
        try:
            plt.close('all')
        except Exception:
            pass


def scan_output(folders=None):
    """The files of /output with what tells a change; the folders too, into
    folders, when it is given (a checkpoint keeps both)."""
    seen = {}
    count = 0
    for root, dirs, files in os.walk(OUTPUT):
        if folders is not None:
            folders.update(os.path.relpath(os.path.join(root, d), OUTPUT) for d in dirs)
        for f in files:
            count += 1
            if count > MAX_OUTPUT_SCAN:
                return seen
            p = os.path.join(root, f)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            seen[os.path.relpath(p, OUTPUT)] = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_mode)
    return seen


def changed_files(before):
    after = scan_output()
    names = sorted(k for k, v in after.items() if before.get(k) != v)
    return names[:MAX_FILES_REPORTED], len(names)


def kill_others(spare=None):
    """After an interrupt, processes the cell started (subprocesses,
    setsid children, a fork bomb) would keep running: kill everything but
    init, the supervisor, the checkpoints (or only those in spare) and us,
    pass after pass, since a process may fork between the listing and its
    kill; stop when a pass finds nothing alive."""
    me, total = os.getpid(), 0
    if spare is None:
        spare = {pid for pid, _ in ck.snaps.values()}
    keep = {1, me, ck.sup} | set(spare) | cluster_spared()  # the Dask relay is the host's, not the cell's
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        pids = [int(n) for n in os.listdir('/proc') if n.isdigit() and int(n) not in keep]
        live = [p for p in pids if alive(p)]
        if not live:
            break
        for p in live:
            try:
                os.kill(p, signal.SIGKILL)
                total += 1
            except OSError:
                pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0] != 0:
                pass
        except ChildProcessError:
            pass
        time.sleep(0.005)
    return total


def alive(pid):
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError, IndexError:
        return False

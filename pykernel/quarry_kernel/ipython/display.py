# IPython.display's stand-in for quarry's kernel (sent together with kernel.py,
# after ipython/syntax.py): display(), HTML, Markdown and Image with their plain
# meaning, a Styler where pandas has none, found only when code imports them.
import re as ipy_re
import sys as ipy_sys
import types as ipy_types


class IPyDisplayObject:
    def __init__(self, data=None, url=None, filename=None, **kw):
        if filename is None and isinstance(data, str) and len(data) < 4096 and '\n' not in data and '<' not in data:
            import os

            if os.path.isfile(data):
                filename = data
        if filename is not None and data is None:
            with open(filename, 'rb') as f:
                data = f.read()
        if url is not None and data is None:
            raise ValueError(
                '%s(url=...) reads from the network, which the sandbox has none of: '
                'save the file beside the notebook and give its name' % type(self).__name__
            )
        self.data, self.filename = data, filename

    def __repr__(self):
        return ipy_text_of(self)


class HTML(IPyDisplayObject):
    pass


class Markdown(IPyDisplayObject):
    pass


class Image(IPyDisplayObject):
    pass


def ipy_html_table(html):
    """The first table of an HTML text, as a DataFrame; None when it has none."""
    if '<table' not in html.lower():
        return None
    try:
        import io

        import pandas as pd

        tables = pd.read_html(io.StringIO(html), flavor='lxml')
        if not tables:
            return None
        t = tables[0]
        if t.columns.nlevels > 1:
            # to_html() writes the index's name as a second header row
            t.columns = [
                ' '.join(str(p) for p in c if not str(p).startswith('Unnamed:')) or str(c[-1]) for c in t.columns
            ]
        return t
    except Exception:
        return None


def ipy_html_text(html):
    import html as h

    return h.unescape(ipy_re.sub(r'<[^>]+>', '', html)).strip()


def ipy_plain(obj):
    """What obj means as a plain value: an HTML table its DataFrame, a
    Styler its data, Markdown its text."""
    if isinstance(obj, HTML):
        t = ipy_html_table(obj.data or '')
        return t if t is not None else IPyText(ipy_html_text(obj.data or ''))
    if isinstance(obj, (Markdown, Image)):
        return IPyText(ipy_text_of(obj))
    if type(obj).__name__ == 'Styler' and hasattr(obj, 'data'):
        return obj.data
    if isinstance(obj, float) and IPythonRuntime.float_digits is not None:
        return IPyText('%.*f' % (IPythonRuntime.float_digits, obj))
    return obj


class IPyText:
    """Text shown as itself, without a string's quotes."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def ipy_text_of(obj):
    if isinstance(obj, Image):
        what = obj.filename or '%d bytes' % len(obj.data or b'')
        return '<Image: %s>' % what
    if isinstance(obj, Markdown):
        return str(obj.data or '')
    return repr(ipy_plain(obj))


def display(*objs, **kw):
    """IPython's display(): each object printed as its plain text (a table
    as pandas prints it)."""
    for o in objs:
        print(ipy_text_of(o))


def clear_output(wait=False):
    pass


class IPyStyler:
    """pandas' Styler where jinja2 (which it needs) is missing: the styling
    calls are taken and the table shown as its data."""

    def __init__(self, data):
        self.data = data

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return lambda *a, **k: self

    def __repr__(self):
        return repr(self.data)


IPyStyler.__name__ = 'Styler'


class IPyFinder:
    """Finds the stand-in modules (last on sys.meta_path: a real IPython
    would be found first)."""

    def __init__(self, mods):
        self.mods = mods

    def find_spec(self, name, path=None, target=None):
        if name not in self.mods:
            return None
        import importlib.machinery

        return importlib.machinery.ModuleSpec(name, self, is_package=name in ('IPython', 'IPython.core'))

    def create_module(self, spec):
        return self.mods[spec.name]

    def exec_module(self, module):
        pass


class IPyState:
    installed = False
    styler = False


def ipy_install():
    """The stand-in modules, display() in the user's namespace, and a
    Styler when pandas has none: once (the Styler once pandas is loaded)."""
    if not IPyState.installed:
        IPyState.installed = True
        ns = ipy_sys.modules['__main__'].__dict__
        ns.setdefault(IPY_NAME, IPythonRuntime)
        ns.setdefault('get_ipython', lambda: ipy_shell_object)  # as IPython puts it there (ipython/magics.py)
        try:
            import importlib.util

            real = importlib.util.find_spec('IPython') is not None
        except Exception:
            real = False
        if not real:
            disp = ipy_types.ModuleType('IPython.display')
            for name, v in (
                ('display', display),
                ('HTML', HTML),
                ('Markdown', Markdown),
                ('Image', Image),
                ('clear_output', clear_output),
                ('DisplayObject', IPyDisplayObject),
            ):
                setattr(disp, name, v)
            core = ipy_types.ModuleType('IPython.core')
            core.display = disp
            top = ipy_types.ModuleType('IPython')
            top.display, top.core, top.get_ipython = disp, core, lambda: None
            # Libraries that look for IPython (matplotlib) read its version
            # and then find no shell, as in plain Python.
            top.version_info, top.__version__ = (8, 0, 0), '8.0.0'
            top.__path__ = core.__path__ = []
            # Found only when the code imports them, so libraries that look
            # for IPython in sys.modules find none until then.
            ipy_sys.meta_path.append(
                IPyFinder({'IPython': top, 'IPython.display': disp, 'IPython.core': core, 'IPython.core.display': disp})
            )
            ns.setdefault('display', display)
    pd = whole_module('pandas')  # imports.py: not one the import thread is still making
    if pd is not None and not IPyState.styler:
        IPyState.styler = True
        pandas_as_jupyter(pd)  # values.py: when the imports did not bring it
        try:
            import jinja2  # noqa: F401 -- pandas' own Styler works
        except ImportError:
            pd.DataFrame.style = property(lambda self: IPyStyler(self))

# bridge() for quarry's kernel (sent with kernel.py, after variance/front.py): the
# waterfall from the budget's bottom line to the actual's. Each material
# line's effect on the bottom line is a bar, largest first; the rest are one
# 'Other' bar, computed as what is left of the gap, so the bars always add up
# to it. Better and worse differ in colour (blue, orange: safe for the
# common colour blindnesses), in pattern (worse is hatched) and in the sign
# and word of their labels.
import re

BRIDGE_BARS = 12  # material lines drawn as bars; the rest join 'Other'
BRIDGE_LABEL = 40  # characters of a line's label on the chart
BRIDGE_COLOURS = {'better': '#0072B2', 'worse': '#D55E00', 'neutral': '#999999', 'total': '#4D4D4D'}
BRIDGE_HATCH = {'better': '', 'worse': '///', 'neutral': '..', 'total': ''}
_MATH = re.compile(r'\$')


def bridge_data(v, max_bars=BRIDGE_BARS):
    """The bars of bridge(v) as a DataFrame: label, what ('start', 'line',
    'other', 'end'), value (the bar's change of the bottom line; the total
    for start and end), start and end (where the bar begins and ends),
    effect ('better', 'worse', 'neutral'; 'total' for start and end),
    lines (how many lines the bar stands for)."""
    import pandas as pd

    if not isinstance(v, pd.DataFrame) or not set(VARIANCE_COLUMNS) <= set(v.columns):
        raise TypeError('bridge() takes the table variance() returns')
    if not isinstance(max_bars, int) or isinstance(max_bars, bool) or max_bars < 0:
        raise ValueError('max_bars must be a number of bars, 0 or more')
    labels = _labels_of(v)
    is_total = pd.Series(_total_rows(v, labels), index=v.index)
    if not is_total.any():
        raise ValueError("bridge() needs the table's Total row (the bottom line); it is not in this table")
    total = v[is_total].iloc[-1]
    lines = v[~is_total]
    bottom = v.attrs.get('bottom_line') or {'profit': 'profit', 'revenue': 'revenue', 'cost': 'cost'}.get(
        total['kind'], 'sum'
    )
    sign = (
        lines['kind'].map({'revenue': 1.0, 'cost': -1.0}).fillna(0.0)
        if bottom == 'profit'
        else pd.Series(1.0, index=lines.index)
    )
    impact = (lines['variance'].astype(float) * sign).round(9)
    order = impact.abs().sort_values(ascending=False, kind='stable').index
    material = [i for i in order if bool(lines.at[i, 'material']) and impact[i] != 0]
    shown, rest = material[:max_bars], material[max_bars:]
    gap = round(float(total['actual']) - float(total['budget']), 9)
    bars = [{'label': 'Budget', 'what': 'start', 'value': float(total['budget']), 'effect': 'total', 'lines': 0}]
    for i in shown:
        name = ' · '.join(str(lines.at[i, c]) for c in labels if str(lines.at[i, c]).strip())
        effect = lines.at[i, 'effect']
        bars.append(
            {
                'label': name,
                'what': 'line',
                'value': float(impact[i]),
                'effect': effect if effect in ('better', 'worse') else 'neutral',
                'lines': 1,
            }
        )
    other = round(gap - sum(b['value'] for b in bars[1:]), 9)
    others = len(lines) - len(shown)
    if others and abs(other) >= 0.005:
        up = 'better' if bottom in ('profit', 'revenue') else 'worse' if bottom == 'cost' else 'neutral'
        down = {'better': 'worse', 'worse': 'better', 'neutral': 'neutral'}[up]
        word = 'Other (%d line%s)' % (others, '' if others == 1 else 's')
        if rest:
            word = 'Other (%d material, %d more line%s)' % (
                len(rest),
                others - len(rest),
                '' if others - len(rest) == 1 else 's',
            )
        bars.append(
            {'label': word, 'what': 'other', 'value': other, 'effect': up if other > 0 else down, 'lines': others}
        )
    bars.append({'label': 'Actual', 'what': 'end', 'value': float(total['actual']), 'effect': 'total', 'lines': 0})
    at = float(total['budget'])
    for b in bars:
        if b['what'] in ('start', 'end'):
            b['start'], b['end'] = 0.0, b['value']
        else:
            b['start'], b['end'] = at, round(at + b['value'], 9)
            at = b['end']
    out = pd.DataFrame(bars, columns=['label', 'what', 'value', 'start', 'end', 'effect', 'lines'])
    out.attrs['bottom_line'] = bottom
    out.attrs['gap'] = gap
    return out


def bridge(v, max_bars=BRIDGE_BARS, title=None):
    """Draw the waterfall from the budget's bottom line to the actual's.

    Parameters
    ----------
    v : DataFrame
        A table variance() returned.
    max_bars : int, default BRIDGE_BARS
        The material lines drawn as bars of their own, largest first; the
        rest are one 'Other' bar.
    title : str, optional
        The figure's title (default: from the table's).

    Returns
    -------
    matplotlib.figure.Figure
        The figure; its bars are in fig.bridge_data (see bridge_data).
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    bars = bridge_data(v, max_bars)
    bottom = bars.attrs['bottom_line']
    n = len(bars)
    fig, ax = plt.subplots(figsize=(9, max(3.0, 0.45 * n + 1.6)))
    lo, hi = _axis(bars)
    for y, b in enumerate(bars.itertuples(index=False)):
        kind = b.effect
        if b.what in ('start', 'end'):
            left, width = lo, b.value - lo
        else:
            left, width = min(b.start, b.end), abs(b.value)
        ax.barh(
            y,
            width,
            left=left,
            height=0.6,
            color=BRIDGE_COLOURS[kind],
            hatch=BRIDGE_HATCH[kind],
            edgecolor='white' if kind == 'total' else '#333333',
            linewidth=0.6,
        )
        ax.annotate(
            _value_text(b),
            (max(left, left + width) if b.value >= 0 or b.what in ('start', 'end') else left, y),
            xytext=(4 if b.value >= 0 or b.what in ('start', 'end') else -4, 0),
            textcoords='offset points',
            ha='left' if b.value >= 0 or b.what in ('start', 'end') else 'right',
            va='center',
            fontsize=8,
        )
        if y + 1 < n:
            edge = b.end
            ax.plot([edge, edge], [y + 0.3, y + 0.7], color='#777777', linewidth=0.6)
    ax.set_yticks(range(n))
    ax.set_yticklabels([_chart_label(b.label) for b in bars.itertuples(index=False)], fontsize=8)
    ax.invert_yaxis()
    pad = (hi - lo) * 0.18 or 1.0
    ax.set_xlim(lo, hi + pad)
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda x, _: f'{x:,.0f}'))
    ax.grid(axis='x', color='#dddddd', linewidth=0.5)
    ax.set_axisbelow(True)
    for side in ('top', 'right'):
        ax.spines[side].set_visible(False)
    what = {'profit': 'profit', 'revenue': 'revenue', 'cost': 'cost', 'sum': 'total'}[bottom]
    ax.set_title(_chart_label(title, 120) if title else 'Budget to actual: %s' % what, fontsize=11, loc='left')
    note = 'Bars: effect of each material line on the %s, largest first' % what
    if lo != 0:
        note += f'; the axis starts at {lo:,.0f}, not 0'
    ax.set_xlabel(note, fontsize=8)
    legend = [
        Patch(facecolor=BRIDGE_COLOURS[k], hatch=BRIDGE_HATCH[k], edgecolor='#333333', label=w)
        for k, w in (
            ('better', 'better (+)' if bottom != 'cost' else 'better (−)'),
            ('worse', 'worse (−, hatched)' if bottom != 'cost' else 'worse (+, hatched)'),
        )
        if (bars['effect'] == k).any()
    ]
    if (bars['effect'] == 'neutral').any():
        legend.append(
            Patch(
                facecolor=BRIDGE_COLOURS['neutral'],
                hatch=BRIDGE_HATCH['neutral'],
                edgecolor='#333333',
                label='unclassified',
            )
        )
    if legend:
        ax.legend(
            handles=legend,
            loc='lower right',
            bbox_to_anchor=(1.0, 1.0),
            ncol=len(legend),
            fontsize=8,
            frameon=False,
            borderaxespad=0.2,
        )
    fig.tight_layout()
    fig.bridge_data = bars
    return fig


def _axis(bars):
    """The left and right of the amounts shown: from 0, unless the totals
    dwarf the changes, when the axis starts near the smallest level."""
    levels = list(bars['start']) + list(bars['end'])
    lo, hi = min(levels + [0.0]), max(levels + [0.0])
    steps = bars[bars['what'].isin(['line', 'other'])]
    if len(steps):
        inner = list(steps['start']) + list(steps['end']) + [bars['value'].iloc[0], bars['value'].iloc[-1]]
        span = max(inner) - min(inner)
        if min(inner) > 0 and span < 0.25 * max(inner):
            lo = max(0.0, min(inner) - span * 0.6)
    return lo, hi


def _value_text(b):
    if b.what in ('start', 'end'):
        return f'{b.value:,.2f}'
    word = {'better': 'better', 'worse': 'worse', 'neutral': ''}[b.effect]
    return f'{b.value:+,.2f}'.replace('-', '\u2212') + (' ' + word if word else '')


def _chart_label(s, n=BRIDGE_LABEL):
    """A label matplotlib draws as it is: no control characters, no
    mathtext ($...$), cut to n characters."""
    s = clean_label(s)
    if len(s) > n:
        s = s[: n - 1] + '\u2026'
    return _MATH.sub(r'\\$', s)

# quarry's report builder, part 4 of 4: the PDF, with reportlab's
# platypus (Debian's python3-reportlab): the title, the key figures, the
# variance table breaking across pages under a repeated header, the
# bridge chart, the commentary with its unverified numbers marked, the
# notes and the sources, "page N of M" on every page. A4 or Letter as the
# host's locale says; landscape when the table is wider than the page.
import os
from xml.sax.saxutils import escape

PDF_MAX_NOTES = 60
FONT_DIR = '/usr/share/fonts/truetype/dejavu'
FONT_SIZE = 8
MARK_HEX = '#C04000'
LABEL_MIN = 60         # points a label column keeps when the table is shrunk to fit


def write_pdf(spec, data, path, counts):
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4, letter, landscape
    from reportlab.lib.units import mm
    from reportlab.platypus import SimpleDocTemplate
    _fonts()
    size = letter if str(spec.get('paper', '')).lower() == 'letter' else A4
    margin = 14 * mm
    v = spec.get('variance')
    lines, left_out = _pdf_lines(v)
    widths = _table_widths(v, lines) if v else []
    nlabels = len(v.get('labels') or ['line']) if v else 0
    if sum(widths[nlabels:]) + LABEL_MIN * nlabels > size[0] - 2 * margin:
        size = landscape(size)  # too wide even with the labels wrapped narrow
    frame_w = size[0] - 2 * margin
    if widths:
        widths = _fit(widths, frame_w, nlabels)
    st = _styles()
    story = []
    _title(story, spec, st)
    _blocks(story, 'Key figures', spec.get('highlights'), st)
    if v:
        _table(story, v, lines, left_out, widths, st, colors, counts)
        if v.get('comparisons'):
            _comparisons(story, v, lines, frame_w, st, colors)
    _chart(story, spec, data, frame_w, size[1] - 2 * margin, st)
    for a in spec.get('analyses') or []:
        _analysis(story, a, frame_w, st, colors)
    _blocks(story, 'Commentary', spec.get('commentary'), st)
    if spec.get('unverified_legend'):
        story.append(_para('<font color="%s">%s</font>' % (MARK_HEX, _esc(spec['unverified_legend'])), st['small']))
    _notes(story, v, st)
    _sources(story, spec, frame_w, st, colors)
    footer = clean_text('quarry \u00b7 %s' % (spec.get('session') or ''), 120)
    doc = SimpleDocTemplate(path, pagesize=size, leftMargin=margin, rightMargin=margin, topMargin=margin,
                            bottomMargin=margin + 4 * mm, title='quarry report', author='quarry', subject='',
                            creator='quarry', pageCompression=1)
    doc.build(story, canvasmaker=_numbered(footer))


def _fonts():
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.lib.fonts import addMapping
    if 'Q' in pdfmetrics.getRegisteredFontNames():
        return
    for name, f in (('Q', 'DejaVuSans.ttf'), ('Q-Bold', 'DejaVuSans-Bold.ttf'), ('Q-Oblique', 'DejaVuSans-Oblique.ttf'),
                    ('Q-BoldOblique', 'DejaVuSans-BoldOblique.ttf'), ('QMono', 'DejaVuSansMono.ttf')):
        pdfmetrics.registerFont(TTFont(name, os.path.join(FONT_DIR, f)))
    addMapping('Q', 0, 0, 'Q')
    addMapping('Q', 1, 0, 'Q-Bold')
    addMapping('Q', 0, 1, 'Q-Oblique')
    addMapping('Q', 1, 1, 'Q-BoldOblique')


def _styles():
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.enums import TA_RIGHT
    base = ParagraphStyle('base', fontName='Q', fontSize=9, leading=12)
    return {
        'title': ParagraphStyle('title', base, fontName='Q-Bold', fontSize=16, leading=20, spaceAfter=4),
        'subtitle': ParagraphStyle('subtitle', base, fontSize=8.5, textColor='#595959', spaceAfter=8),
        'h': ParagraphStyle('h', base, fontName='Q-Bold', fontSize=11.5, leading=15, spaceBefore=10, spaceAfter=4),
        'h2': ParagraphStyle('h2', base, fontName='Q-Bold', fontSize=9.5, leading=13, spaceBefore=6, spaceAfter=2),
        'p': ParagraphStyle('p', base, spaceAfter=4),
        'li': ParagraphStyle('li', base, leftIndent=10, spaceAfter=2),
        'pre': ParagraphStyle('pre', base, fontName='QMono', fontSize=7.5, leading=9.5),
        'small': ParagraphStyle('small', base, fontSize=7.5, leading=9.5, textColor='#404040', spaceAfter=2),
        'cell': ParagraphStyle('cell', base, fontSize=FONT_SIZE, leading=FONT_SIZE + 2),
        'cellb': ParagraphStyle('cellb', base, fontName='Q-Bold', fontSize=FONT_SIZE, leading=FONT_SIZE + 2),
        'num': ParagraphStyle('num', base, fontSize=FONT_SIZE, leading=FONT_SIZE + 2, alignment=TA_RIGHT),
    }


def _esc(s, limit=CELL_MAX):
    return escape(clean_text(s, limit))


def _para(markup, style):
    from reportlab.platypus import Paragraph
    return Paragraph(markup, style)


def _title(story, spec, st):
    story.append(_para(_esc(spec.get('title') or 'Report', 300), st['title']))
    if spec.get('subtitle'):
        story.append(_para(_esc(spec['subtitle']), st['subtitle']))
    if spec.get('no_variance') and not spec.get('variance'):
        story.append(_para(_esc(spec['no_variance']), st['subtitle']))


def _runs(runs):
    out = []
    for r in runs or []:
        t = _esc(r.get('t', ''))
        if not t:
            continue
        if r.get('mono'):
            t = '<font face="QMono">%s</font>' % t
        if r.get('i'):
            t = '<i>%s</i>' % t
        if r.get('b'):
            t = '<b>%s</b>' % t
        if r.get('mark') == 'unverified':
            t = '<font color="%s"><u>%s</u></font>' % (MARK_HEX, t)
        out.append(t)
    return ''.join(out)


def _blocks(story, title, blocks, st):
    if not blocks:
        return
    story.append(_para(escape(title), st['h']))
    for b in blocks:
        style = b.get('style') or 'p'
        if style == 'pre':
            from reportlab.platypus import Preformatted
            text = clean_text(''.join(r.get('t', '') for r in b.get('runs') or []), CELL_MAX, lines=True)
            story.append(Preformatted(text, st['pre'], maxLineLength=140))
            continue
        story.append(_para(_runs(b.get('runs')), {'h': st['h2'], 'li': st['li']}.get(style, st['p'])))


def _pdf_lines(v):
    """The lines the PDF's table shows: those the host chose when it cannot
    show them all (spec printed), and the sentence saying so."""
    if not v:
        return [], ''
    lines = v.get('lines') or []
    printed = v.get('printed')
    if not printed:
        return lines, ''
    return [lines[i] for i in printed if 0 <= i < len(lines)], v.get('left_out') or ''


def _table_widths(v, lines):
    """Points each column wants at the table's font: the widest of its
    header's words (bold; a header wraps between words) and its values,
    labels at most 220."""
    from reportlab.pdfbase.pdfmetrics import stringWidth
    n = len(v.get('labels') or ['line'])
    pad = 12
    sample = lines[:3000]

    def fit(head, values, bold_values=()):
        words = [stringWidth(w, 'Q-Bold', FONT_SIZE) for w in str(head).split()] or [0]
        vals = [stringWidth(x, 'Q', FONT_SIZE) for x in values] + [stringWidth(x, 'Q-Bold', FONT_SIZE) for x in bold_values]
        return max(words + vals) + pad

    rows = [line_labels(ln, n) for ln in sample]
    widths = [min(220, max(LABEL_MIN, fit(h, [clean_text(r[j], 200) for r in rows])))
              for j, h in enumerate(v.get('labels') or ['line'])]
    texts = [list(ln.get('text') or []) + [''] * 4 for ln in sample]
    totals = [t for t, ln in zip(texts, sample) if ln.get('total')]
    widths.append(fit('Kind', [clean_text(ln.get('kind') or '', 20) for ln in sample]))
    for k, head in enumerate(('Actual', 'Budget', 'Variance', 'Variance %')):
        widths.append(fit(head, [t[k] for t in texts], [t[k] for t in totals]))
    widths.append(fit('Effect', [clean_text(ln.get('effect') or '', 20) for ln in sample]))
    widths.append(fit('Material', ['yes']))
    return widths


def _fit(widths, frame_w, nlabels):
    """Shrink the label columns until the table fits the frame."""
    over = sum(widths) - frame_w
    if over <= 0:
        return widths
    labels = widths[:nlabels]
    room = sum(max(0, w - LABEL_MIN) for w in labels)
    if room <= 0:
        return widths
    k = max(0.0, 1 - over / float(room))
    return [w if w <= LABEL_MIN else LABEL_MIN + (w - LABEL_MIN) * k for w in labels] + widths[nlabels:]


def _table(story, v, lines, left_out, widths, st, colors, counts):
    from reportlab.platypus import LongTable, TableStyle
    from reportlab.lib.styles import ParagraphStyle
    n = len(v.get('labels') or ['line'])
    head = [_para('<b>%s</b>' % _esc(h, 100), st['cell']) for h in (v.get('labels') or ['line'])]
    head += [_para('<b>%s</b>' % h, st['num'] if i in (1, 2, 3, 4) else st['cell'])
             for i, h in enumerate(('Kind', 'Actual', 'Budget', 'Variance', 'Variance %', 'Effect', 'Material'))]
    rows, cmds = [head], [
        ('FONT', (0, 0), (-1, -1), 'Q', FONT_SIZE),
        ('VALIGN', (0, 0), (-1, -1), 'TOP'),
        ('ALIGN', (n + 1, 0), (n + 4, -1), 'RIGHT'),
        ('BACKGROUND', (0, 0), (-1, 0), colors.HexColor('#E7E6E6')),
        ('LINEBELOW', (0, 0), (-1, 0), 0.6, colors.black),
        ('TOPPADDING', (0, 0), (-1, -1), 1.5), ('BOTTOMPADDING', (0, 0), (-1, -1), 1.5),
    ]
    fills = {'better': colors.HexColor('#' + BETTER[0]), 'worse': colors.HexColor('#' + WORSE[0])}
    inks = {'better': colors.HexColor('#' + BETTER[1]), 'worse': colors.HexColor('#' + WORSE[1])}
    red = colors.HexColor('#C00000')
    for i, ln in enumerate(lines, 1):
        total = bool(ln.get('total'))
        labels = line_labels(ln, n)
        style = st['cellb'] if total else st['cell']
        row = [_para(_esc(x), style) for x in labels]
        row.append(clean_text(ln.get('kind') or '', 20))
        for t in (list(ln.get('text') or []) + [''] * 4)[:4]:
            row.append(clean_text(t, 40))
            if t.startswith('('):  # the host's texts: a negative in parentheses
                cmds.append(('TEXTCOLOR', (len(row) - 1, i), (len(row) - 1, i), red))
        eff = clean_text(ln.get('effect') or '', 20)
        row.append(eff)
        row.append('yes' if ln.get('material') else '')
        rows.append(row)
        if eff in fills:
            cmds.append(('BACKGROUND', (n + 3, i), (n + 5, i), fills[eff]))
            cmds.append(('TEXTCOLOR', (n + 5, i), (n + 5, i), inks[eff]))
        if total:
            cmds += [('FONT', (0, i), (-1, i), 'Q-Bold', FONT_SIZE), ('LINEABOVE', (0, i), (-1, i), 0.6, colors.black),
                     ('LINEBELOW', (0, i), (-1, i), 1.2, colors.black)]
    if left_out:
        story.append(_para(_esc(left_out), st['small']))
    t = LongTable(rows, colWidths=widths, repeatRows=1)
    t.setStyle(TableStyle(cmds))
    story.append(t)
    said = v.get('said') or []
    for s in said:
        story.append(_para(_esc(s), st['small']))


def _comparisons(story, v, lines, frame_w, st, colors):
    """The lines against each comparison (budget, forecast, prior year):
    the actual, then each one's amount, variance and percent."""
    from reportlab.platypus import LongTable, TableStyle

    names = list(v.get('comparisons') or [])
    titles = list(v.get('titles') or names)
    n = len(v.get('labels') or ['line'])
    story.append(_para('Against %s' % _esc(', '.join(titles)), st['h']))
    group = [''] * (n + 1)
    head = [_para('<b>%s</b>' % _esc(h, 100), st['cell']) for h in (v.get('labels') or ['line'])]
    head.append(_para('<b>Actual</b>', st['num']))
    for t in titles:
        group += [clean_text(t, 40), '', '']
        head += [_para('<b>%s</b>' % h, st['num']) for h in ('Amount', 'Variance', '%')]
    rows = [group, head]
    cmds = [('FONT', (0, 0), (-1, -1), 'Q', FONT_SIZE - 1), ('VALIGN', (0, 0), (-1, -1), 'TOP'),
            ('FONT', (0, 0), (-1, 0), 'Q-Bold', FONT_SIZE - 1), ('ALIGN', (n, 0), (-1, -1), 'RIGHT'),
            ('BACKGROUND', (0, 1), (-1, 1), colors.HexColor('#E7E6E6')),
            ('LINEBELOW', (0, 1), (-1, 1), 0.6, colors.black),
            ('TOPPADDING', (0, 0), (-1, -1), 1.2), ('BOTTOMPADDING', (0, 0), (-1, -1), 1.2)]
    for k in range(len(titles)):
        cmds.append(('SPAN', (n + 1 + 3 * k, 0), (n + 3 + 3 * k, 0)))
        cmds.append(('ALIGN', (n + 1 + 3 * k, 0), (n + 3 + 3 * k, 0), 'CENTER'))
    red = colors.HexColor('#C00000')
    for i, ln in enumerate(lines, 2):
        total = bool(ln.get('total'))
        row = [_para(_esc(x), st['cellb'] if total else st['cell']) for x in line_labels(ln, n)]
        row.append(clean_text((ln.get('text') or [''])[0], 40))
        texts = ln.get('comp_text') or {}
        for name in names:
            for t in (list(texts.get(name) or []) + [''] * 3)[:3]:
                row.append(clean_text(t, 40))
                if t.startswith('('):
                    cmds.append(('TEXTCOLOR', (len(row) - 1, i), (len(row) - 1, i), red))
        rows.append(row)
        if total:
            cmds += [('FONT', (0, i), (-1, i), 'Q-Bold', FONT_SIZE - 1), ('LINEABOVE', (0, i), (-1, i), 0.6, colors.black)]
    nums = 1 + 3 * len(names)
    num_w = min(frame_w * 0.1, frame_w * 0.75 / nums)
    label_w = (frame_w - num_w * nums) / max(n, 1)
    t = LongTable(rows, colWidths=[label_w] * n + [num_w] * nums, repeatRows=2)
    t.setStyle(TableStyle(cmds))
    story.append(t)


def _analysis(story, a, frame_w, st, colors):
    """An analysis's largest rows as the host formatted them, its Total
    bold, then its first notes."""
    from reportlab.platypus import LongTable, TableStyle
    cols = a.get('columns') or []
    printed = [j for j in a.get('printed') or [] if 0 <= j < len(cols)]
    text = a.get('text') or []
    if not printed or not text:
        return
    numeric = a.get('numeric') or []
    story.append(_para(_esc(a.get('title') or 'Analysis', 200), st['h']))
    if a.get('left_out'):
        story.append(_para(_esc(a['left_out']), st['small']))
    head = [_para('<b>%s</b>' % _esc(cols[j].replace('_', ' '), 60), st['num'] if numeric[j] else st['cell'])
            for j in printed]
    rows, cmds = [head], [('FONT', (0, 0), (-1, -1), 'Q', FONT_SIZE), ('VALIGN', (0, 0), (-1, -1), 'TOP'),
                          ('BACKGROUND', (0, 0), (-1, 0), colors.HexColor('#E7E6E6')),
                          ('LINEBELOW', (0, 0), (-1, 0), 0.6, colors.black),
                          ('TOPPADDING', (0, 0), (-1, -1), 1.5), ('BOTTOMPADDING', (0, 0), (-1, -1), 1.5)]
    red = colors.HexColor('#C00000')
    for i, r in enumerate(text, 1):
        row = []
        for k, j in enumerate(printed):
            t = clean_text(r[k] if k < len(r) else '', 200)
            row.append(t if numeric[j] else _para(_esc(t), st['cell']))
            if numeric[j]:
                cmds.append(('ALIGN', (k, i), (k, i), 'RIGHT'))
                if t.startswith('('):
                    cmds.append(('TEXTCOLOR', (k, i), (k, i), red))
        rows.append(row)
        if r and r[0] == 'Total':
            cmds += [('FONT', (0, i), (-1, i), 'Q-Bold', FONT_SIZE), ('LINEABOVE', (0, i), (-1, i), 0.6, colors.black)]
    nums = sum(1 for j in printed if numeric[j])
    num_w = min(frame_w * 0.14, frame_w * 0.6 / max(nums, 1))
    text_w = (frame_w - num_w * nums) / max(len(printed) - nums, 1)
    t = LongTable(rows, colWidths=[num_w if numeric[j] else text_w for j in printed], repeatRows=1)
    t.setStyle(TableStyle(cmds))
    story.append(t)
    for n in (a.get('notes') or [])[:PDF_MAX_NOTES // 4]:
        story.append(_para('\u2022 ' + _esc(n, 2000), st['small']))


def _chart(story, spec, data, frame_w, frame_h, st):
    ch = spec.get('chart')
    if not ch or not os.path.isfile(os.path.join(data, ch['file'])):
        return
    from reportlab.platypus import Image, KeepTogether, Spacer
    from reportlab.lib.utils import ImageReader
    path = os.path.join(data, ch['file'])
    w, h = ImageReader(path).getSize()
    scale = min(frame_w / float(w), frame_h * 0.7 / float(h))
    story.append(Spacer(1, 8))
    story.append(KeepTogether([_para('Budget to actual', st['h']), Image(path, w * scale, h * scale)]))


def _notes(story, v, st):
    notes = (v or {}).get('notes') or []
    if not notes:
        return
    story.append(_para('How the table was made', st['h']))
    for n in notes[:PDF_MAX_NOTES]:
        story.append(_para('\u2022 ' + _esc(n, 2000), st['small']))
    if len(notes) > PDF_MAX_NOTES:
        story.append(_para(_esc('\u2026 %s more notes in the workbook' % grouped(len(notes) - PDF_MAX_NOTES)), st['small']))


def _sources(story, spec, frame_w, st, colors):
    from reportlab.platypus import Table, TableStyle
    story.append(_para('Sources', st['h']))
    for k, label in (('question', 'Question'), ('model', 'Model'), ('date', 'Date'), ('session', 'Session'),
                     ('rerun_of', 'Rerun of'), ('generated', 'Written')):
        if spec.get(k):
            story.append(_para('<b>%s:</b> %s' % (label, _esc(spec[k], 4000)), st['small']))
    src = spec.get('sources') or {}
    grid = [('FONT', (0, 0), (-1, -1), 'Q', 7), ('VALIGN', (0, 0), (-1, -1), 'TOP'),
            ('LINEBELOW', (0, 0), (-1, 0), 0.5, colors.black), ('TOPPADDING', (0, 0), (-1, -1), 1),
            ('BOTTOMPADDING', (0, 0), (-1, -1), 1)]
    files = src.get('files') or []
    if files:
        rows = [[_para('<b>%s</b>' % h, st['small']) for h in ('File', 'Size', 'SHA-256')]]
        for f in files:
            rows.append([_para(_esc(f.get('name'), 300) + ('<br/>' + _esc(f.get('path'), 500) if f.get('path') else ''),
                               st['small']), _para(_esc(f.get('size_text') or ''), st['small']),
                         _para('<font face="QMono">%s</font>' % _esc(f.get('sha256') or '', 64), st['small'])])
        t = Table(rows, colWidths=[frame_w * 0.45, frame_w * 0.12, frame_w * 0.43], repeatRows=1)
        t.setStyle(TableStyle(grid))
        story.append(t)
    dbs = src.get('databases') or []
    if dbs:
        rows = [[_para('<b>%s</b>' % h, st['small']) for h in ('Database', 'Where (user@host/db)')]]
        rows += [[_para(_esc(d.get('name'), 200), st['small']), _para(_esc(d.get('where'), 500), st['small'])] for d in dbs]
        t = Table(rows, colWidths=[frame_w * 0.3, frame_w * 0.7], repeatRows=1)
        t.setStyle(TableStyle(grid))
        story.append(t)


def _numbered(footer):
    from reportlab.pdfgen import canvas

    class Numbered(canvas.Canvas):
        """Writes 'page N of M' once the pages are counted."""

        def __init__(self, *a, **k):
            canvas.Canvas.__init__(self, *a, **k)
            self._pages = []

        def showPage(self):
            self._pages.append(dict(self.__dict__))
            self._startPage()

        def save(self):
            n = len(self._pages)
            for page in self._pages:
                self.__dict__.update(page)
                self.setFont('Q', 7)
                self.setFillColorRGB(0.35, 0.35, 0.35)
                w, _ = self._pagesize
                self.drawString(42, 24, footer)
                self.drawRightString(w - 42, 24, 'page %d of %d' % (self._pageNumber, n))
                canvas.Canvas.showPage(self)
            canvas.Canvas.save(self)

    return Numbered

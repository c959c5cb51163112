# Text encoding detection for the profiler (sent with profile/front.py as one
# program). A byte-order mark or valid UTF-8 decides at once; otherwise every
# legacy codec an analyst's exports come in is tried strictly and the decoded
# text that reads most like a language wins: letters inside words of one
# script, and typographic punctuation where writing puts it, for the
# single-byte code pages (the rarer DOS and Mac ones must show it in their
# bytes), frequent characters for the CJK ones. The profile shows a sample
# of the text as decoded, and says so when another codec came close.
import codecs
import re
import unicodedata

# Tried in this order; on a tie the earlier one wins. Windows code pages come
# before their ISO subsets because they decode more bytes the same way.
SINGLE_BYTE = (
    'cp1252',
    'cp1250',
    'cp1251',
    'cp1253',
    'cp1254',
    'cp1257',
    'cp1255',
    'cp1256',
    'cp1258',
    'cp850',
    'mac_roman',
    'koi8_r',
)
# Each CJK codec with the byte ranges of its frequent characters (lead byte,
# trail byte): text decoded with the wrong codec lands mostly outside them.
CJK = {
    'cp932': (((0x82, 0x83), (0x40, 0xFC)), ((0x88, 0x98), (0x40, 0xFC)), ((0x81, 0x81), (0x40, 0xFC))),
    'euc_jp': (((0xA4, 0xA5), (0xA1, 0xFE)), ((0xB0, 0xCF), (0xA1, 0xFE)), ((0xA1, 0xA1), (0xA1, 0xFE))),
    'gb18030': (((0xB0, 0xD7), (0xA1, 0xFE)), ((0xA1, 0xA3), (0xA1, 0xFE))),
    'big5': (((0xA4, 0xC6), (0x40, 0xFE)), ((0xA1, 0xA3), (0x40, 0xFE))),
    'cp949': (((0xB0, 0xC8), (0xA1, 0xFE)), ((0xA1, 0xA3), (0xA1, 0xFE))),
}
# How much rarer DOS exports (cp850) are than Windows ones, per non-ASCII
# character: cp1252's quotes and dashes read as DOS letters ("Taxi \u2013
# airport" as "Taxi \xfb airport") score about as well as the punctuation.
# DOS text shows itself by box drawing, or by bytes cp1252 does not define,
# and then pays nothing.
DOS_RARITY = 0.3
# Tried when a codec fails: Microsoft's Big5 adds characters to Big5 (and
# maps a few symbols differently, so plain Big5 goes first).
_SUPERSET = {'big5': 'cp950'}
_SCRIPTS = ('LATIN', 'CYRILLIC', 'GREEK', 'HEBREW', 'ARABIC', 'THAI')


def bom_encoding(head):
    if head.startswith(codecs.BOM_UTF8):
        return 'utf-8-sig'
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)) and len(head) % 4 == 0:
        return 'utf-32'
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return 'utf-16'
    return None


def utf16_without_bom(head):
    """Excel and some databases write UTF-16 without a mark: every other
    byte is NUL for Latin text."""
    b = head[:4096]
    if len(b) < 8:
        return None
    even, odd = b[0::2], b[1::2]
    if odd.count(0) > 0.9 * len(odd) and even.count(0) == 0:
        return 'utf-16-le'
    if even.count(0) > 0.9 * len(even) and odd.count(0) == 0:
        return 'utf-16-be'
    return None


def valid_utf8(chunks):
    for c in chunks:
        try:
            c.decode('utf-8')
        except UnicodeDecodeError:
            return False
    return True


def trim_partial(b):
    """Cuts a sample at its last line break, so a multibyte character split
    by the sample's end does not count against a codec."""
    i = b.rfind(b'\n')
    return b[: i + 1] if i > 0 else b


def detect_encoding(chunks):
    """(codec, strict) for a text file from samples of its bytes (the first
    from the start of the file; each ends on a line break unless it is the
    whole file). strict is False when no codec decodes every sample: the
    read then has to replace the bytes that do not decode."""
    enc = bom_encoding(chunks[0]) or utf16_without_bom(chunks[0])
    if enc:
        return enc, True
    if valid_utf8(chunks):
        return 'utf-8', True
    data = b'\n'.join(chunks)
    dos = bool(_DOS_BYTES.search(data))
    for errors in ('strict', 'replace'):
        best, best_score = None, None
        for i, cand in enumerate(SINGLE_BYTE + tuple(CJK)):
            try:
                text = data.decode(cand, errors)
            except UnicodeDecodeError:
                if cand in _SUPERSET:
                    cand = _SUPERSET[cand]
                    try:
                        text = data.decode(cand, errors)
                    except UnicodeDecodeError:
                        continue
                    score = plausibility(text, 'big5') - 0.002 * i
                    if best_score is None or score > best_score:
                        best, best_score = cand, score
                    continue
                if cand != 'cp1252' or errors != 'strict':
                    continue
                # Five bytes cp1252 leaves undefined; latin-1 reads them (as
                # controls) and every other byte alike.
                try:
                    text = data.translate(None, _CP1252_HOLES).decode(cand)
                except UnicodeDecodeError:
                    continue
                cand = 'latin-1'
            score = plausibility(text, cand) - 0.002 * i
            if cand == 'cp850' and not (dos or _BOX_RUN.search(text)):
                score -= DOS_RARITY
            if best_score is None or score > best_score:
                best, best_score = cand, score
        if best:
            return best, errors == 'strict'
    return 'latin-1', True


# Bytes cp1252 leaves undefined, which DOS code pages use for letters
# (\x81 is cp850's \xfc).
_DOS_BYTES = re.compile(rb'[\x81\x8d\x8f\x90\x9d]')
# Box drawing as DOS reports draw it: three characters in a row.
_BOX_RUN = re.compile('[\u2500-\u259f]{3}')


_CP1252_HOLES = b'\x81\x8d\x8f\x90\x9d'


def plausibility(text, codec):
    """How much text looks like writing, per non-ASCII character: about +1
    where a language would put it, negative for controls, symbols inside
    words and words that mix scripts."""
    total = sum(1 for c in text if c >= '\x80')
    if not total:
        return 0.0
    ranges = CJK.get(codec)
    if ranges is not None:
        return _cjk_score(text, codec, ranges) / total
    score = 0.0
    for m in _WORD.finditer(text):
        w = m.group()
        if w.isascii():
            continue
        score += _word_score(w)
    for m in _NON_WORD.finditer(text):
        c = m.group()
        if c.isalpha():
            continue
        i = m.start()
        cat = unicodedata.category(c)
        if cat[0] == 'C' or c == '\ufffd':
            score -= 2
        else:
            score += _symbol_score(c, text[i - 1] if i else ' ', text[i + 1] if i + 1 < len(text) else ' ')
    return score / total


def _symbol_score(c, prev, nxt):
    """A non-ASCII symbol between prev and nxt: +1 where writing puts it
    (quotes around words, an apostrophe inside one, a dash between blanks or
    digits, currency by a number, box drawing in a frame), -1 inside a word,
    else +0.5."""
    if c in _APOSTROPHES and prev.isalpha() and nxt.isalpha():
        return 1  # O\u2019Brien, don\u2019t
    if prev.isalpha() and nxt.isalpha():
        return -1  # a symbol inside a word: "Stra\xa4e", "\xd6\xd0\xb9\xfa"
    if c in _OPENING and not prev.isalnum() and (nxt.isalnum() or c in '\xab\u2039' and nxt == ' '):
        return 1
    if c in _CLOSING and (prev.isalnum() or prev in '.!?)' or c in '\xbb\u203a' and prev == ' ') and not nxt.isalnum():
        return 1
    if c in '\u2013\u2014' and (prev.isspace() and nxt.isspace() or prev.isdigit() and nxt.isdigit()):
        return 1
    if c == '\u2026' and not nxt.isalnum():
        return 1
    if c in '\u20ac\xa3\xa5' and (prev.isdigit() or nxt.isdigit() or prev.isspace() and nxt.isspace()):
        return 1
    if (
        '\u2500' <= c <= '\u259f'
        and (prev == ' ' or '\u2500' <= prev <= '\u259f' or prev == '\n')
        and (nxt in ' \n' or '\u2500' <= nxt <= '\u259f')
    ):
        return 1
    return 0.5


_APOSTROPHES = '\u2019'
_OPENING = '\u201c\u2018\u201e\u201a\xab\u2039\xbf\xa1'
_CLOSING = '\u201d\u2019\xbb\u203a\u201c'  # \u201c closes German quotes


_WORD = re.compile(r'[^\W\d_]+')
_REPEATED = re.compile(r'([^\x00-\x7f])\1\1')
# Accented letters that are words by themselves (French \xe0, Spanish and
# Portuguese \xe9, Swedish \xe5 and \xf6, ...); another alone is rare.
_ONE_LETTER_WORDS = set('\xe0\xe1\xe8\xe9\xed\xf3\xf2\xfa\xf9\xe5\xf6')
_NON_WORD = re.compile(r'[^\x00-\x7f]', re.UNICODE)


def _word_score(w):
    """Non-ASCII letters of one word: one script, a plausible case pattern,
    and for Latin script mostly ASCII letters around the accented ones."""
    rare = [c for c in w if c >= '\x80']
    scripts = {_script(c) for c in w}
    if len(scripts) > 1:
        return -1.0 * len(rare)
    if _REPEATED.search(w):
        return -1.0 * len(rare)  # "\xc4\xc4\xc4\xc4": a frame of box drawing read as letters
    if len(w) == 1 and w not in _ONE_LETTER_WORDS:
        return 0.5  # "Taxi \xfb airport": cp1252's dash read as a DOS letter
    per = 1.0
    if scripts == {'LATIN'} and len(w) >= 3 and len(rare) * 2 > len(w):
        per = 0.2  # "\xcf\xf0\xe8\xe2\xe5\xf2" is Cyrillic read as Latin
    if _odd_case(w):
        per -= 0.5
    return per * len(rare)


def _odd_case(w):
    """A case pattern words do not have: a capital after a small letter
    ("\xf4Dublin"), or an accented capital between a capital and a small
    letter ("M\u0178ller": Mac Roman's \xfc read as cp1252)."""
    for i, (a, b) in enumerate(zip(w, w[1:])):
        if a.islower() and b.isupper():
            return True
        if a.isupper() and b.isupper() and b >= '\x80' and i + 2 < len(w) and w[i + 2].islower():
            return True
    return False


def _script(c):
    try:
        name = unicodedata.name(c)
    except ValueError:
        return None
    w = name.split(' ', 1)[0]
    return w if w in _SCRIPTS else None


def _cjk_score(text, codec, ranges):
    seen = {}
    score = 0.0
    for m in _NON_WORD.finditer(text):
        c = m.group()
        v = seen.get(c)
        if v is None:
            v = seen[c] = _cjk_weight(c, codec, ranges)
        i = m.start()
        if (
            0 < i < len(text) - 1
            and text[i - 1].isascii()
            and text[i - 1].isalpha()
            and text[i + 1].isascii()
            and text[i + 1].isalpha()
        ):
            v = -1  # "K\u7f75n": a Latin word's letters read as a pair
        score += v
    return score


def _cjk_weight(c, codec, ranges):
    o = ord(c)
    if unicodedata.category(c)[0] == 'C':
        return -2
    if 0xFF61 <= o <= 0xFF9F:
        return 0.2  # half-width katakana: real in old systems, common in mojibake
    try:
        b = c.encode(codec)
    except UnicodeEncodeError:
        return 0
    if len(b) != 2:
        return 0.3 if unicodedata.category(c)[0] == 'L' else 0
    for (l0, l1), (t0, t1) in ranges:
        if l0 <= b[0] <= l1 and t0 <= b[1] <= t1:
            # Korean text is nearly all common Hangul, which its bytes also
            # spell as common hanzi or kanji: the syllables break the tie.
            return 1.1 if 0xAC00 <= o <= 0xD7A3 else 1
    return 0.3


SAMPLE_CHARS = 160  # of decoded non-ASCII text in the profile
SAMPLE_CELL = 40


def decoded_cells(chunks, codec, delim):
    """The distinct cells holding non-ASCII characters, as codec reads them
    (each clipped around its first such character), in file order."""
    import re as _re

    split = _re.compile(_re.escape(delim) if len(delim) == 1 else r'\s{2,}|\t')
    seen = []
    for chunk in chunks:
        for line in chunk.decode(codec, errors='replace').splitlines():
            if line.isascii():
                continue
            for cell in split.split(line):
                cell = cell.strip().strip('"').strip()
                if cell.isascii() or cell in seen:
                    continue
                if len(cell) > SAMPLE_CELL:
                    i = next(j for j, c in enumerate(cell) if c >= '\x80')
                    lo = max(0, min(i - SAMPLE_CELL // 3, len(cell) - SAMPLE_CELL))
                    cell = ('\u2026' if lo else '') + cell[lo : lo + SAMPLE_CELL] + '\u2026'
                seen.append(cell)
                if sum(len(c) + 3 for c in seen) >= SAMPLE_CHARS:
                    return seen
    return seen


def encoding_sample(chunks, codec, delim):
    """A sample of the file's non-ASCII text as codec decodes it, so the
    model and the user see whether it reads right: "Ó Súilleabháin · €42"."""
    return ' · '.join(decoded_cells(chunks, codec, delim))

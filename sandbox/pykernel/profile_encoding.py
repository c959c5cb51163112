# Text encoding detection for the profiler (sent with profile.py as one
# program). A byte-order mark or valid UTF-8 decides at once; otherwise every
# legacy codec an analyst's exports come in is tried strictly and the decoded
# text that reads most like a language wins: letters inside words of one
# script for the single-byte code pages, frequent characters for the CJK ones.
import codecs
import re
import unicodedata

# Tried in this order; on a tie the earlier one wins. Windows code pages come
# before their ISO subsets because they decode more bytes the same way.
SINGLE_BYTE = ('cp1252', 'cp1250', 'cp1251', 'cp1253', 'cp1254', 'cp1257',
               'cp1255', 'cp1256', 'cp1258', 'cp850', 'mac_roman', 'koi8_r')
# Each CJK codec with the byte ranges of its frequent characters (lead byte,
# trail byte): text decoded with the wrong codec lands mostly outside them.
CJK = {
    'cp932': (((0x82, 0x83), (0x40, 0xFC)), ((0x88, 0x98), (0x40, 0xFC)), ((0x81, 0x81), (0x40, 0xFC))),
    'euc_jp': (((0xA4, 0xA5), (0xA1, 0xFE)), ((0xB0, 0xCF), (0xA1, 0xFE)), ((0xA1, 0xA1), (0xA1, 0xFE))),
    'gb18030': (((0xB0, 0xD7), (0xA1, 0xFE)), ((0xA1, 0xA3), (0xA1, 0xFE))),
    'big5': (((0xA4, 0xC6), (0x40, 0xFE)), ((0xA1, 0xA3), (0x40, 0xFE))),
    'cp949': (((0xB0, 0xC8), (0xA1, 0xFE)), ((0xA1, 0xA3), (0xA1, 0xFE))),
}
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
    return b[:i + 1] if i > 0 else b


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
            if best_score is None or score > best_score:
                best, best_score = cand, score
        if best:
            return best, errors == 'strict'
    return 'latin-1', True


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
        elif 0 < i < len(text) - 1 and text[i - 1].isalpha() and text[i + 1].isalpha():
            score -= 1  # a symbol inside a word: "Stra\xa4e", "\xd6\xd0\xb9\xfa"
        else:
            score += 0.5
    return score / total


_WORD = re.compile(r'[^\W\d_]+')
_NON_WORD = re.compile(r'[^\x00-\x7f]', re.UNICODE)


def _word_score(w):
    """Non-ASCII letters of one word: one script, a plausible case pattern,
    and for Latin script mostly ASCII letters around the accented ones."""
    rare = [c for c in w if c >= '\x80']
    scripts = {_script(c) for c in w}
    if len(scripts) > 1:
        return -1.0 * len(rare)
    per = 1.0
    if scripts == {'LATIN'} and len(w) >= 3 and len(rare) * 2 > len(w):
        per = 0.2  # "\xcf\xf0\xe8\xe2\xe5\xf2" is Cyrillic read as Latin
    for a, b in zip(w, w[1:]):
        if a.islower() and b.isupper():
            per -= 0.5
            break
    return per * len(rare)


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
    for c in text:
        if c < '\x80':
            continue
        v = seen.get(c)
        if v is None:
            v = seen[c] = _cjk_weight(c, codec, ranges)
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

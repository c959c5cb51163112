"""Dialects: the delimiter, comment lines and year headers (moved from the
Go side's sandbox/edges_dialect_test.go, cases kept)."""

import pytest


def gen(header, row):
    return header + '\n' + ''.join(row(i) + '\n' for i in range(40))


# Values full of '-', '/', ':' and '.' (dates, times, IDs, versions, IP
# addresses) must not be taken for the delimiter: the one that separates
# fields consistently, once quotes and skipinitialspace are respected, wins.
PUNCTUATION = [
    (
        'iso-dates-comma-space.csv',
        gen(
            '"Date", "Account", "Description", "Amount", "Currency"',
            lambda i: '2024-03-%02d, %d, "Sales, domestic", "12,%03d.00", EUR' % (i % 28 + 1, 4400 + i % 3, i),
        ),
        ',',
        5,
        "(_df.iloc[3, 2], float(_df['Amount'].sum()), str(_df['Currency'].iloc[0]))",
        "('Sales, domestic', %.1f, 'EUR')" % (40 * 12000.0 + 780),
    ),
    (
        'slashed-dates-times.csv',
        gen(
            '"When", "At", "Host", "Value"',
            lambda i: '03/%02d/2024, 12:%02d:33, "srv-%d.example.org", "1,%03d.5"' % (i % 28 + 1, i, i, i),
        ),
        ',',
        4,
        "(_df.iloc[1, 2], float(_df['Value'].sum()))",
        "('srv-1.example.org', %.1f)" % (40 * 1000.5 + 780),
    ),
    (
        'ids-and-times.txt',
        gen(
            'id;started;version;ip;ms',
            lambda i: 'AB-%d-%03d/7;2024-01-01T10:%02d:00.250;1.%d.3;10.0.%d.%d;%d' % (i, i, i, i, i % 7, i, i * 10),
        ),
        ';',
        5,
        "(_df.iloc[2, 0], int(_df['ms'].sum()))",
        "('AB-2-002/7', 7800)",
    ),
    (
        'times-tab.tsv',
        gen('from\tto\tlabel', lambda i: '08:%02d:00\t17:%02d:30\tshift-%d/a' % (i, i, i)),
        '\t',
        3,
        '(_df.iloc[5, 2], _df.shape)',
        "('shift-5/a', (40, 3))",
    ),
    # No header to tell the widths apart: '-', ':' and '.' split every line
    # into as many fields as ',' does.
    (
        'headerless-dates.csv',
        gen('2024-02-29,7', lambda i: '2024-03-%02d,%d' % (i % 28 + 1, i)),
        ',',
        2,
        '(_df.shape, int(_df[1].sum()))',
        '((41, 2), 787)',
    ),  # 7 + 0 + … + 39
    (
        'headerless-times.csv',
        gen('11:59:00,7', lambda i: '12:%02d:00,%d' % (i, i)),
        ',',
        2,
        '(_df.shape, int(_df[1].sum()))',
        '((41, 2), 787)',
    ),
    (
        'headerless-dotted-dates.csv',
        gen('29.02.2024,7', lambda i: '%02d.03.2024,%d' % (i % 28 + 1, i)),
        ',',
        2,
        '(_df.shape, int(_df[1].sum()))',
        '((41, 2), 787)',
    ),
]


@pytest.mark.parametrize(
    ('name', 'text', 'delim', 'cols', 'probe', 'want'), PUNCTUATION, ids=[c[0] for c in PUNCTUATION]
)
def test_punctuation_inside_values_is_not_the_delimiter(profile_file, name, text, delim, cols, probe, want):
    p = profile_file(name, text)
    rows = 41 if name.startswith('headerless') else 40
    got = (p.profile.get('delimiter'), len(p.profile['columns']), p.profile['rows'])
    assert got == (delim, cols, rows), p.profile['read']
    assert p.probe(probe) == want


def rows(start, n):
    return ''.join(
        '%d,Region %s,%d.5,2024-01-%02d\n' % (start + i, chr(ord('A') + i % 3), i * 10, i + 1) for i in range(n)
    )


# '#' comment lines above the header and between groups of rows, some
# holding the delimiter: the header is the real one and no row is lost.
COMMENTS = [
    (
        'comments-with-commas.csv',
        '# exported by LedgerTool 4.2, build 17\n# period: 2024-01-01 to 2024-01-31, all, regions, here\n#\n'
        'id,region,amount,day\n'
        + rows(0, 10)
        + '# group B, second half, of, the, month\n'
        + rows(100, 10)
        + '\n# group C\n'
        + rows(200, 5),
        25,
        "(list(_df.columns), int(_df['id'].sum()), _df['amount'].dtype.name)",
        "(['id', 'region', 'amount', 'day'], 2100, 'float64')",
    ),  # ids 0-9, 100-109, 200-204
    (
        'hash-codes-in-data.csv',
        'id;tag;v\n' + '1;#7;2\n' * 10 + '# a comment; with; semicolons\n' + '3;#9;4\n' * 10,
        20,
        "(list(_df.columns), int(_df['v'].sum()), _df['tag'].iloc[0])",
        "(['id', 'tag', 'v'], 60, '#7')",
    ),
    (
        'commented-header.csv',
        '#id,region,amount,day\n' + rows(0, 12),
        12,
        "(list(_df.columns), int(_df['#id'].sum()))",
        "(['#id', 'region', 'amount', 'day'], 66)",
    ),
]


@pytest.mark.parametrize(('name', 'text', 'nrows', 'probe', 'want'), COMMENTS, ids=[c[0] for c in COMMENTS])
def test_comment_lines_keep_the_header_and_every_row(profile_file, name, text, nrows, probe, want):
    p = profile_file(name, text)
    assert p.profile['rows'] == nrows
    assert p.probe(probe) == want, p.profile.get('notes')


# Two years beside a name are column labels ('Region, 2023, 2024'), in a
# CSV and in a sheet; years over columns of years are data.
def test_two_years_beside_a_name_are_labels(profile_file):
    p = profile_file('regions.csv', 'Region,2023,2024\nNorth,100,200\nSouth,101,201\nEast,102,202\nWest,103,203\n')
    assert (p.profile['header_row'], p.profile['rows']) == (0, 4)
    assert p.probe("(list(_df.columns), int(_df['2024'].sum()))") == "(['Region', '2023', '2024'], 806)"


def test_years_over_years_are_data(profile_file):
    p = profile_file('composers.csv', 'Bach,1685,1750\nMozart,1756,1791\nHaydn,1732,1809\nBrahms,1833,1897\n')
    assert (p.profile['header_row'], p.profile['rows']) == (-1, 4)


def test_year_labels_in_a_sheet(profile_file, tmp_path):
    import io

    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws['A1'] = 'Sales by region'
    for j, h in enumerate(['Region', 2023, 2024]):
        ws.cell(3, 2 + j, h)
    for i, r in enumerate(['North', 'South', 'East', 'West']):
        for j, v in enumerate([r, 100 + i, 200 + i]):
            ws.cell(4 + i, 2 + j, v)
    buf = io.BytesIO()
    wb.save(buf)
    p = profile_file('regions.xlsx', buf.getvalue())
    assert (p.profile['header_row'], p.profile['rows']) == (2, 4)
    assert p.probe('(list(_df.columns), int(_df[2024].sum()))') == "(['Region', 2023, 2024], 806)"

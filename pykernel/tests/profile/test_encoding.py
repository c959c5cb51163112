"""Single-byte exports, each written in its code page by Python's own codec
(moved from the Go side's sandbox/edges_encoding_test.go, cases kept): the
profile must read their text right, not only their shape (a wrong code page
gives the same rows and columns with garbled text), and show a sample of it
as decoded, so a wrong guess cannot pass unseen."""

import pytest

CASES = [
    (
        'irish_cp1252.csv',
        'cp1252',
        'date;description;amount\n2024-03-01;Taxi – airport “Dublin T2”;€42,50\n'
        '2024-03-02;Hotel … Ó Súilleabháin’s B&B;€120,00\n2024-03-03;Lunch — Seán Ó Briain;€18,20\n',
        'description',
        ['Taxi – airport “Dublin T2”', 'Hotel … Ó Súilleabháin’s B&B', 'Lunch — Seán Ó Briain'],
        'Taxi – airport “Dublin T2”',
    ),
    (
        'dashes_cp1252.csv',
        'cp1252',
        'id;desc\n1;Taxi – airport “Dublin T2”\n2;Fee — 3 €\n3;10 – 12\n',
        'desc',
        ['Taxi – airport “Dublin T2”', 'Fee — 3 €', '10 – 12'],
        'Fee — 3 €',
    ),
    (
        'names_cp1250.csv',
        'cp1250',
        'miasto;nazwa;kwota\nŁódź;Zażółć gęślą jaźń;12,50\nKraków;Příliš žluťoučký kůň;3,00\nGdańsk;Świnoujście;7,10\n',
        'nazwa',
        ['Zażółć gęślą jaźń', 'Příliš žluťoučký kůň', 'Świnoujście'],
        'Łódź',
    ),
    (
        'cities_latin1.csv',
        'latin-1',
        'ciudad,nota\nMálaga,Córdoba\nSão João,ação\nZürich,Genève\n',
        'ciudad',
        ['Málaga', 'São João', 'Zürich'],
        'São João',
    ),
    (
        'report_cp850.txt',
        'cp850',
        '═══════════════════════════════\n Umsatzliste Filiale Köln\n═══════════════════════════════\n'
        'Kunde;Ort;Betrag\nMüller;Düsseldorf;12,50\nGröße & Söhne;Köln;3,00\nBäckerei Ärger;Öhringen;7,10\n',
        'Kunde',
        ['Müller', 'Größe & Söhne', 'Bäckerei Ärger'],
        'Größe & Söhne',
    ),
    (
        'cities_koi8r.csv',
        'koi8_r',
        'город;сумма\nМосква;12,50\nСанкт-Петербург;3,00\nНовосибирск;7,10\n',
        'город',
        ['Москва', 'Санкт-Петербург', 'Новосибирск'],
        'Санкт-Петербург',
    ),
]


@pytest.mark.parametrize(('name', 'codec', 'text', 'col', 'want', 'sample'), CASES, ids=[c[0] for c in CASES])
def test_single_byte_exports_read_as_written(profile_file, name, codec, text, col, want, sample):
    p = profile_file(name, text.encode(codec))
    assert p.read()[col].tolist() == want, p.profile.get('encoding')
    assert sample in p.profile.get('encoding_sample', ''), p.profile.get('encoding')

package sandbox_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/kernel"
)

// Single-byte exports, each written in its code page by Python's own
// codec: the profile must read their text right, not only their shape (a
// wrong code page gives the same rows and columns with garbled text), and
// show a sample of it as decoded, so a wrong guess cannot pass unseen.
func TestProfileSingleByteExports(t *testing.T) {
	s := sharedSession(t)
	cases := []struct {
		name, codec, text string
		col               string   // a text column, read with the profile's call ...
		want              []string // ... must hold exactly these values
		sample            string   // a piece of the profile's encoding sample
	}{
		{"irish_cp1252.csv", "cp1252",
			"date;description;amount\n2024-03-01;Taxi – airport “Dublin T2”;€42,50\n" +
				"2024-03-02;Hotel … Ó Súilleabháin’s B&B;€120,00\n2024-03-03;Lunch — Seán Ó Briain;€18,20\n",
			"description", []string{"Taxi – airport “Dublin T2”", "Hotel … Ó Súilleabháin’s B&B", "Lunch — Seán Ó Briain"},
			"Taxi – airport “Dublin T2”"},
		{"dashes_cp1252.csv", "cp1252", "id;desc\n1;Taxi – airport “Dublin T2”\n2;Fee — 3 €\n3;10 – 12\n",
			"desc", []string{"Taxi – airport “Dublin T2”", "Fee — 3 €", "10 – 12"}, "Fee — 3 €"},
		{"names_cp1250.csv", "cp1250",
			"miasto;nazwa;kwota\nŁódź;Zażółć gęślą jaźń;12,50\nKraków;Příliš žluťoučký kůň;3,00\nGdańsk;Świnoujście;7,10\n",
			"nazwa", []string{"Zażółć gęślą jaźń", "Příliš žluťoučký kůň", "Świnoujście"}, "Łódź"},
		{"cities_latin1.csv", "latin-1", "ciudad,nota\nMálaga,Córdoba\nSão João,ação\nZürich,Genève\n",
			"ciudad", []string{"Málaga", "São João", "Zürich"}, "São João"},
		{"report_cp850.txt", "cp850",
			"═══════════════════════════════\n Umsatzliste Filiale Köln\n═══════════════════════════════\n" +
				"Kunde;Ort;Betrag\nMüller;Düsseldorf;12,50\nGröße & Söhne;Köln;3,00\nBäckerei Ärger;Öhringen;7,10\n",
			"Kunde", []string{"Müller", "Größe & Söhne", "Bäckerei Ärger"}, "Größe & Söhne"},
		{"cities_koi8r.csv", "koi8_r", "город;сумма\nМосква;12,50\nСанкт-Петербург;3,00\nНовосибирск;7,10\n",
			"город", []string{"Москва", "Санкт-Петербург", "Новосибирск"}, "Санкт-Петербург"},
	}
	files := map[string][2]string{}
	for _, c := range cases {
		files[c.name] = [2]string{c.codec, c.text}
	}
	spec, _ := json.Marshal(files) // a JSON object is a Python literal here
	made := makeInSandbox(t, s, "import os\nos.makedirs('/output/enc', exist_ok=True)\n"+
		"for _n, (_c, _t) in "+string(spec)+".items():\n    open('/output/enc/' + _n, 'wb').write(_t.encode(_c))\n")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			host, ok := made["enc/"+c.name]
			if !ok {
				t.Fatalf("not made: %v", made)
			}
			p, err := s.AddFile(t.Context(), host)
			if err != nil || p.Error != "" {
				t.Fatalf("attach: %v, profile error %q", err, p.Error)
			}
			call := p.Read.Python(p.Path)
			t.Logf("%s: %s", p.Encoding, p.EncodingSample)
			if call == "" {
				t.Fatalf("no read call: %+v", p)
			}
			res := cell(t, s, "import json\nprint(json.dumps("+call+"["+kernel.PyString(c.col)+"].tolist()))")
			cellOK(t, res)
			var got []string
			if err := json.Unmarshal([]byte(strings.TrimSpace(res.Stdout)), &got); err != nil || strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("encoding %s: %s reads %s, want %q", p.Encoding, call, res.Stdout, c.want)
			}
			if !strings.Contains(p.EncodingSample, c.sample) {
				t.Errorf("encoding %s: sample %q, want it to show %q", p.Encoding, p.EncodingSample, c.sample)
			}
		})
	}
}

package sandbox_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
)

// messyFiles writes exports in the manner of bank, ERP and statistics
// systems (German, French, Japanese, Chinese, Korean; SAP-style footers,
// totals rows, Excel title blocks) with the image's Python, so the encodings
// are the real codecs. None of them is in the shared corpus: they keep the
// profiler honest about principles rather than about known files.
const messyFiles = `import os, openpyxl
os.makedirs('/output/messy', exist_ok=True)
def w(name, text, enc):
    with open('/output/messy/' + name, 'wb') as f:
        f.write(text.encode(enc))

de = ['Müller GmbH', 'Bäckerei Öztürk', 'Schäfer & Söhne', 'Großhandel Weiß', 'Kühne + Nagel']
w('kontoauszug.csv', 'Kontoauszug Girokonto\nKonto: DE12 3456 7890;Zeitraum: 01.01.2024 - 31.03.2024\n\n'
  'Buchungstag;Valuta;Empfänger;Verwendungszweck;Betrag (EUR)\n' +
  ''.join('%02d.01.2024;%02d.01.2024;%s;Rechnung %d;%s\n' % (i + 1, i + 2, de[i % 5], 1000 + i,
          ('-' if i % 3 else '') + '{:,.2f}'.format(1234.5 * (i + 1)).replace(',', 'X').replace('.', ',').replace('X', '.'))
          for i in range(12)) +
  '\nSumme;;;;-12.345,67\nErstellt am 02.04.2024 09:15\n', 'cp1252')

w('sap_belege.txt', 'Belegliste Buchungskreis 1000\nStichtag 31.12.2023\n\n'
  'Belegdatum\tBelegnr\tKonto\tKostenstelle\tText\tBetrag\n' +
  ''.join('%02d.12.2023\t%d\t%d\tKST%03d\tWareneingang %s\t%s\n' % (i + 1, 4900000 + i, 400000 + i % 4, i % 7, de[i % 5],
          '{:,.2f}'.format(99.5 * (i + 1)).replace(',', 'X').replace('.', ',').replace('X', '.')) for i in range(20)) +
  '*\t\t\tSumme\t\t20.895,00\n**\tAnzahl Posten: 20\n', 'cp1252')

fr = ['Prélèvement EDF', 'Virement reçu Société Générale', 'Carte Café de la Gare', 'Frais de tenue', 'Chèque n°1234']
w('releve_banque.csv', 'Relevé de compte;;;\nCompte courant n° 0001234567;;;\n;;;\n'
  'Date opération;Libellé;Débit;Crédit\n' +
  ''.join('%02d/02/2024;%s;%s;\n' % (i + 1, fr[i % 5], '{:,.2f}'.format(1100.25 + i).replace(',', ' ').replace('.', ','))
          for i in range(15)) +
  ';;;\nTotal des opérations;;16 803,75;0,00\n', 'cp1252')

ja = ['振込　カブシキガイシャトウキョウ', 'ＡＴＭ引出し', '給与　株式会社東京商事', '電気料金　東京電力', 'カード利用　セブンイレブン']
w('nyushukkin.csv', '入出金明細,,,\n口座番号：1234567,,,\n'
  '取引日,摘要,お支払金額,お預り金額\n' +
  ''.join('2024/03/%02d,%s,"%s",\n' % (i + 1, ja[i % 5], '{:,}'.format(1500 * (i + 1))) for i in range(10)) +
  '合計,,"82,500",\n', 'cp932')

zh = ['支付货款 上海华东贸易有限公司', '收到销售回款 北京中关村科技', '银行手续费', '员工报销 差旅费', '增值税 进项税额']
w('pingzheng.csv', '凭证日期,凭证号,科目名称,摘要,借方金额,贷方金额\n' +
  ''.join('2024-04-%02d,记-%03d,应付账款,%s,%.2f,\n' % (i + 1, i + 1, zh[i % 5], 800.5 * (i + 1)) for i in range(14)) +
  ',,,合计,84052.50,\n', 'gbk')

tw = ['台北市東區貿易有限公司', '新竹科學園區科技股份有限公司', '高雄港務局', '臺中市政府', '花蓮縣農會']
w('shoukuan.tsv', '日期\t客戶名稱\t發票號碼\t金額\n' +
  ''.join('2024/05/%02d\t%s\tAB%08d\t%d\n' % (i + 1, tw[i % 5], 12345678 + i, 3200 * (i + 1)) for i in range(9)), 'big5')

ko = ['서울상사', '부산물산', '대구전자', '인천항운', '광주식품']
w('georae.csv', '거래일자;거래처;품목;수량;금액\n' +
  ''.join('2024-06-%02d;%s;부품 %d;%d;%d\n' % (i + 1, ko[i % 5], i, i + 1, 5000 * (i + 1)) for i in range(8)), 'cp949')

w('umsatz_total.csv', 'Region;Q1;Q2;Q3;Q4\nNord;1.200,50;1.300,00;1.250,25;1.400,75\nSüd;2.200,00;2.100,50;2.300,00;2.400,00\n'
  'Ost;900,00;950,25;1.000,00;1.050,50\nTotal;4.300,50;4.350,75;4.550,25;4.851,25\n', 'utf-8-sig')

wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Bericht'
ws['A1'] = 'Umsatzbericht 2024'
ws['A2'] = 'Stand: 31.12.2024'
ws.append([])
ws.append(['Filiale', 'Monat', 'Umsatz', 'Kosten'])
for i in range(18):
    ws.append(['Filiale %d' % (i % 6 + 1), '2024-%02d' % (i % 12 + 1), 1000.0 + 10 * i, 400.0 + i])
ws.append([])
ws.append(['Quelle: Controlling, vorläufige Zahlen'])
hidden = wb.create_sheet('Stammdaten')
hidden.append(['Filiale', 'Leiter'])
hidden.append(['Filiale 1', 'Frau Schmidt'])
hidden.sheet_state = 'hidden'
wb.save('/output/messy/umsatzbericht.xlsx')
`

// messyCase is what a fixture must read as: shape, one cell, and the sum of
// one column (the totals and footers left out, or the total row kept).
type messyCase struct {
	name       string
	rows, cols int
	row, col   int
	want       string // repr of the cell
	sumCol     int
	sum        string // repr of round(sum, 2)
}

func TestProfileMessyExports(t *testing.T) {
	s := sharedSession(t)
	files := makeInSandbox(t, s, messyFiles)
	cases := []messyCase{
		{"messy/kontoauszug.csv", 12, 5, 1, 2, "'Bäckerei Öztürk'", 4, "-41973.0"},
		{"messy/sap_belege.txt", 20, 6, 0, 4, "'Wareneingang Müller GmbH'", 5, "20895.0"},
		{"messy/releve_banque.csv", 15, 4, 1, 1, "'Virement reçu Société Générale'", 2, "16608.75"},
		{"messy/nyushukkin.csv", 10, 4, 2, 1, `'給与\u3000株式会社東京商事'`, 2, "82500.0"},
		{"messy/pingzheng.csv", 14, 6, 0, 3, "'支付货款 上海华东贸易有限公司'", 4, "84052.5"},
		{"messy/shoukuan.tsv", 9, 4, 1, 1, "'新竹科學園區科技股份有限公司'", 3, "144000.0"},
		{"messy/georae.csv", 8, 5, 0, 1, "'서울상사'", 4, "180000.0"},
		{"messy/umsatz_total.csv", 4, 5, 3, 0, "'Total'", 1, "8601.0"},
		{"messy/umsatzbericht.xlsx", 18, 4, 0, 0, "'Filiale 1'", 2, "19530.0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			host, ok := files[c.name]
			if !ok {
				t.Fatalf("%s was not made", c.name)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			p, err := s.AddFile(ctx, host)
			if err != nil {
				t.Fatal(err)
			}
			call := p.Read.Python(p.Path)
			if p.Error != "" || call == "" {
				t.Fatalf("profile error %q, call %q", p.Error, call)
			}
			res := cell(t, s, fmt.Sprintf("_df = %s\n(_df.shape, _df.iloc[%d, %d], round(float(_df.iloc[:, %d].sum()), 2))",
				call, c.row, c.col, c.sumCol))
			cellOK(t, res)
			want := fmt.Sprintf("((%d, %d), %s, %s)", c.rows, c.cols, c.want, c.sum)
			if res.Value.Repr != want {
				t.Errorf("%s\n got  %s\n want %s\n notes %q", call, res.Value.Repr, want, p.Notes)
			}
			if c.name == "messy/umsatzbericht.xlsx" && (len(p.Sheets) != 2 || p.Sheets[1].State != "hidden") {
				t.Errorf("sheets %+v: want the hidden one flagged", p.Sheets)
			}
			if c.name == "messy/umsatz_total.csv" && !hasNote(p, "totals") {
				t.Errorf("a kept totals row is not pointed out: %q", p.Notes)
			}
		})
	}
}

func hasNote(p kernel.Profile, word string) bool {
	for _, n := range p.Notes {
		if contains := len(n) > 0 && containsFold(n, word); contains {
			return true
		}
	}
	return false
}

func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

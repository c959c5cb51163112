package sandboxtest

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
)

// Ledger is what WriteLedger knows about the file it wrote: the answers a
// query over it must give, in cents so they are exact.
type Ledger struct {
	Path       string
	Rows       int64
	Bytes      int64
	TotalCents int64
	ByAccount  map[int]int64 // account -> sum of amount_eur in cents
}

// The columns of a general-ledger export; amount_eur has two decimals.
const LedgerHeader = "posting_date,document_number,account,cost_centre,vendor,description,amount_eur"

var (
	ledgerAccounts = []int{
		400000, 410000, 420000, 430000, 440000, 480000, 500000, 510000, 520000, 530000,
		600000, 610000, 620000, 621000, 630000, 640000, 650000, 660000, 670000, 680000,
		690000, 700000, 710000, 720000, 730000, 740000, 750000, 760000, 770000, 790000,
	}
	ledgerVendors = []string{
		"Müller Logistik GmbH", "Acme Supplies Ltd", "Société Générale de Transport", "Nordwind AG",
		"Bäckerei Schmidt KG", "Globex Corporation", "Initech Services", "Umbrella Facilities",
		"Hooli Cloud EMEA", "Stark Büroservice", "Wayne Enterprises BV", "Dupont & Fils SARL",
		"Kowalski Sp. z o.o.", "Fjord Energi AS", "Café Central Wien", "Tanaka Trading KK",
	}
	ledgerTexts = []string{
		"Invoice freight", "Office supplies", "Travel expenses, March", "Consulting fees",
		"Rent, head office", "Electricity", "Software licences", "Catering \"Sommerfest\"",
		"Repairs and maintenance", "Insurance premium", "Bank charges", "Marketing, online",
	}
)

// WriteLedger writes a general-ledger CSV of rows rows to path (about 100
// bytes a row, so 16 million rows make 1.6 GB), deterministic for a seed,
// streaming: memory does not grow with rows. Descriptions with commas or
// quotes are quoted as a spreadsheet would quote them.
func WriteLedger(path string, rows int64, seed uint64) (Ledger, error) {
	f, err := os.Create(path)
	if err != nil {
		return Ledger{}, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	lg := Ledger{Path: path, Rows: rows, ByAccount: map[int]int64{}}
	// A description is a text and a reference number: "Bank charges ref 12345678".
	open, close := make([]string, len(ledgerTexts)), make([]string, len(ledgerTexts))
	for i, s := range ledgerTexts {
		open[i] = s + " ref "
		if strings.ContainsAny(s, ",\"") {
			open[i], close[i] = `"`+strings.ReplaceAll(s, `"`, `""`)+" ref ", `"`
		}
	}
	day0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	dates := make([]string, 365)
	for i := range dates {
		dates[i] = day0.AddDate(0, 0, i).Format("2006-01-02")
	}
	byAccount := make([]int64, len(ledgerAccounts))
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	w.WriteString(LedgerHeader + "\n")
	buf := make([]byte, 0, 256)
	for i := int64(0); i < rows; i++ {
		a := r.IntN(len(ledgerAccounts))
		cents := r.Int64N(2_500_000) - 500_000 // -5,000.00 .. 19,999.99
		byAccount[a] += cents
		buf = append(buf[:0], dates[r.IntN(len(dates))]...)
		buf = append(buf, ",DOC-"...)
		buf = strconv.AppendInt(buf, 5100000000+i, 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(ledgerAccounts[a]), 10)
		buf = append(buf, ",CC-"...)
		buf = strconv.AppendInt(buf, int64(1000+r.IntN(60)*10), 10)
		buf = append(buf, ',')
		buf = append(buf, ledgerVendors[r.IntN(len(ledgerVendors))]...)
		buf = append(buf, ',')
		d := r.IntN(len(ledgerTexts))
		buf = append(buf, open[d]...)
		buf = strconv.AppendInt(buf, 10000000+r.Int64N(90000000), 10)
		buf = append(buf, close[d]...)
		buf = append(buf, ',')
		buf = appendCents(buf, cents)
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			f.Close()
			return Ledger{}, fmt.Errorf("write ledger: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return Ledger{}, fmt.Errorf("write ledger: %w", err)
	}
	st, err := f.Stat()
	if err == nil {
		lg.Bytes = st.Size()
	}
	if err := f.Close(); err != nil {
		return Ledger{}, fmt.Errorf("write ledger: %w", err)
	}
	for i, a := range ledgerAccounts {
		lg.ByAccount[a] = byAccount[i]
		lg.TotalCents += byAccount[i]
	}
	return lg, nil
}

func appendCents(b []byte, c int64) []byte {
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	b = strconv.AppendInt(b, c/100, 10)
	b = append(b, '.', byte('0'+c%100/10), byte('0'+c%10))
	return b
}

// Cents formats an amount in cents as the file writes it ("-12.05").
func Cents(c int64) string { return string(appendCents(nil, c)) }

package ground

// Words around a number that change what it is.
var (
	// a movement: "fell 10%", "a decline of 4.5%", "up 3"
	negWords = set("fell", "fall", "falls", "fallen", "falling", "dropped", "drop", "drops", "declined", "decline",
		"declines", "decreased", "decrease", "decreases", "down", "shrank", "shrunk", "shrinks", "lost", "slipped",
		"sank", "dipped", "dip", "contracted", "reduction", "minus", "negative")
	posWords = set("rose", "rise", "rises", "risen", "rising", "grew", "grow", "grows", "growth", "increased",
		"increase", "increases", "up", "gained", "gain", "gains", "climbed", "jumped", "improved", "plus", "positive")
	// hedges: "about 7,000" rounds on its last nonzero digit
	approxWords = set("about", "around", "roughly", "approximately", "approx", "nearly", "almost", "circa", "ca", "some", "rund", "etwa", "environ")
	// a number after these names a thing: "account 400000", "cost centre 4400"
	labelNouns = set("account", "accounts", "acct", "centre", "center", "centres", "centers", "kostenstelle", "konto",
		"store", "stores", "branch", "id", "no", "nr", "number", "code", "ref", "reference", "invoice", "document",
		"doc", "quarter", "week", "fy", "step", "cell", "cells", "row", "line", "column", "page", "version", "table",
		"figure", "fig", "chart", "option", "item", "team", "level", "grade", "tier", "plant", "site", "warehouse",
		"top", "bottom", "rank", "ranked", "phase", "round", "wave", "sheet", "vendor", "supplier", "customer",
		"employee", "order", "ticket", "batch", "lot", "department", "dept", "section", "chapter", "appendix", "zone", "building", "floor", "room", "gate", "channel")
	// words that head a column of labels in a Markdown table
	labelHeaders = []string{"id", "code", "account", "centre", "center", "no", "nr", "#", "number", "rank", "year",
		"quarter", "month", "week", "store", "ref", "document", "zip", "postcode", "konto", "kostenstelle", "fy", "period"}
	// a count after a year-like number: "2000 rows" is a count, "in 2025" a year
	countNouns = set("rows", "records", "entries", "items", "transactions", "lines", "units", "customers", "orders",
		"invoices", "postings", "employees", "values", "columns", "cells", "accounts", "documents", "people", "users",
		"products", "files", "hours", "minutes", "days", "sales", "bookings", "cases", "visits", "tickets", "stores", "vendors")
	// capitalised words that are no name's start: "About 100", "Total 120"
	notNames = set("about", "around", "roughly", "nearly", "almost", "only", "just", "total", "all", "the", "over",
		"under", "up", "down", "by", "of", "in", "and", "or", "with", "from", "to", "at", "some", "approximately", "and", "but",
		"sum", "average", "mean", "median", "net", "gross", "is", "was", "were", "are", "be", "q", "fell", "rose", "grew")
	months = set("jan", "january", "feb", "february", "mar", "march", "apr", "april", "may", "jun", "june", "jul", "july",
		"aug", "august", "sep", "sept", "september", "oct", "october", "nov", "november", "dec", "december",
		"januar", "jänner", "februar", "märz", "mai", "juni", "juli", "oktober", "dezember",
		"janvier", "février", "mars", "avril", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre")
	currencyCodes = set("usd", "eur", "gbp", "chf", "jpy", "cny", "sek", "nok", "dkk", "pln", "cad", "aud", "inr", "czk", "huf", "brl", "mxn", "zar", "nzd", "sgd", "hkd")
)

var currencySymbols = []string{"US$", "$", "€", "£", "¥", "₹", "₩", "₽", "₺", "Fr.", "SFr.", "kr"}

// scale words and suffixes: attached says it must touch the digits (5k,
// 1.2M) since alone it is a word or a unit (5 m is five metres).
type scaleWord struct {
	text     string
	factor   float64
	attached bool
	money    bool // only with a currency (m for million)
}

var scaleWords = []scaleWord{
	{"trillion", 1e12, false, false}, {"tn", 1e12, false, false},
	{"billions", 1e9, false, false}, {"billion", 1e9, false, false}, {"bn", 1e9, false, false}, {"bln", 1e9, false, false},
	{"Mrd.", 1e9, false, false}, {"Mrd", 1e9, false, false}, {"Md", 1e9, false, false},
	{"millions", 1e6, false, false}, {"million", 1e6, false, false}, {"mln", 1e6, false, false}, {"mn", 1e6, false, false},
	{"Mio.", 1e6, false, false}, {"Mio", 1e6, false, false},
	{"thousand", 1e3, false, false}, {"Tsd.", 1e3, false, false}, {"Tsd", 1e3, false, false},
	{"M", 1e6, true, false}, {"B", 1e9, true, false}, {"b", 1e9, true, true}, {"m", 1e6, true, true},
	{"k", 1e3, true, false}, {"K", 1e3, true, false},
}

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

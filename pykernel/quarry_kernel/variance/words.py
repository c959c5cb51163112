# The words of budget-vs-actual reports for variance() (sent with kernel.py):
# column headers naming a side (actual, budget, variance, percent), section
# headers and line names saying revenue or cost, and the labels of subtotal
# and total rows, in the languages accounting systems export (English,
# German, French, Spanish, Italian, Dutch, Portuguese). Text is matched
# after fold_text: lower case, accents dropped, punctuation as spaces.
import re
import unicodedata

_FOLD_PUNCT = re.compile(r"[^\w%&/]+")


FOLD_MEMO = 200000  # labels recur (matching, totals, sections): each is folded once
FOLD_MEMO_CHARS = 200  # ... unless it is long, so the memo stays small
_KEY_PUNCT = re.compile(r"[^\w%&+\-]+")
_KEY_DASHES = re.compile(r'[\u2010-\u2015\u2212]')


class _Folding:
    """One way of folding text, memoised: lower case and accents dropped,
    then finish(text)."""

    def __init__(self, finish):
        self.finish, self.memo = finish, {}

    def __call__(self, s):
        s = str(s)
        f = self.memo.get(s)
        if f is None:
            t = unicodedata.normalize('NFKD', s.casefold())
            if not t.isascii():
                t = ''.join(c for c in t if not unicodedata.combining(c))
            f = self.finish(t.replace('ß', 'ss'))
            if len(s) <= FOLD_MEMO_CHARS:
                if len(self.memo) >= FOLD_MEMO:
                    self.memo.clear()
                self.memo[s] = f
        return f


# fold_text: runs of punctuation and space as one space ('Umsatzerlöse' ->
# 'umsatzerlose', 'Total - Income' -> 'total income').
fold_text = _Folding(lambda t: _FOLD_PUNCT.sub(' ', t).strip())
# line_key: a line's name to match on, signs kept ('Sales – Products' =
# 'sales - products'; 'at -5%' is not 'at 5%').
line_key = _Folding(lambda t: _KEY_PUNCT.sub(' ', _KEY_DASHES.sub('-', t)).strip())


def _words(*alternatives):
    return re.compile(r'(?:^| )(?:%s)(?= |$)' % '|'.join(alternatives))


# A column header's side, tried in this order: '% of Budget' is a percent
# and 'over Budget' a variance before either is a budget.
SIDE_WORDS = (
    (
        'pct',
        re.compile(r'%|(?:^| )(?:percent|pct|prozent|pourcentage|porcentaje|percentuale|procent|percentagem)(?= |$)'),
    ),
    (
        'variance',
        _words(
            r'over budget',
            r'under budget',
            r'variance',
            r'var',
            r'abweichung',
            r'abw',
            r'diff\w*',
            r'ecart',
            r'desviacion',
            r'variacion',
            r'varianza',
            r'scostamento',
            r'scost',
            r'afwijking',
            r'variacao',
            r'delta',
            r'remaining',
            r'rest',
            r'uber plan',
            r'unter plan',
        ),
    ),
    (
        'budget',
        _words(
            r'budget\w*',
            r'budgeted',
            r'bud',
            r'bdgt',
            r'plan',
            r'planned',
            r'plan\w*wert\w*',
            r'soll',
            r'target',
            r'prevu',
            r'presupuest\w*',
            r'presupuestado',
            r'previsto',
            r'budgetato',
            r'begroot',
            r'begroting',
            r'orcament\w*',
            r'orcado',
        ),
    ),
    (
        'actual',
        _words(
            r'actuals?',
            r'act',
            r'ist',
            r'ist ?wert\w*',
            r'reel\w*',
            r'realise\w*',
            r'real',
            r'reales',
            r'consuntiv\w*',
            r'effettiv\w*',
            r'werkelijk\w*',
            r'realiz\w*',
            r'realis\w*',
            r'efectivo',
        ),
    ),
)
# With a budget column beside it, NetSuite names the actuals 'Amount'.
AMOUNT_WORDS = _words(
    r'amount',
    r'amt',
    r'value',
    r'betrag',
    r'wert',
    r'montant',
    r'importe',
    r'importo',
    r'bedrag',
    r'valor',
    r'balance',
    r'saldo',
    r'total',
)

# Line and section names, as (kind, words). A phrase table first, for the
# names that hold words of both kinds; then single words.
KIND_PHRASES = (
    (
        'cost',
        r'cost of (?:goods|sales|revenue|services)\w*|cogs|cost of \w+ sold|income tax\w*|tax\w* on income|'
        r'sales (?:commission|salar|wage|expense|cost|tax|promotion|and marketing|& marketing|marketing)\w*|'
        r'interest expense\w*|bad debt|herstellungskosten\w*|umsatzkosten|wareneinsatz|'
        r'materialaufwand|personalaufwand|zinsaufwand|steuern vom einkommen\w*|'
        r'gastos? (?:de|por|en) \w+|costes? (?:de|por) \w+|costos? (?:de|por) \w+|charges? \w+|'
        r'costi (?:di|per) \w+|spese \w+|custos? (?:de|das|dos) \w+|despesas? \w+|'
        r'kosten (?:van|der) \w+|kostprijs \w+|achats? \w+|frais \w+|impots? \w+',
    ),
    (
        'revenue',
        r'sales (?:return|discount|allowance|rebate)\w*|other income|interest income|rental income|'
        r'(?:other|sonstige|betriebliche) (?:betriebliche )?ertrage|umsatzerlose|zinsertrage|mietertrage|'
        r'ingresos? (?:de|por) \w+|produits? \w+|ricavi (?:da|delle|di) \w+|'
        r'receitas? (?:de|da|das|com) \w+|opbrengst\w* \w+|chiffre d affaires',
    ),
)
KIND_WORDS = (
    (
        'revenue',
        r'income|incomes|revenue\w*|sales|turnover|earnings|fees earned|umsatz\w*|\w*erlos\w*|\w*ertrag\w*|'
        r'\w*ertrage|\w*einnahmen|ventes?|recettes?|produits?|ingresos?|ventas?|ricavi|ricavo|vendite|'
        r'proventi|omzet|opbrengst\w*|baten|receitas?|vendas|rendimentos?|proveitos?|faturamento',
    ),
    (
        'cost',
        r'costs?|expenses?|expenditures?|expense|cogs|opex|overheads?|purchases?|wages|salary|salaries|'
        r'payroll|rent|rents|lease|leases|utilities|insurance|depreciation|amortization|amortisation|'
        r'taxes|tax|advertising|marketing|travel|meals|entertainment|supplies|postage|telephone|phone|'
        r'internet|software|subscriptions?|dues|legal|accounting|audit|bank charges|bank fees|freight|'
        r'shipping|delivery|materials?|repairs?|maintenance|commissions?|contractors?|subcontractors?|'
        r'training|recruiting|recruitment|benefits|pensions?|bonus\w*|fuel|vehicles?|electricity|'
        r'cleaning|licen[cs]es|hosting|outsourcing|staff|personnel|headcount|office|consumables|'
        r'\w*aufwand|\w*aufwendungen|\w*kosten|lohne|gehalter|miete|mieten|pacht|energie|strom|'
        r'versicherung\w*|beitrage|abschreibung\w*|werbung|bewirtung|burobedarf|porto|telefon|'
        r'reparatur\w*|instandhaltung|wareneingang|fremdleistungen|sozialabgaben|provisionen|gebuhren|'
        r'charges?|achats?|depenses?|salaires|loyers?|assurances?|amortissements?|publicite|'
        r'deplacements?|fournitures|honoraires|sous traitance|entretien|'
        r'gastos?|costes?|costos?|compras?|sueldos|salarios|alquiler\w*|arrendamientos?|seguros?|'
        r'amortizacion\w*|publicidad|viajes|suministros|honorarios|mantenimiento|reparaciones|'
        r'costi|costo|spese|oneri|acquisti|stipendi|salari|affitt\w*|locazion\w*|assicurazion\w*|'
        r'ammortament\w*|pubblicita|viaggi|forniture|consulenze|manutenzion\w*|utenze|'
        r'lasten|uitgaven|lonen|salarissen|huur|verzekering\w*|afschrijving\w*|reclame|reiskosten|'
        r'inkoop\w*|onderhoud|custos?|despesas?|encargos|salarios|ordenados|aluguel|aluguer|'
        r'depreciacao|amortizacao|publicidade|viagens|fornecimentos|manutencao',
    ),
)
KIND_PHRASE_RES = tuple((k, re.compile(r'(?:^| )(?:%s)(?= |$)' % w)) for k, w in KIND_PHRASES)
KIND_WORD_RES = tuple((k, re.compile(r'(?:^| )(?:%s)(?= |$)' % w)) for k, w in KIND_WORDS)

# What a kind column or a kind= mapping may say.
KIND_VALUES = {
    'revenue': 'revenue',
    'revenues': 'revenue',
    'income': 'revenue',
    'sales': 'revenue',
    'r': 'revenue',
    'other income': 'revenue',
    'ertrag': 'revenue',
    'ertrage': 'revenue',
    'erlos': 'revenue',
    'erlose': 'revenue',
    'umsatz': 'revenue',
    'produit': 'revenue',
    'produits': 'revenue',
    'ingreso': 'revenue',
    'ingresos': 'revenue',
    'ricavi': 'revenue',
    'ricavo': 'revenue',
    'opbrengst': 'revenue',
    'opbrengsten': 'revenue',
    'omzet': 'revenue',
    'receita': 'revenue',
    'receitas': 'revenue',
    'credit': 'revenue',
    'in': 'revenue',
    'cost': 'cost',
    'costs': 'cost',
    'expense': 'cost',
    'expenses': 'cost',
    'cogs': 'cost',
    'c': 'cost',
    'cost of goods sold': 'cost',
    'cost of sales': 'cost',
    'other expense': 'cost',
    'other expenses': 'cost',
    'opex': 'cost',
    'aufwand': 'cost',
    'aufwendungen': 'cost',
    'kosten': 'cost',
    'charge': 'cost',
    'charges': 'cost',
    'gasto': 'cost',
    'gastos': 'cost',
    'coste': 'cost',
    'costes': 'cost',
    'costo': 'cost',
    'costi': 'cost',
    'spese': 'cost',
    'lasten': 'cost',
    'custo': 'cost',
    'custos': 'cost',
    'despesa': 'cost',
    'despesas': 'cost',
    'debit': 'cost',
    'out': 'cost',
}

# Row labels of subtotals and totals. PROFIT_LABELS are results (revenue
# less cost: Gross Profit, Net Income); SECTION_TOTAL names the sum of the
# section it closes ('Total Income', 'Summe Erlöse', 'Total - Expense').
PROFIT_LABELS = re.compile(
    r'^(?:\*+ ?)?(?:'
    r'gross (?:profit|margin|income|loss|result)|net (?:\w+ )?(?:income|profit|loss|result|earnings|surplus|deficit)'
    r'(?: loss| profit)?(?: \w+ tax\w*)?|net profit loss|net income loss|operating (?:profit|result|margin)|'
    r'ebit|ebitda|ebt|profit|loss|profit loss|profit and loss|profit (?:before|after) \w+(?: \w+)?|'
    r'(?:income|earnings) before \w+(?: \w+)?(?: \w+)?|contribution margin(?: \w+)?|surplus|deficit|'
    r'rohertrag|rohgewinn|bruttoergebnis\w*|betriebsergebnis|operatives ergebnis|ergebnis(?: \w+){0,4}|'
    r'jahresuberschuss|jahresfehlbetrag|jahresergebnis|periodenergebnis|gewinn|verlust|gewinn verlust|'
    r'deckungsbeitrag(?: \w+)?|marge brute|marge(?: \w+)?|resultat(?: \w+){0,4}|benefice(?: \w+)?|'
    r'perte(?: \w+)?|excedent brut d exploitation|ebe|margen(?: \w+)?|beneficio(?: \w+){0,3}|'
    r'resultado(?: \w+){0,4}|utilidad(?: \w+){0,3}|perdida(?: \w+)?|margine(?: \w+){0,2}|utile(?: \w+){0,3}|'
    r'risultato(?: \w+){0,4}|perdita(?: \w+)?|mol|brutowinst|brutomarge|bruto marge|bedrijfsresultaat|'
    r'nettowinst|netto ?resultaat|resultaat(?: \w+){0,3}|winst(?: \w+){0,3}|verlies(?: \w+)?|'
    r'lucro(?: \w+){0,3}|margem(?: \w+)?|prejuizo(?: \w+)?'
    r')$'
)
SECTION_TOTAL = re.compile(
    r'^(?:\*+ ?)?(?:total|totals|total for|total of|totaux?|total des?|total du|total de la|totale|totali|'
    r'totaal|total geral|summe|summen|zwischensumme|gesamt|insgesamt|subtotal|sub total|sous total|'
    r'subtotale|subtotaal|somme|suma|soma)(?: (?P<rest>.*))?$|^(?P<before>.+) (?:total|gesamt|insgesamt|totale)$'
)
# A row labelled only this is the table's grand total.
GRAND_TOTAL = re.compile(
    r'^(?:\*+ ?)?(?:grand total|total|totals|summe|gesamt|gesamtsumme|endsumme|insgesamt|'
    r'total general|total geral|totale|totale generale|totaal|somme|suma total|soma)$'
)
# Section header words a report puts before the section's name (Xero:
# 'Less Cost of Sales', 'Plus Other Income').
SECTION_PREFIX = re.compile(r'^(?:less|plus|add|minus|abzuglich|zuzuglich|moins|menos|meno|min) ')

# Column headers of the non-amount columns.
CODE_HEADERS = _words(
    r'code',
    r'account ?(?:no|nr|number|num|#|code|id)',
    r'acct ?(?:no|nr|number|#)?',
    r'no',
    r'nr',
    r'number',
    r'num',
    r'#',
    r'konto(?:nummer|nr)?',
    r'sachkonto',
    r'kostenart',
    r'gl',
    r'gl account',
    r'compte',
    r'n compte',
    r'cuenta',
    r'conto',
    r'rekening',
    r'grootboek\w*',
    r'conta',
    r'id',
)
KIND_HEADERS = _words(
    r'kind',
    r'type',
    r'account type',
    r'line type',
    r'category',
    r'class',
    r'classification',
    r'nature',
    r'kontoart',
    r'typ',
    r'art',
    r'kategorie',
    r'categorie',
    r'tipo',
    r'categoria',
    r'soort',
    r'in ?out',
    r'section',
    r'group',
)
PERIOD_HEADERS = _words(
    r'period\w*',
    r'month',
    r'months',
    r'date',
    r'posting date',
    r'fiscal period',
    r'periode',
    r'monat',
    r'datum',
    r'buchungsdatum',
    r'mois',
    r'date comptable',
    r'mes',
    r'fecha',
    r'mese',
    r'data',
    r'maand',
    r'mes',
    r'quarter',
    r'quartal',
    r'trimestre',
    r'kwartaal',
    r'fiscal month',
)
YEAR_HEADERS = _words(
    r'year',
    r'fiscal year',
    r'fy',
    r'jahr',
    r'geschaftsjahr',
    r'gj',
    r'annee',
    r'exercice',
    r'ano',
    r'anio',
    r'anno',
    r'esercizio',
    r'jaar',
    r'boekjaar',
)
SCENARIO_HEADERS = _words(
    r'scenario',
    r'version',
    r'type',
    r'category',
    r'szenario',
    r'wertart',
    r'werttyp',
    r'plan ist',
    r'ist plan',
    r'version',
    r'versie',
    r'cenario',
    r'escenario',
    r'measure',
    r'data type',
    r'ledger',
)

# Section headers by name ('Income', 'Cost of Goods Sold', 'Betriebliche
# Aufwendungen'): a row so named with no amounts opens a section even when
# no 'Total ...' row closes it. Group headers holding both kinds give none.
SECTION_NAMES = dict(KIND_VALUES)
for _kind, _names in (
    (
        'revenue',
        'revenue|revenues|sales|turnover|trading income|operating revenue|operating revenues|'
        'sales revenue|net sales|gross sales|other revenue|other revenues|interest and other income|'
        'umsatzerlose|erlose|ertrage|sonstige ertrage|sonstige betriebliche ertrage|betriebliche ertrage|'
        'finanzertrage|produits d exploitation|produits financiers|produits exceptionnels|'
        'chiffre d affaires|ventes|ingresos de explotacion|ingresos financieros|otros ingresos|'
        'ventas|ricavi delle vendite|valore della produzione|altri ricavi|proventi finanziari|'
        'bedrijfsopbrengsten|overige opbrengsten|financiele baten|omzet|receitas operacionais|'
        'receita bruta|receita liquida|outras receitas|receitas financeiras|vendas',
    ),
    (
        'cost',
        'cost of goods sold|cost of sales|cost of revenue|cogs|operating expenses|operating expense|'
        'opex|overhead|overheads|payroll|payroll expenses|general and administrative|'
        'general & administrative|g&a|selling expenses|selling general and administrative|sg&a|'
        'personnel|personnel expenses|staff costs|other expense|other expenses|financial expenses|'
        'betriebliche aufwendungen|sonstige betriebliche aufwendungen|sonstige aufwendungen|'
        'materialaufwand|personalaufwand|abschreibungen|finanzaufwand|aufwand|aufwendungen|kosten|'
        'charges d exploitation|charges financieres|charges exceptionnelles|charges de personnel|'
        'achats|gastos de explotacion|gastos operativos|gastos de personal|gastos financieros|'
        'otros gastos|aprovisionamientos|costi della produzione|costi operativi|costi del personale|'
        'oneri finanziari|altri costi|bedrijfslasten|bedrijfskosten|personeelskosten|'
        'financiele lasten|overige kosten|inkoopwaarde van de omzet|custo das mercadorias vendidas|'
        'custo dos produtos vendidos|despesas operacionais|despesas administrativas|'
        'despesas financeiras|outras despesas',
    ),
):
    for _n in _names.split('|'):
        SECTION_NAMES[_n] = _kind
SECTION_GROUP = re.compile(
    r'^(?:ordinary |other |operating )?(?:income|revenue)s? ?(?:and|&|/)? ?(?:expenses?|costs?)'
    r'(?: and \w+)?$|^(?:ertrage|erlose) (?:und|&|/) ?aufwendungen$|^produits et charges$|'
    r'^ingresos y gastos$|^ricavi e costi$|^baten en lasten$|^receitas e despesas$|'
    r'^(?:financial result|finance income and costs|net finance costs|finanzergebnis|'
    r'resultat financier|resultado financiero|risultato finanziario|gestione finanziaria|'
    r'financieel resultaat|financiele baten en lasten|resultado financeiro)$'
)

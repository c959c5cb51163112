package export

// Warmup is the code a report builder's sandbox runs when it is started
// ahead of a report (session.ReportAhead): the builder's definitions, its
// imports and its fonts, so the build itself waits for none of them. It
// reads nothing and writes nothing.
func Warmup() string {
	return builderSource() + warmupImports
}

// warmupImports are the modules the builder imports inside its
// functions, loaded now rather than in the build.
const warmupImports = `import numpy, pandas, openpyxl
from openpyxl.cell import WriteOnlyCell
from openpyxl.cell.rich_text import CellRichText, TextBlock
from openpyxl.drawing.image import Image
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas
from reportlab.platypus import Image, KeepTogether, LongTable, Paragraph, Preformatted, SimpleDocTemplate, Spacer, Table, TableStyle
_fonts()
`

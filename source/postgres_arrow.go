package source

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// A result column: the Arrow type chosen for its PostgreSQL type, and how
// a raw value is appended. Common types are decoded from the binary wire
// format directly; the rest go through pgx's codecs and become text.
type column struct {
	oid    uint32
	format int16
	typ    arrow.DataType
	m      *pgtype.Map
}

// The epoch of PostgreSQL's dates and timestamps, 2000-01-01, from Unix's.
const (
	pgEpochDays   = 10957
	pgEpochMicros = 946684800000000
)

func newColumn(fd pgconn.FieldDescription, m *pgtype.Map) column {
	c := column{oid: fd.DataTypeOID, format: fd.Format, m: m}
	switch fd.DataTypeOID {
	case pgtype.BoolOID:
		c.typ = arrow.FixedWidthTypes.Boolean
	case pgtype.Int2OID:
		c.typ = arrow.PrimitiveTypes.Int16
	case pgtype.Int4OID:
		c.typ = arrow.PrimitiveTypes.Int32
	case pgtype.Int8OID:
		c.typ = arrow.PrimitiveTypes.Int64
	case pgtype.Float4OID:
		c.typ = arrow.PrimitiveTypes.Float32
	case pgtype.Float8OID, pgtype.NumericOID:
		// pandas has no decimal column: float64, as sql() gives DuckDB's
		// fractional DECIMALs.
		c.typ = arrow.PrimitiveTypes.Float64
	case pgtype.DateOID:
		c.typ = arrow.FixedWidthTypes.Date32
	case pgtype.TimestampOID:
		c.typ = &arrow.TimestampType{Unit: arrow.Microsecond}
	case pgtype.TimestamptzOID:
		c.typ = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	default:
		c.typ = arrow.BinaryTypes.String
	}
	return c
}

// appendValue adds one raw value (nil for NULL) to b.
func (c column) appendValue(b array.Builder, raw []byte) error {
	if raw == nil {
		b.AppendNull()
		return nil
	}
	bin := c.format == pgtype.BinaryFormatCode
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		if bin && len(raw) == 1 {
			bb.Append(raw[0] != 0)
			return nil
		}
		var v bool
		return c.scanThen(raw, &v, func() { bb.Append(v) })
	case *array.Int16Builder:
		if bin && len(raw) == 2 {
			bb.Append(int16(binary.BigEndian.Uint16(raw)))
			return nil
		}
		var v int16
		return c.scanThen(raw, &v, func() { bb.Append(v) })
	case *array.Int32Builder:
		if bin && len(raw) == 4 {
			bb.Append(int32(binary.BigEndian.Uint32(raw)))
			return nil
		}
		var v int32
		return c.scanThen(raw, &v, func() { bb.Append(v) })
	case *array.Int64Builder:
		if bin && len(raw) == 8 {
			bb.Append(int64(binary.BigEndian.Uint64(raw)))
			return nil
		}
		var v int64
		return c.scanThen(raw, &v, func() { bb.Append(v) })
	case *array.Float32Builder:
		if bin && len(raw) == 4 {
			bb.Append(math.Float32frombits(binary.BigEndian.Uint32(raw)))
			return nil
		}
		var v float32
		return c.scanThen(raw, &v, func() { bb.Append(v) })
	case *array.Float64Builder:
		if bin && len(raw) == 8 && c.oid == pgtype.Float8OID {
			bb.Append(math.Float64frombits(binary.BigEndian.Uint64(raw)))
			return nil
		}
		var v pgtype.Float8
		if err := c.m.Scan(c.oid, c.format, raw, &v); err != nil {
			return err
		}
		bb.Append(v.Float64)
		return nil
	case *array.Date32Builder:
		if bin && len(raw) == 4 {
			d := int32(binary.BigEndian.Uint32(raw))
			if d == math.MaxInt32 || d == math.MinInt32 { // ±infinity: pandas has none
				bb.AppendNull()
				return nil
			}
			bb.Append(arrow.Date32(d + pgEpochDays))
			return nil
		}
		var v pgtype.Date
		if err := c.m.Scan(c.oid, c.format, raw, &v); err != nil {
			return err
		}
		if v.InfinityModifier != pgtype.Finite {
			bb.AppendNull()
			return nil
		}
		bb.Append(arrow.Date32FromTime(v.Time))
		return nil
	case *array.TimestampBuilder:
		if bin && len(raw) == 8 {
			us := int64(binary.BigEndian.Uint64(raw))
			if us == math.MaxInt64 || us == math.MinInt64 {
				bb.AppendNull()
				return nil
			}
			bb.Append(arrow.Timestamp(us + pgEpochMicros))
			return nil
		}
		var v time.Time
		return c.scanThen(raw, &v, func() { bb.Append(arrow.Timestamp(v.UnixMicro())) })
	case *array.StringBuilder:
		if c.format == pgtype.TextFormatCode || isText(c.oid) {
			bb.BinaryBuilder.Append(raw)
			return nil
		}
		bb.Append(c.text(raw))
		return nil
	}
	return fmt.Errorf("no builder for %s", b.Type())
}

func (c column) scanThen(raw []byte, dst any, then func()) error {
	if err := c.m.Scan(c.oid, c.format, raw, dst); err != nil {
		return err
	}
	then()
	return nil
}

func isText(oid uint32) bool {
	switch oid {
	case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID, pgtype.JSONOID, pgtype.UnknownOID:
		return true
	}
	return false
}

// text renders a value of a type with no Arrow column of its own (uuid,
// jsonb, arrays, intervals, inet, ...) as PostgreSQL's text would show it,
// near enough for pandas.
func (c column) text(raw []byte) string {
	t, ok := c.m.TypeForOID(c.oid)
	if !ok {
		return string(raw)
	}
	v, err := t.Codec.DecodeValue(c.m, c.oid, c.format, raw)
	if err != nil {
		return string(raw)
	}
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return "\\x" + fmt.Sprintf("%x", x)
	case [16]byte: // uuid
		return fmt.Sprintf("%x-%x-%x-%x-%x", x[0:4], x[4:6], x[6:8], x[8:10], x[10:16])
	case fmt.Stringer:
		return x.String()
	case map[string]any, []any:
		b, _ := json.Marshal(x)
		return string(b)
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	return fmt.Sprint(v)
}

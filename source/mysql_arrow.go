package source

import (
	"database/sql/driver"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
)

// myArrowType is the Arrow type of a MariaDB/MySQL result column, by the
// type the server reports (the driver's DatabaseTypeName) and, for
// DECIMAL, its precision and scale. Each keeps what the server holds:
// unsigned integers stay unsigned, DECIMAL stays exact (the kernel makes
// it int64 when whole and in range, else float64, as for DuckDB's),
// DATETIME is naive and TIMESTAMP UTC (the session's time zone is UTC),
// TIME is a duration, BIT a number, BLOB and BINARY bytes, JSON text.
func myArrowType(dbType string, precision, scale int64) arrow.DataType {
	switch dbType {
	case "TINYINT":
		return arrow.PrimitiveTypes.Int8
	case "UNSIGNED TINYINT":
		return arrow.PrimitiveTypes.Uint8
	case "SMALLINT", "YEAR":
		return arrow.PrimitiveTypes.Int16
	case "UNSIGNED SMALLINT":
		return arrow.PrimitiveTypes.Uint16
	case "MEDIUMINT", "INT":
		return arrow.PrimitiveTypes.Int32
	case "UNSIGNED MEDIUMINT", "UNSIGNED INT":
		return arrow.PrimitiveTypes.Uint32
	case "BIGINT":
		return arrow.PrimitiveTypes.Int64
	case "UNSIGNED BIGINT", "BIT":
		return arrow.PrimitiveTypes.Uint64
	case "FLOAT":
		return arrow.PrimitiveTypes.Float32
	case "DOUBLE":
		return arrow.PrimitiveTypes.Float64
	case "DECIMAL":
		if precision <= 0 || scale < 0 || scale > precision {
			return arrow.PrimitiveTypes.Float64
		}
		if precision <= 38 {
			return &arrow.Decimal128Type{Precision: int32(precision), Scale: int32(scale)}
		}
		return &arrow.Decimal256Type{Precision: int32(min(precision, 76)), Scale: int32(scale)}
	case "DATE":
		return arrow.FixedWidthTypes.Date32
	case "DATETIME":
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case "TIMESTAMP":
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case "TIME":
		return arrow.FixedWidthTypes.Duration_us
	case "BLOB", "TINYBLOB", "MEDIUMBLOB", "LONGBLOB", "BINARY", "VARBINARY", "GEOMETRY", "VECTOR":
		return arrow.BinaryTypes.Binary
	}
	return arrow.BinaryTypes.String // CHAR, VARCHAR, TEXT, ENUM, SET, JSON, NULL and the rest
}

// myAppend adds one value of the text protocol (nil for NULL; int64,
// uint64, float32 or float64 for numbers, the driver parses those; bytes
// for the rest) to b. A zero or impossible date is NULL: pandas has no
// such date.
func myAppend(b array.Builder, v driver.Value) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch bb := b.(type) {
	case *array.Int8Builder:
		n, err := myInt(v)
		bb.Append(int8(n))
		return err
	case *array.Int16Builder:
		n, err := myInt(v)
		bb.Append(int16(n))
		return err
	case *array.Int32Builder:
		n, err := myInt(v)
		bb.Append(int32(n))
		return err
	case *array.Int64Builder:
		n, err := myInt(v)
		bb.Append(n)
		return err
	case *array.Uint8Builder:
		n, err := myInt(v)
		bb.Append(uint8(n))
		return err
	case *array.Uint16Builder:
		n, err := myInt(v)
		bb.Append(uint16(n))
		return err
	case *array.Uint32Builder:
		n, err := myInt(v)
		bb.Append(uint32(n))
		return err
	case *array.Uint64Builder:
		switch x := v.(type) {
		case uint64:
			bb.Append(x)
		case int64:
			bb.Append(uint64(x))
		default: // the binary protocol's text for one over 2^63-1
			n, err := strconv.ParseUint(myText(v), 10, 64)
			bb.Append(n)
			return err
		}
		return nil
	case *array.Float32Builder:
		if f, ok := v.(float32); ok {
			bb.Append(f)
			return nil
		}
		f, err := strconv.ParseFloat(myText(v), 32)
		bb.Append(float32(f))
		return err
	case *array.Float64Builder:
		if f, ok := v.(float64); ok {
			bb.Append(f)
			return nil
		}
		f, err := strconv.ParseFloat(myText(v), 64)
		bb.Append(f)
		return err
	case *array.Decimal128Builder:
		t := bb.Type().(*arrow.Decimal128Type)
		n, err := decimal128.FromString(myText(v), t.Precision, t.Scale)
		bb.Append(n)
		return err
	case *array.Decimal256Builder:
		t := bb.Type().(*arrow.Decimal256Type)
		n, err := decimal256.FromString(myText(v), t.Precision, t.Scale)
		bb.Append(n)
		return err
	case *array.Date32Builder:
		if t, ok := myTime(myBytes(v)); ok {
			bb.Append(arrow.Date32FromTime(t))
		} else {
			bb.AppendNull()
		}
		return nil
	case *array.TimestampBuilder:
		if t, ok := myTime(myBytes(v)); ok {
			bb.Append(arrow.Timestamp(t.UnixMicro()))
		} else {
			bb.AppendNull()
		}
		return nil
	case *array.DurationBuilder:
		d, err := myDuration(myBytes(v))
		bb.Append(arrow.Duration(d.Microseconds()))
		return err
	case *array.BinaryBuilder:
		bb.Append(myBytes(v))
		return nil
	case *array.StringBuilder:
		raw := myBytes(v)
		if !utf8.Valid(raw) {
			bb.Append(strings.ToValidUTF8(string(raw), "\uFFFD"))
			return nil
		}
		bb.BinaryBuilder.Append(raw)
		return nil
	}
	return fmt.Errorf("no builder for %s", b.Type())
}

// myBits is a BIT(n) value, its bits big-endian, as a number.
func myBits(b []byte) uint64 {
	var buf [8]byte
	copy(buf[8-min(len(b), 8):], b[max(len(b)-8, 0):])
	return binary.BigEndian.Uint64(buf[:])
}

func myInt(v driver.Value) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case uint64:
		return int64(x), nil
	}
	return strconv.ParseInt(myText(v), 10, 64)
}

func myBytes(v driver.Value) []byte {
	if b, ok := v.([]byte); ok {
		return b
	}
	return []byte(myText(v))
}

// myTime reads a DATE, DATETIME or TIMESTAMP as the server writes it:
// "2026-03-01", "2026-03-01 12:30:00.250000". ok is false for a zero
// date ("0000-00-00"), a date with a zero month or day, or any other
// that is no day of the calendar.
func myTime(b []byte) (time.Time, bool) {
	if len(b) < 10 || b[4] != '-' || b[7] != '-' {
		return time.Time{}, false
	}
	y, ok1 := digits(b[0:4])
	mo, ok2 := digits(b[5:7])
	d, ok3 := digits(b[8:10])
	if !ok1 || !ok2 || !ok3 || mo < 1 || mo > 12 || d < 1 || y == 0 {
		return time.Time{}, false
	}
	var h, mi, s, us int
	if len(b) >= 19 && b[10] == ' ' && b[13] == ':' && b[16] == ':' {
		var okh, okm, oks bool
		h, okh = digits(b[11:13])
		mi, okm = digits(b[14:16])
		s, oks = digits(b[17:19])
		if !okh || !okm || !oks {
			return time.Time{}, false
		}
		us = micros(b[19:])
	}
	t := time.Date(y, time.Month(mo), d, h, mi, s, us*1000, time.UTC)
	if t.Day() != d || int(t.Month()) != mo {
		return time.Time{}, false // 2026-02-30, which ALLOW_INVALID_DATES lets in
	}
	return t, true
}

// myDuration reads a TIME: "-838:59:59", "12:30:00.5".
func myDuration(b []byte) (time.Duration, error) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	var parts [3]int
	i, p := 0, 0
	for ; i < len(b) && b[i] != '.'; i++ {
		switch c := b[i]; {
		case c == ':' && p < 2:
			p++
		case c >= '0' && c <= '9':
			parts[p] = parts[p]*10 + int(c-'0')
		default:
			return 0, fmt.Errorf("TIME value %q", clip(string(b), 20))
		}
	}
	d := time.Duration(parts[0])*time.Hour + time.Duration(parts[1])*time.Minute + time.Duration(parts[2])*time.Second +
		time.Duration(micros(b[i:]))*time.Microsecond
	if neg {
		d = -d
	}
	return d, nil
}

// micros reads ".250000" (or nothing) as microseconds.
func micros(b []byte) int {
	if len(b) < 2 || b[0] != '.' {
		return 0
	}
	n, scale := 0, 100000
	for _, c := range b[1:] {
		if c < '0' || c > '9' || scale == 0 {
			break
		}
		n += int(c-'0') * scale
		scale /= 10
	}
	return n
}

func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

package session

import (
	"encoding/json"
	"testing"
)

// rerun --json names a changed type's fields in snake_case, as every other
// key of that document.
func TestDtypeChangeJSON(t *testing.T) {
	b, _ := json.Marshal(DtypeChange{Column: "amount", Was: "int64", Now: "object"})
	if string(b) != `{"column":"amount","was":"int64","now":"object"}` {
		t.Errorf("got %s", b)
	}
}

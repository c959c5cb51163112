package doctor

import "testing"

func TestParseNetworkCell(t *testing.T) {
	ifaces, routes := parseNetworkCell("IFACES=lo\nROUTES=0\n")
	if len(ifaces) != 1 || ifaces[0] != "lo" || routes != 0 {
		t.Fatal(ifaces, routes)
	}
	ifaces, routes = parseNetworkCell("garbage")
	if ifaces != nil || routes != -1 {
		t.Fatal(ifaces, routes)
	}
}

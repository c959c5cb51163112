package mariadbtest

import "testing"

func TestServerStartsOnSocketOnly(t *testing.T) {
	s := Start(t)
	s.CreateDB(t, "t1")
	s.Exec(t, "t1", "CREATE TABLE x(a int); INSERT INTO x VALUES (1),(2),(3)")
	if n := s.QueryInt(t, "t1", "SELECT sum(a) FROM x"); n != 6 {
		t.Fatalf("sum = %d, want 6", n)
	}
	if n := s.QueryInt(t, "", "SELECT @@skip_networking"); n != 1 {
		t.Fatal("the server listens on TCP")
	}
	s.Restart(t)
	if n := s.QueryInt(t, "t1", "SELECT count(*) FROM x"); n != 3 {
		t.Fatalf("after a restart: %d rows", n)
	}
}

// Package sourcetest is the table of database kinds the tests run their
// shared cases against: for each, how to start a real server (pgtest,
// mariadbtest) and the few pieces of SQL that differ between them (a slow
// query, a series of rows, the statements running on the server, quoted
// names). A test written once over Kinds runs against every kind.
//
// It imports only source/pgtest and source/mariadbtest of quarry.
package sourcetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/source/mariadbtest"
	"github.com/quarry-cli/quarry/source/pgtest"
)

// Server is a running server of one kind.
type Server struct {
	User     string // the test user, with every privilege
	Password string // the test user's
	Socket   string // the Unix socket (PostgreSQL: the folder holding it)
	URL      func(db string) string
	URLWith  func(db, password string) string // "" for no password in the URL
	CreateDB func(t testing.TB, name string) string
	Exec     func(t testing.TB, db, sql string, args ...any)
	QueryInt func(t testing.TB, db, sql string, args ...any) int64
	Stop     func()
	Restart  func(t testing.TB)
}

// Kind is one kind of server and its SQL.
type Kind struct {
	Name   string // PostgreSQL, MariaDB
	Scheme string // the URL scheme of its kind in quarry's table
	Start  func(t testing.TB) Server
	// Sales makes, in database sales, the table sales (region, revenue,
	// price, day: North 80000 1.50 2026-01-02, South 100000 2.25
	// 2026-01-03, North 10000 NULL NULL) and, in a schema (a database on
	// MariaDB) "Ventes été", the table "Chiffre d'affaires "net"" with
	// the columns "Région du nord" and "montant €" (Île 5, Île 7, Nord 1).
	Sales string
	// Quote quotes a name.
	Quote func(name string) string
	// Sleep is a statement that runs for seconds.
	Sleep func(seconds int) string
	// Series is a query of n rows, one column g from 1.
	Series func(n int) string
	// Running counts the statements running on the server whose text
	// holds marker, other than itself.
	Running func(marker string) string
	// Wide makes the benchmarks' table wide: 1,000,000 rows × 8 columns
	// (int, int, int, float, float, text, text, date).
	Wide string
	// Totals is what print(type(df).__name__, df.to_dict('records'),
	// str(df.total.dtype)) says of SELECT region, sum(revenue) AS total
	// FROM sales GROUP BY 1 ORDER BY 1: PostgreSQL's sum of int8 is
	// numeric (float64), MariaDB's an exact DECIMAL of whole numbers
	// (int64).
	Totals string
}

// Kinds are the kinds of server quarry's database tests run against.
func Kinds() []Kind {
	return []Kind{
		{
			Name: "PostgreSQL", Scheme: "postgres",
			Start: func(t testing.TB) Server {
				s := pgtest.Start(t)
				return Server{User: s.User, Password: s.Password, Socket: s.Socket, URL: s.URL, URLWith: s.URLWith, CreateDB: s.CreateDB, Exec: s.Exec,
					QueryInt: s.QueryInt, Stop: s.Stop, Restart: s.Restart}
			},
			Sales: `CREATE TABLE sales (region text, revenue int8, price numeric(10,2), day date);
				INSERT INTO sales VALUES ('North', 80000, 1.50, '2026-01-02'), ('South', 100000, 2.25, '2026-01-03'), ('North', 10000, NULL, NULL);
				CREATE SCHEMA "Ventes été";
				CREATE TABLE "Ventes été"."Chiffre d'affaires ""net""" ("Région du nord" text, "montant €" int4);
				INSERT INTO "Ventes été"."Chiffre d'affaires ""net""" VALUES ('Île', 5), ('Île', 7), ('Nord', 1)`,
			Quote:  func(n string) string { return `"` + strings.ReplaceAll(n, `"`, `""`) + `"` },
			Sleep:  func(s int) string { return fmt.Sprintf("SELECT pg_sleep(%d)", s) },
			Series: func(n int) string { return fmt.Sprintf("SELECT g FROM generate_series(1, %d) g", n) },
			Running: func(m string) string {
				return "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%" + m + "%' AND state = 'active' AND pid <> pg_backend_pid()"
			},
			Wide: `CREATE TABLE wide AS SELECT g AS id, g % 100 AS k, (g * 7) % 1000003 AS n,
				random() AS x, random() * 100 AS y, md5(g::text) AS s, 'region ' || (g % 17) AS r,
				date '2026-01-01' + (g % 365) AS d FROM generate_series(1, 1000000) g; ANALYZE wide`,
			Totals: "DataFrame [{'region': 'North', 'total': 90000.0}, {'region': 'South', 'total': 100000.0}] float64",
		},
		{
			Name: "MariaDB", Scheme: "mysql",
			Start: func(t testing.TB) Server {
				s := mariadbtest.Start(t)
				return Server{User: s.User, Password: s.Password, Socket: s.Socket, URL: s.URL, URLWith: s.URLWith, CreateDB: s.CreateDB, Exec: s.Exec,
					QueryInt: s.QueryInt, Stop: s.Stop, Restart: s.Restart}
			},
			Sales: "CREATE TABLE sales (region text, revenue int8, price numeric(10,2), day date);" +
				"INSERT INTO sales VALUES ('North', 80000, 1.50, '2026-01-02'), ('South', 100000, 2.25, '2026-01-03'), ('North', 10000, NULL, NULL);" +
				"CREATE DATABASE `Ventes été` CHARACTER SET utf8mb4;" +
				"CREATE TABLE `Ventes été`.`Chiffre d'affaires \"net\"` (`Région du nord` text, `montant €` int4);" +
				"INSERT INTO `Ventes été`.`Chiffre d'affaires \"net\"` VALUES ('Île', 5), ('Île', 7), ('Nord', 1)",
			Quote:  mariadbtest.Quote,
			Sleep:  func(s int) string { return fmt.Sprintf("SELECT SLEEP(%d)", s) },
			Series: func(n int) string { return fmt.Sprintf("SELECT seq AS g FROM seq_1_to_%d", n) },
			Running: func(m string) string {
				return "SELECT count(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%" + m + "%' AND COMMAND = 'Query' AND ID <> CONNECTION_ID()"
			},
			Wide: `CREATE TABLE wide (id INT, k INT, n INT, x DOUBLE, y DOUBLE, s VARCHAR(32), r VARCHAR(20), d DATE);
				INSERT INTO wide SELECT seq, seq % 100, (seq * 7) % 1000003, RAND(), RAND() * 100, md5(seq), CONCAT('region ', seq % 17),
				DATE '2026-01-01' + INTERVAL (seq % 365) DAY FROM seq_1_to_1000000; ANALYZE TABLE wide`,
			Totals: "DataFrame [{'region': 'North', 'total': 90000}, {'region': 'South', 'total': 100000}] int64",
		},
	}
}

// SalesDB starts a server of kind k with the Sales tables in database
// sales, and returns it with the database's URL.
func (k Kind) SalesDB(t testing.TB) (Server, string) {
	t.Helper()
	srv := k.Start(t)
	u := srv.CreateDB(t, "sales")
	srv.Exec(t, "sales", k.Sales)
	return srv, u
}

// Net is the name of the table with quoted, spaced and non-ASCII names, as
// its kind's SQL writes it: "Ventes été"."Chiffre d'affaires ""net""".
func (k Kind) Net() string {
	return k.Quote("Ventes été") + "." + k.Quote(`Chiffre d'affaires "net"`)
}

#!/usr/bin/env bash
# A test Dask cluster made of containers of the sandbox image, a generated
# general ledger to give it, and DuckDB's answer over that ledger to check
# the cluster's against. Progress goes to stderr; stdout carries only the
# one result line each command promises (or DuckDB's CSV).
#
#   scripts/dask-cluster.sh up --name NAME [--data DIR] [--workers 2]
#       [--worker-memory 600m] [--port PORT] [--image REF] [--label KEY=VALUE]...
#     On a network of its own (quarry-dask-NAME): one scheduler, its port
#     8786 published only on 127.0.0.1:PORT (PORT picked when not given),
#     and the workers (one thread each, a nanny each), which alone see DIR
#     read-only at /cluster. Waits for every worker; prints tcp://127.0.0.1:PORT.
#     A client sees no /cluster: dd.read_parquet("/cluster/gl") reads the
#     footers where it is called; dd.from_map(pd.read_parquet, paths,
#     meta=...) reads them on the workers.
#   scripts/dask-cluster.sh down --name NAME
#     Removes the containers, volumes and network labelled quarry.dask=NAME.
#   scripts/dask-cluster.sh ledger --out DIR [--rows 25000000] [--partitions P]
#       [--image REF] [--label KEY=VALUE]...
#     Writes DIR/gl/part-00000.parquet... (P defaults to one per 250,000
#     rows) and DIR/ledger.json (rows, partitions, accounts, months,
#     total_cents). The default 25 M rows in 100 partitions are about 405 MB
#     of Parquet, 1.8 GiB in Arrow and 7 GiB as pandas objects: several
#     times one worker's memory limit (500 MiB by default), while a
#     partition (18 MiB in Arrow, 72 MiB as objects) leaves a worker room
#     for the two it reads at a time. Prints DIR/gl.
#   scripts/dask-cluster.sh duckdb --data DIR --sql 'SELECT ...' [--image REF]
#       [--label KEY=VALUE]...
#     Runs the SQL with the kernel's DuckDB (pykernel's sql/duckdb.py and
#     sql/front.py) over DIR at /cluster, read-only; prints the result as CSV.
#
# Every container runs as uid 1000 with a read-only root, no capabilities
# and no-new-privileges. The image is --image, else $QUARRY_IMAGE, else
# `quarry sandbox ref`. DOCKER names the engine's CLI (default docker).
#
# Memory: a worker container gets --worker-memory (no swap) and its Dask
# worker a --memory-limit 100 MiB (an eighth, when larger) below it, room
# for the nanny (about 55 MiB) and the page cache of spilling. Workers
# spill to a volume at /var/tmp, not to the /tmp tmpfs: tmpfs pages are
# charged to the container's memory, so spilling there frees nothing and
# the kernel's OOM killer ends the worker.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
DOCKER=${DOCKER:-docker}
label_key=quarry.dask

log() { echo "dask-cluster: $*" >&2; }
die() {
	log "$*"
	exit 1
}
usage() {
	sed -n '/^#   scripts/,/^# Every container/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

# The hardening every container gets, beside its user (uid 1000, the
# image's sandbox user, but for the ledger's writer).
hardened=(--read-only --cap-drop ALL --security-opt no-new-privileges --init)
sandbox_user=(--user 1000:1000)
# dask.dataframe warns at every import that Debian has no dask-expr (so no
# query planning); turning planning off only changes the warning, so it is
# filtered. Arrow's default pool (mimalloc)
# keeps what it freed, which a worker counts as unmanaged memory until it
# pauses for good: the system allocator gives it back.
dask_env=(-e PYTHONWARNINGS=ignore::FutureWarning:dask.dataframe -e ARROW_DEFAULT_MEMORY_POOL=system -e HOME=/tmp)

name="" data="" out="" sql="" image="" port="" workers=2 worker_memory=600m rows=25000000 partitions=""
labels=()

parse() {
	while (($# > 0)); do
		[[ $1 == -h || $1 == --help ]] && usage
		(($# >= 2)) || die "$1 needs a value"
		case $1 in
		--name) name=$2 ;;
		--data) data=$2 ;;
		--out) out=$2 ;;
		--sql) sql=$2 ;;
		--image) image=$2 ;;
		--port) port=$2 ;;
		--workers) workers=$2 ;;
		--worker-memory) worker_memory=$2 ;;
		--rows) rows=$2 ;;
		--partitions) partitions=$2 ;;
		--label)
			[[ $2 =~ ^[A-Za-z0-9._/-]+=[^,]*$ ]] || die "--label $2: want KEY=VALUE (no comma)"
			labels+=("$2")
			;;
		*) die "unknown option $1 (--help says which there are)" ;;
		esac
		shift 2
	done
}

need_name() {
	[[ $name =~ ^[a-z0-9][a-z0-9_.-]{0,39}$ ]] || die "--name: want 1 to 40 of a-z 0-9 _ . - (got '${name}')"
}

number() { [[ $2 =~ ^[0-9]+$ && $2 -ge $3 ]] || die "$1: want a whole number of at least $3 (got '$2')"; }

# mib turns a size as docker takes it (600m, 2g, 1048576k) into MiB.
mib() {
	local v=${1,,}
	[[ $v =~ ^([0-9]+)([kmg]?)b?$ ]] || die "--worker-memory $1: want a size like 600m or 2g"
	case ${BASH_REMATCH[2]} in
	k) echo $((BASH_REMATCH[1] / 1024)) ;;
	g) echo $((BASH_REMATCH[1] * 1024)) ;;
	*) echo "${BASH_REMATCH[1]}" ;;
	esac
}

absolute() { (cd "$1" 2>/dev/null && pwd) || die "$2 $1: no such folder"; }

resolve_image() {
	if [[ -z $image ]]; then
		image=${QUARRY_IMAGE:-}
	fi
	if [[ -z $image ]]; then
		if [[ -x $repo/quarry ]]; then
			image=$("$repo/quarry" sandbox ref)
		elif command -v quarry >/dev/null 2>&1; then
			image=$(quarry sandbox ref)
		else
			image=$(cd "$repo" && go run . sandbox ref)
		fi
	fi
	"$DOCKER" image inspect "$image" >/dev/null 2>&1 ||
		die "image $image is missing: build it with make image (quarry sandbox build), or pass --image"
}

label_args() {
	local l
	printf -- '--label\n%s\n' "$@"
	for l in "${labels[@]}"; do printf -- '--label\n%s\n' "$l"; done
}

# --- down -----------------------------------------------------------------

# remove_cluster removes every object labelled quarry.dask=NAME, whoever
# asked for it; it says what it removed.
remove_cluster() {
	local f="label=$label_key=$name" ids n=0
	mapfile -t ids < <("$DOCKER" ps -aq --filter "$f")
	if ((${#ids[@]} > 0)); then
		"$DOCKER" rm -fv "${ids[@]}" >/dev/null
		n=$((n + ${#ids[@]}))
	fi
	mapfile -t ids < <("$DOCKER" volume ls -q --filter "$f")
	if ((${#ids[@]} > 0)); then
		"$DOCKER" volume rm -f "${ids[@]}" >/dev/null
		n=$((n + ${#ids[@]}))
	fi
	mapfile -t ids < <("$DOCKER" network ls -q --filter "$f")
	if ((${#ids[@]} > 0)); then
		"$DOCKER" network rm "${ids[@]}" >/dev/null
		n=$((n + ${#ids[@]}))
	fi
	log "down $name: removed $n objects"
}

cmd_down() {
	need_name
	remove_cluster
}

# --- up -------------------------------------------------------------------

scheduler_py='
import sys
from distributed import Client
with Client("tcp://127.0.0.1:8786", timeout=60) as c:
    c.wait_for_workers(int(sys.argv[1]), timeout=float(sys.argv[2]))
    print(len(c.scheduler_info()["workers"]))
'

# free_port picks a loopback port nothing listens on, below Linux's
# ephemeral range, so outgoing connections do not take it meanwhile.
free_port() {
	local p
	for _ in $(seq 1 50); do
		p=$((20000 + RANDOM % 12000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

up_done=""
on_up_exit() {
	local rc=$? c
	[[ -n $up_done ]] && return 0
	for c in "$net-scheduler" "$net-worker-0"; do
		if "$DOCKER" container inspect "$c" >/dev/null 2>&1; then
			log "last lines of $c:"
			"$DOCKER" logs --tail 15 "$c" 2>&1 | sed 's/^/    /' >&2 || true
		fi
	done
	log "up $name failed (exit $rc): removing what it made"
	remove_cluster || log "cleanup failed: run scripts/dask-cluster.sh down --name $name"
	log "fix the cause above and run up again"
}

run_scheduler() {
	local p=$1 err
	# Published ports are fixed (not 127.0.0.1::8786), since the engine
	# picks a new one for such a port each time the container starts.
	if err=$("$DOCKER" run -d --name "$net-scheduler" --hostname scheduler --network "$net" \
		"${common[@]}" --memory 1g --memory-swap 1g --tmpfs /tmp:rw,size=64m \
		-p "127.0.0.1:$p:8786" "$image" \
		python3 -m distributed.cli.dask_scheduler --host 0.0.0.0 --port 8786 --no-dashboard 2>&1 >/dev/null); then
		return 0
	fi
	"$DOCKER" rm -f "$net-scheduler" >/dev/null 2>&1 || true
	echo "$err" >&2
	return 1
}

cmd_up() {
	need_name
	number --workers "$workers" 1
	local mem limit margin i w
	mem=$(mib "$worker_memory")
	((mem >= 320)) || die "--worker-memory $worker_memory: a worker and its nanny need at least 320m"
	margin=$((mem / 8 > 100 ? mem / 8 : 100))
	limit=$((mem - margin))
	if [[ -n $data ]]; then
		data=$(absolute "$data" --data)
	fi
	resolve_image
	net=quarry-dask-$name
	if [[ -n $("$DOCKER" ps -aq --filter "label=$label_key=$name") ]] || "$DOCKER" network inspect "$net" >/dev/null 2>&1; then
		die "a cluster $name exists: scripts/dask-cluster.sh down --name $name first"
	fi
	mapfile -t labelled < <(label_args "$label_key=$name")
	common=("${labelled[@]}" "${sandbox_user[@]}" "${hardened[@]}" "${dask_env[@]}")
	trap on_up_exit EXIT
	trap 'exit 130' INT TERM

	local t0=$SECONDS
	log "up $name: network $net"
	"$DOCKER" network create --driver bridge "${labelled[@]}" "$net" >/dev/null
	if [[ -n $port ]]; then
		number --port "$port" 1
		run_scheduler "$port" || die "the scheduler did not start on 127.0.0.1:$port (in use? leave --port out to have one picked)"
	else
		for i in 1 2 3 4 5; do
			port=$(free_port) || die "no free loopback port found"
			run_scheduler "$port" && break
			[[ $i == 5 ]] && die "the scheduler did not start"
			log "port $port was taken: trying another"
		done
	fi
	log "up $name: scheduler on 127.0.0.1:$port, $workers workers of ${mem} MiB (Dask limit ${limit} MiB), image $image"

	local vol l mount=()
	[[ -n $data ]] && mount=(-v "$data:/cluster:ro")
	for ((i = 0; i < workers; i++)); do
		w=$net-worker-$i
		# Spill space on disk, labelled like the rest (removed with the
		# container, and by down).
		vol="type=volume,dst=/var/tmp,volume-label=$label_key=$name"
		for l in "${labels[@]}"; do vol+=",volume-label=$l"; done
		# Workers end when they lose the scheduler (exit 0): the engine
		# starts them again, until one is stopped or killed by hand.
		"$DOCKER" run -d --name "$w" --hostname "worker-$i" --network "$net" "${common[@]}" \
			--restart unless-stopped --memory "${mem}m" --memory-swap "${mem}m" \
			--tmpfs /tmp:rw,size=64m --mount "$vol" "${mount[@]}" "$image" \
			python3 -m distributed.cli.dask_worker "tcp://$net-scheduler:8786" --name "$w" \
			--nthreads 1 --memory-limit "${limit}MiB" --nanny --local-directory /var/tmp/dask \
			--no-dashboard >/dev/null
	done

	local n
	n=$("$DOCKER" exec -i "$net-scheduler" python3 -c "$scheduler_py" "$workers" 120) ||
		die "the scheduler did not see $workers workers within 2 minutes"
	[[ $n == "$workers" ]] || die "the scheduler sees $n workers, not $workers"
	if [[ -n $data ]] && ! "$DOCKER" exec "$net-worker-0" sh -c 'ls /cluster >/dev/null'; then
		die "the workers (uid 1000) cannot read $data: chmod a+rX $data"
	fi
	up_done=1
	log "up $name: $workers workers ready in $((SECONDS - t0))s"
	echo "tcp://127.0.0.1:$port"
}

# --- ledger ---------------------------------------------------------------

# The generator: one partition at a time, each from its own seed (the
# ledger's and the partition's number), so memory stays at one partition's
# (its peak RSS is under 150 MiB by default) and the same --rows and
# --partitions give the same files.
ledger_py='
import json, os, sys, time
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

rows, parts, seed, out = int(sys.argv[1]), int(sys.argv[2]), 20260101, "/out"
t0 = time.time()
accounts = [str(a) for r in ((4000, 4600), (5000, 5400), (6100, 6600), (7000, 7500)) for a in range(r[0], r[1], 10)]
months = ["2026-%02d" % m for m in range(1, 13)]
scenarios = ["actual", "budget"]
depts = ["Sales", "Marketing", "Finance", "HR", "IT", "Legal", "Operations", "Logistics", "Procurement", "R&D",
         "Support", "Facilities", "Quality", "Security", "Training", "Strategy", "Treasury", "Tax", "Audit", "Executive"]
products = ["SKU-%04d" % (1000 + 7 * i) for i in range(50)]
price = np.random.default_rng(seed).integers(250, 25000, len(products))  # cents a unit
names = [pa.array(v, pa.string()) for v in (accounts, months, scenarios, depts, products)]
schema = pa.schema([("account", pa.string()), ("month", pa.string()), ("scenario", pa.string()),
                    ("dept", pa.string()), ("product", pa.string()), ("units", pa.int64()),
                    ("cents", pa.int64()), ("amount", pa.float64())])
total, size = 0, 0
for p in range(parts):
    n = rows // parts + (1 if p < rows % parts else 0)
    r = np.random.default_rng([seed, p])
    picks = [r.integers(0, len(v), n, dtype=np.int32) for v in names]
    units = r.integers(1, 200, n, dtype=np.int64)
    cents = units * price[picks[4]] + r.integers(-500, 500, n)
    refund = (picks[2] == 0) & (r.random(n) < 0.02)  # actuals only
    cents = np.where(refund, -cents, cents)
    cols = [v.take(pa.array(i)) for v, i in zip(names, picks)]
    cols += [pa.array(units), pa.array(cents), pa.array(cents / 100)]
    path = "%s/gl/part-%05d.parquet" % (out, p)
    pq.write_table(pa.Table.from_arrays(cols, schema=schema), path + ".tmp", compression="snappy")
    os.rename(path + ".tmp", path)
    total += int(cents.sum())
    size += os.path.getsize(path)
    print("ledger: partition %d/%d, %d rows" % (p + 1, parts, n), file=sys.stderr, flush=True)
facts = {"rows": rows, "partitions": parts, "accounts": len(accounts), "months": len(months),
         "total_cents": total, "bytes": size, "seconds": round(time.time() - t0, 1)}
with open(out + "/ledger.json", "w") as f:
    json.dump(facts, f)
print(json.dumps(facts), file=sys.stderr)
'

cmd_ledger() {
	[[ -n $out ]] || die "ledger needs --out DIR"
	number --rows "$rows" 1
	if [[ -z $partitions ]]; then
		partitions=$(((rows + 249999) / 250000))
	fi
	number --partitions "$partitions" 1
	((partitions <= rows)) || die "--partitions $partitions: more than the $rows rows"
	mkdir -p "$out/gl"
	out=$(absolute "$out" --out)
	chmod a+rX "$out" "$out/gl"
	rm -f "$out"/gl/part-*.parquet "$out"/gl/part-*.parquet.tmp "$out/ledger.json"
	resolve_image
	local t0=$SECONDS lab
	mapfile -t lab < <(label_args "$label_key.tool=ledger")
	log "ledger: $rows rows in $partitions partitions into $out/gl"
	# As the host's user, so the files are the caller's to read and remove.
	"$DOCKER" run --rm --network none "${lab[@]}" --user "$(id -u):$(id -g)" "${hardened[@]}" \
		--memory 1g --memory-swap 1g --tmpfs /tmp:rw,size=64m -v "$out:/out" "$image" \
		python3 -c "$ledger_py" "$rows" "$partitions"
	log "ledger: done in $((SECONDS - t0))s"
	echo "$out/gl"
}

# --- duckdb ---------------------------------------------------------------

# The kernel's own DuckDB binding, with /cluster added to the folders its
# SQL may read, then the query's result as CSV.
duckdb_main='
assert "allowed_directories = [" in _LOCK
_LOCK = _LOCK.replace("allowed_directories = [", "allowed_directories = [\x27/cluster\x27, ", 1)
'
duckdb_print='
df = sql(sys.argv[1], max_rows=None)
if df is not None:
    df.to_csv(sys.stdout, index=False)
'

cmd_duckdb() {
	[[ -n $data ]] || die "duckdb needs --data DIR"
	[[ -n $sql ]] || die "duckdb needs --sql 'SELECT ...'"
	data=$(absolute "$data" --data)
	resolve_image
	local src=$repo/pykernel/quarry_kernel/sql lab program
	[[ -r $src/duckdb.py && -r $src/front.py ]] || die "no $src/duckdb.py and front.py"
	mapfile -t lab < <(label_args "$label_key.tool=duckdb")
	program="$(cat "$src/duckdb.py")
$duckdb_main
$(cat "$src/front.py")
$duckdb_print"
	"$DOCKER" run --rm --network none "${lab[@]}" "${sandbox_user[@]}" "${hardened[@]}" -e HOME=/tmp \
		--memory 2g --memory-swap 2g --tmpfs /tmp:rw,size=256m -v "$data:/cluster:ro" "$image" \
		python3 -c "$program" "$sql"
}

(($# > 0)) || usage
cmd=$1
shift
parse "$@"
command -v "$DOCKER" >/dev/null 2>&1 || die "no $DOCKER CLI on PATH (scripts/ensure-docker.sh installs Docker)"
case $cmd in
up) cmd_up ;;
down) cmd_down ;;
ledger) cmd_ledger ;;
duckdb) cmd_duckdb ;;
-h | --help | help) usage ;;
*) die "unknown command $cmd: up, down, ledger or duckdb" ;;
esac

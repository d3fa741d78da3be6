#!/usr/bin/env bash
# End-to-end tests of `loupe db import-nsys`. Usage: nsys_cases.sh BIN_DIR SRC_DIR CASE
# The Nsight Systems export is generated from tests/unit/profiler/fixtures/nsys_export.sql.
source "$(dirname "$0")/lib.sh"
FIXTURE=$SRC/tests/unit/profiler/fixtures/nsys_export.sql

make_export() { sqlite3 "$1" < "$FIXTURE"; }

case_import_nsys() {
  make_export "$WORK/report.sqlite"
  local before; before=$(sha256sum < "$WORK/report.sqlite")
  "$LOUPE" db import-nsys "$WORK/report.sqlite" --db "$WORK/p.db" >"$WORK/out"
  grep -q "as run 1 of $WORK/p.db: 3 kernels, 3 copies/sets on NVIDIA H100 80GB HBM3" "$WORK/out" \
    || { cat "$WORK/out"; fail "unexpected summary"; }
  [ "$(sha256sum < "$WORK/report.sqlite")" = "$before" ] || fail "the export was modified"
  q() { sqlite3 "$WORK/p.db" "$1"; }
  [ "$(q "select status from runs where id = 1")" = complete ] || fail "run not complete"
  [ "$(q "select d.kind || '|' || d.name from runs r join devices d on d.id = r.device_id")" = \
    "cuda|NVIDIA H100 80GB HBM3" ] || fail "device"
  # Kernel names come through our strings table, in Nsight Systems' column names.
  [ "$(q "select s.value || '|' || k.gridX || '|' || k.registersPerThread from kernels k
          join strings s on s.id = k.demangledName where k.correlationId = 103")" = \
    "fusion_3_kLoop|256|16" ] || fail "kernel row"
  [ "$(q "select count(*) from kernels where run_id = 1")" = 3 ] || fail "kernel count"
  [ "$(q "select count(*) from memcpy where run_id = 1 and copyKind = -1")" = 1 ] || fail "memset"
  [ "$(q "select sum(bytes) from memcpy where run_id = 1")" = $((1048576 + 65536 + 4096)) ] \
    || fail "copy bytes"
  # A second import is a second run.
  "$LOUPE" db import-nsys "$WORK/report.sqlite" --db="$WORK/p.db" >/dev/null
  [ "$(q "select count(*) from runs")" = 2 ] || fail "second run"
  echo "import ok"
}

case_import_nsys_bad_inputs() {
  make_export "$WORK/good.sqlite"
  "$LOUPE" db import-nsys "$WORK/good.sqlite" --db "$WORK/p.db" >/dev/null
  local db_before; db_before=$(sha256sum < "$WORK/p.db")

  echo "not a database" > "$WORK/report.txt"
  expect_exit 2 "Nsight Systems export '$WORK/report.txt': not an SQLite database" \
    "$LOUPE" db import-nsys "$WORK/report.txt" --db "$WORK/p.db"
  sqlite3 "$WORK/notables.sqlite" "create table other(x)"
  expect_exit 2 "'$WORK/notables.sqlite': no table StringIds, CUPTI_ACTIVITY_KIND_KERNEL" \
    "$LOUPE" db import-nsys "$WORK/notables.sqlite" --db "$WORK/p.db"
  # Corrupt: the schema page is intact, every table page is garbage.
  make_export "$WORK/corrupt.sqlite"
  sqlite3 "$WORK/corrupt.sqlite" "create table pad(x); insert into pad
    with recursive n(i) as (select 1 union all select i + 1 from n where i < 300)
    select hex(randomblob(64)) from n"
  python3 - "$WORK/corrupt.sqlite" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
for i in range(4096, len(b)):
    b[i] = (0xA5 ^ (i * 31)) & 0xFF
open(p, "wb").write(bytes(b))
PY
  expect_exit 2 "'$WORK/corrupt.sqlite'.*malformed" \
    "$LOUPE" db import-nsys "$WORK/corrupt.sqlite" --db "$WORK/p.db"
  expect_exit 2 "'$WORK/missing.sqlite' does not exist" \
    "$LOUPE" db import-nsys "$WORK/missing.sqlite" --db "$WORK/p.db"
  [ "$(sha256sum < "$WORK/p.db")" = "$db_before" ] || fail "a failed import changed the DB"
  # A failed import does not even create the DB.
  expect_exit 2 "not an SQLite database" "$LOUPE" db import-nsys "$WORK/report.txt" --db "$WORK/new.db"
  [ ! -e "$WORK/new.db" ] || fail "a failed import created the DB"

  expect_exit 2 "expected exactly one FILE.sqlite" "$LOUPE" db import-nsys --db "$WORK/p.db"
  expect_exit 2 "unknown flag '--nope'" "$LOUPE" db import-nsys "$WORK/good.sqlite" --nope
  expect_exit 2 "unknown subcommand 'frobnicate'" "$LOUPE" db frobnicate
  expect_exit 2 "loupe db import-nsys FILE.sqlite" "$LOUPE" db
  echo "bad inputs ok"
}

"case_$CASE"

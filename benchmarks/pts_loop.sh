#!/usr/bin/env bash
# The full `pts` profile on a loop device over a small file-backed image (root; NEVER a real disk), with a time
# limit per test (pts.test_limit_s) and RUNTIME seconds per fio point: the purge (blkdiscard), the preconditioning
# and the first rounds of every test; the sweep is interrupted (SIGINT, as Ctrl-C) once a chosen test has
# measured its first round, then resumed with the same run id: the interrupted test continues at its next round,
# the finished tests and every purge/preconditioning stay as they were (compared from the manifest).
#
#   flock /work/wt/full.lock bash benchmarks/pts_loop.sh [IMAGE_MIB=64] [LIMIT_S=10] [RUNTIME_S=1] [KILL_AT=tp-1024k]
#   TESTS="tp xsr" bash benchmarks/pts_loop.sh 16 4 1 tp-1024k     # a quick check of the script (about 30 s)
#
# About 6 minutes on a 2-core VM with the defaults.  Prints the estimate the pts profile announces, the
# interruption and the resume, and a table per test (purge time, preconditioning, rounds, stops).
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE_MIB=${1:-64} LIMIT_S=${2:-10} RUNTIME_S=${3:-1} KILL_AT=${4:-tp-1024k}
PY=.venv/bin/python
[ "$(id -u)" = 0 ] || { echo "pts_loop.sh needs root (losetup)."; exit 1; }
WORK=$(mktemp -d /tmp/pts-loop.XXXXXX)
IMG="$WORK/image.bin"
truncate -s "${IMAGE_MIB}M" "$IMG"
DEV=$(losetup --find --show "$IMG")
NAME=${DEV#/dev/}
SWEEP_PID=
cleanup() {
  [ -n "$SWEEP_PID" ] && kill "$SWEEP_PID" 2>/dev/null || true
  losetup -d "$DEV" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
# PROFILE=pts as shipped, plus the time limit per test (the only change)
PROFILE="$WORK/pts-limited.yaml"
# (TESTS="tp lat" keeps those tests only, through the profile's tests: key)
sed "s/^pts:$/pts:\n  test_limit_s: $LIMIT_S/" src/helpers/resources/profiles/pts.yaml > "$PROFILE"
if [ -n "${TESTS:-}" ]; then sed -i "s/^  tests: .*/  tests: [$(echo $TESTS | sed 's/ /, /g')]/" "$PROFILE"; fi
diff src/helpers/resources/profiles/pts.yaml "$PROFILE" || true
echo "--- what the shipped pts profile says before it starts (DRY_RUN, no I/O):"
$PY -m helpers.run.sweep --target="$DEV" --profile=pts --run=estimate --size="${IMAGE_MIB}m" --dry-run \
  --raw-dir="$WORK/raw" --destroy-device="$NAME" | grep -m2 -E "profile pts|about"
RUN=loop-$(date +%H%M%S)
ARGS=(--target="$DEV" --profile="$PROFILE" --run="$RUN" --runtime="$RUNTIME_S" --size="${IMAGE_MIB}m"
      --raw-dir="$WORK/raw" --destroy-device="$NAME")
echo "--- run $RUN on $DEV (${IMAGE_MIB} MiB image), test_limit_s $LIMIT_S, RUNTIME $RUNTIME_S; interrupted in $KILL_AT"
T0=$(date +%s)
$PY -m helpers.run.sweep "${ARGS[@]}" > "$WORK/first.log" 2>&1 &
SWEEP_PID=$!
until grep -q "PTS $KILL_AT round 1:" "$WORK/first.log" 2>/dev/null; do
  kill -0 "$SWEEP_PID" 2>/dev/null || { cat "$WORK/first.log"; echo "the sweep ended before $KILL_AT"; exit 1; }
  sleep 0.5
done
sleep 0.7  # into round 2's first point
kill -INT "$SWEEP_PID"
wait "$SWEEP_PID" || true
SWEEP_PID=
T1=$(date +%s)
grep -E "^(starting|PTS|.*interrupted)" "$WORK/first.log" | tail -n 6
cp "$WORK/raw/$RUN/manifest.json" "$WORK/before.json"
echo "--- interrupted after $((T1 - T0)) s; resuming"
$PY -m helpers.run.sweep "${ARGS[@]}" > "$WORK/second.log" 2>&1
T2=$(date +%s)
grep -E "^(resuming|PTS)" "$WORK/second.log" | head -n 4
echo "--- resumed run ended after $((T2 - T1)) s (total $((T2 - T0)) s)"
$PY - "$WORK/before.json" "$WORK/raw/$RUN/manifest.json" "$KILL_AT" <<'EOF'
import json, sys
before, after, killed = (json.load(open(sys.argv[1]))["pts"]["tests"], json.load(open(sys.argv[2])), sys.argv[3])
tests = after["pts"]["tests"]
print(f"status {after['status']}; resumes {len(after.get('resumes', []))}")
print(f"{'test':9} {'purge':12} {'purged at':20} {'precondition':>13} {'rounds':>6}  stop")
for name, t in tests.items():
    p, pc = t.get("purge") or {}, t.get("precondition") or {}
    rounds = len(t.get("rounds") or []) or t.get("stopped_at_limit", {}).get("samples", "-")
    stop = (t.get("result") or {}).get("reason", "") if t.get("rounds") else str(t.get("stopped_at_limit") or "")
    print(f"{name:9} {p.get('method', ''):12} {p.get('at', '')[:19]:20} {pc.get('bytes', 0) / 2**20:10.0f} MiB "
          f"{rounds!s:>6}  {stop[-90:]}")
    old = before.get(name) or {}
    if old.get("prepared"):  # measured before the interruption: its purge and preconditioning are the same
        assert t["purge"] == old["purge"] and t.get("precondition") == old.get("precondition"), name
        assert not t.get("repeated_preparations"), name
k = tests[killed]
print(f"{killed}: rounds before the interruption {len(before[killed].get('rounds') or [])}, after the resume "
      f"{len(k['rounds'])}; purge and preconditioning kept: {k['purge'] == before[killed]['purge']}")
assert len(before[killed]["rounds"]) >= 1 and k["rounds"][:len(before[killed]["rounds"])] == before[killed]["rounds"]
EOF

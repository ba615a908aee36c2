#!/usr/bin/env bash
# Regenerates the real fio outputs of this corpus (fio 3.33, Linux). Run as root from the repo root:
#   bash tests/data/fio/make_corpus.sh
# Targets are 64 MiB files in build/corpus/ (disk-backed, gitignored); the trim case uses a loop
# device on a file-backed image there (never a real disk), detached at the end.
set -euo pipefail
OUT=$(cd "$(dirname "$0")" && pwd)
W=${W:-$PWD/build/corpus}
mkdir -p "$W" "$OUT"/{json,jsonplus,multijob,mixed,options,clientserver,text,benchfio/4k,benchfio/128k,bad}
T="$W/target.bin"
COMMON=(--filename="$T" --size=64m --runtime=1 --time_based)

# plain json, options on the command line
fio --name=randread-qd4 "${COMMON[@]}" --rw=randread --bs=4k --iodepth=4 --ioengine=libaio --direct=1 \
    --output-format=json --output="$OUT/json/randread-qd4.json"
# json+ (clat bins), mixed workload: one row per direction, histograms for both
fio --name=randrw-mix70 "${COMMON[@]}" --rw=randrw --rwmixread=70 --bs=4k --iodepth=8 --ioengine=libaio \
    --direct=1 --output-format=json+ --output="$OUT/jsonplus/randrw-mix70.json"

# several jobs, stonewall groups, numjobs=2 clones without group_reporting
cat > "$W/stonewall.fio" <<JOB
[global]
filename=$T
size=64m
runtime=1
time_based
ioengine=libaio
direct=1
[seqread]
rw=read
bs=128k
[randwrite]
stonewall
rw=randwrite
bs=4k
iodepth=16
[clones]
stonewall
rw=randread
numjobs=2
JOB
fio "$W/stonewall.fio" --output-format=json --output="$OUT/multijob/stonewall-clones.json"
# numjobs=3 with group_reporting: one entry for the three clones
fio --name=grouped "${COMMON[@]}" --rw=randread --numjobs=3 --group_reporting --ioengine=libaio --direct=1 \
    --output-format=json --output="$OUT/multijob/group-reporting.json"

# rw without rwmixread (fio default 50)
fio --name=rw-default-mix "${COMMON[@]}" --rw=rw --bs=64k --ioengine=libaio --direct=1 \
    --output-format=json --output="$OUT/mixed/rw-default-mix.json"
# trim needs a block device: a loop device over a file-backed image (trim on a regular file fails, see bad/)
truncate -s 64m "$W/loop.img"
LOOP=$(losetup -f --show "$W/loop.img")
cat > "$W/trim.fio" <<JOB
[global]
filename=$LOOP
size=64m
runtime=1
time_based
ioengine=libaio
direct=1
[randtrim]
rw=randtrim
bs=64k
[trimwrite]
stonewall
rw=trimwrite
bs=16k
JOB
fio "$W/trim.fio" --output-format=json --output="$OUT/mixed/trim-loop.json" || true
losetup -d "$LOOP"

# options in 'global options' (per-direction bs, string values), one job overriding them
cat > "$W/global.fio" <<JOB
[global]
filename=$T
size=64m
runtime=1
time_based
ioengine=libaio
direct=1
rw=randrw
rwmixread=60
bs=4k,16k
iodepth=64
[from-global]
[override]
stonewall
rw=write
bs=1m
iodepth=2
JOB
fio "$W/global.fio" --output-format=json --output="$OUT/options/global-options.json"
# options left at fio defaults: no bs, iodepth, rwmixread, ioengine, direct
fio --name=defaults "${COMMON[@]}" --rw=randrw --output-format=json --output="$OUT/options/defaults.json"

# client/server on loopback, two client connections (-> "All clients" aggregate, disk_util repeated)
cat > "$W/cs1.fio" <<JOB
[global]
filename=$W/cs1.bin
size=64m
runtime=1
time_based
ioengine=libaio
direct=1
[cs-randread]
rw=randread
bs=4k
iodepth=8
JOB
cat > "$W/cs2.fio" <<JOB
[global]
filename=$W/cs2.bin
size=64m
runtime=1
time_based
[cs-write]
rw=write
bs=64k
JOB
fio --server=ip:127.0.0.1,8765 --daemonize="$W/server.pid"
sleep 1
fio --client=127.0.0.1,8765 "$W/cs1.fio" --client=127.0.0.1,8765 "$W/cs2.fio" \
    --output-format=json --output="$OUT/clientserver/two-clients.json"
fio --client=127.0.0.1,8765 "$W/cs1.fio" --output-format=json --output="$OUT/clientserver/one-client.json"
kill "$(cat "$W/server.pid")"; sleep 4

# text before the JSON (fio's note on stdout), normal output after it, status-interval objects
fio --name=note-before "${COMMON[@]}" --rw=randread --iodepth=4 --output-format=json \
    > "$OUT/text/note-before.json" 2>&1
fio --name=json-normal "${COMMON[@]}" --rw=randread --ioengine=libaio --direct=1 \
    --output-format=json,normal --output="$OUT/text/json-normal.json"
fio --name=status-interval --filename="$T" --size=64m --runtime=2 --time_based --status-interval=1 \
    --rw=randread --ioengine=libaio --direct=1 --output-format=json --output="$OUT/text/status-interval.json"

# a bench-fio style tree: <dir>/<bs>/<mode>-<iodepth>-<numjobs>.json (bench-fio runs fio with json output)
fio --name=benchfio "${COMMON[@]}" --rw=randread --bs=4k --iodepth=8 --numjobs=1 --ioengine=libaio \
    --direct=1 --group_reporting --output-format=json --output="$OUT/benchfio/4k/randread-8-1.json"
fio --name=benchfio "${COMMON[@]}" --rw=read --bs=128k --iodepth=1 --numjobs=2 --ioengine=libaio \
    --direct=1 --group_reporting --output-format=json --output="$OUT/benchfio/128k/read-1-2.json"

# bad: trim on a regular file -> the job reports error 25 (ENOTTY)
fio --name=trim-on-file "${COMMON[@]}" --rw=randtrim --output-format=json \
    --output="$OUT/bad/error-trim-on-file.json" || true
# bad: a job that never starts (exitall stops it during its startdelay) -> zero I/O
fio --name=quick --filename="$T" --size=64m --io_size=4k --rw=read --exitall \
    --name=never-started --filename="$T" --size=64m --startdelay=5 --rw=read \
    --output-format=json --output="$OUT/bad/zero-io.json"

"""Write tests/data/traces/known-fio.blktrace: the I/Os of known-fio-tracefs.trace (a real trace of a known fio job,
see README.md) as blktrace's binary format, since blktrace itself is refused by this kernel's lockdown.

One D (issue) and one C (complete) event per I/O, struct blk_io_trace as in the kernel's
include/uapi/linux/blktrace_api.h (48 bytes, the host's byte order; magic 0x65617400 | version 7), with a process notify
first so blkparse names the command. blkparse (apt-get install blktrace) reads it like a capture:
``blkparse -i known-fio.blktrace -o -``.  Run: ``PYTHONPATH=src python tests/data/traces/make_blktrace.py``."""

from __future__ import annotations

import struct
from pathlib import Path

from helpers.ingest import traces

HERE = Path(__file__).resolve().parent
MAGIC = 0x65617400 | 0x07
EVENT = struct.Struct("=IIQQIIIIIHH")  # magic, sequence, time ns, sector, bytes, action, pid, device, cpu, error, pdu_len
TA_ISSUE, TA_COMPLETE = 7, 8  # __BLK_TA_ISSUE, __BLK_TA_COMPLETE
TC_READ, TC_WRITE, TC_ISSUE, TC_COMPLETE, TC_FS = 1 << 0, 1 << 1, 1 << 6, 1 << 7, 1 << 8
TN_PROCESS = 0 | (1 << 10) << 16  # __BLK_TN_PROCESS in the BLK_TC_NOTIFY category: the pid's command name
PID, COMM = 4242, b"fio"


def device(stream: str) -> int:
    major, minor = (int(x) for x in stream.split(","))
    return major << 20 | minor  # the kernel's MKDEV for blktrace


def main() -> Path:
    ios = traces.read_trace(HERE / "known-fio-tracefs.trace").ios
    t0 = int(round(ios["t_s"].min() * 1e9)) - 1000
    events = []
    for r in ios.itertuples():
        dev = device(r.stream)
        cat = TC_FS | (TC_READ if r.op == "read" else TC_WRITE)
        start = int(round(r.t_s * 1e9)) - t0
        done = start + int(round(r.latency_us * 1000))
        for when, act, tc in ((start, TA_ISSUE, TC_ISSUE), (done, TA_COMPLETE, TC_COMPLETE)):
            events.append((when, r.offset_bytes // 512, int(r.size_bytes), act | (cat | tc) << 16, dev))
    events.sort(key=lambda e: e[0])
    dev0 = device(ios["stream"].iloc[0])
    out = [EVENT.pack(MAGIC, 0, 0, 0, 0, TN_PROCESS, PID, dev0, 0, 0, len(COMM) + 1) + COMM + b"\0"]
    for seq, (when, sector, nbytes, action, dev) in enumerate(events, start=1):
        out.append(EVENT.pack(MAGIC, seq, when, sector, nbytes, action, PID, dev, 0, 0, 0))
    path = HERE / "known-fio.blktrace"
    path.write_bytes(b"".join(out))
    return path


if __name__ == "__main__":
    print(main())

"""The processed results schema: every column, its unit and meaning.

``docs/schema.md`` is generated from this table (``python -m helpers.processed.schema``) and a test
checks that the ingest output has exactly these columns.
"""

from __future__ import annotations

from helpers.fio.reader import PERCENTILE_KEYS
from helpers.processed.validity import FLAG_COLUMNS

# (column, pandas dtype, description). Units are in the column names.
RESULT_COLUMNS: list[tuple[str, str, str]] = [
    ("run_id", "string", "Run identifier (folder name under data/raw/)."),
    ("host", "string", "Host that ran fio (manifest host, or the client/server entry's hostname)."),
    ("fio_version", "string", "fio version string from the JSON ('fio-3.33')."),
    ("source_file", "string", "Raw file path relative to the ingested folder."),
    ("run_index", "int64", "Which fio run of the file the row is from: 0 for the first (a lab point's file holds "
     "one run), 1, 2, ... when separate fio processes were appended to one file (fio ... >> results.log); "
     "--status-interval reports of one process are one run, its final numbers. Part of the key that joins "
     "results, histograms and timeseries (run_id, source_file, run_index, job_index, direction)."),
    ("point_id", "string", "Sweep point id (the lab's fio job name) or the fio job name for foreign files."),
    ("group", "string", "Sweep group from the profile (qd, blocksize, mix, ...); <NA> for foreign files."),
    ("job_name", "string", "fio jobname."),
    ("job_index", "int64", "Position of the job entry in the file's job list (distinguishes numjobs clones)."),
    ("rw", "string", "fio rw mode of the job (read, randwrite, randrw, ...), without ':N' suffixes. Like every "
     "configuration column (bs_bytes to direct): <NA> when the file does not state it, see config_note."),
    ("direction", "string", "I/O direction of this row: read, write or trim."),
    ("bs_bytes", "int64", "Block size of this direction in bytes (per-direction bs like '4k,16k' resolved)."),
    ("iodepth", "int64", "Configured queue depth per job (fio default 1)."),
    ("numjobs", "int64", "Configured number of jobs (fio default 1)."),
    ("rwmixread_pct", "float64", "Read share of a mixed workload in percent (fio default 50); NaN for pure modes."),
    ("rate_iops", "float64", "Offered load: fio's rate_iops cap for this direction, per job (open-loop points; "
     "a grouped entry of numjobs clones was offered numjobs x this); NaN when the job was not rate-limited."),
    ("ioengine", "string", "fio ioengine (fio default psync)."),
    ("direct", "int64", "1 when O_DIRECT was used (fio default 0)."),
    ("group_reporting", "bool", "True when fio aggregated all clones into this entry."),
    ("target_file", "string", "fio's filename option: the target the job named (<NA> when the file does not "
     "state it, e.g. fio's text output, or fio chose the file name itself)."),
    ("target_size_bytes", "Int64", "fio's size option in bytes (<NA> when not stated or not a plain size, e.g. "
     "'80%')."),
    ("runtime_s", "float64", "Measured runtime of this direction in seconds (fio's runtime, ms / 1000)."),
    ("settled_after_s", "float64", "A settle-early probe (adaptive or characterize search) that ended before its "
     "runtime because its IOPS had settled: the seconds after which it did (ramp included; the run manifest's "
     "settled_after_s). NaN when the point ran its full runtime or volume, or is not a lab sweep point."),
    ("io_bytes", "int64", "Bytes transferred in this direction (fio 2.x wrote KiB here: multiplied by 1024)."),
    ("total_ios", "int64", "I/Os completed in this direction; <NA> for fio before 2.1.14, which did not write it "
     "(a direction did I/O when io_bytes or iops is positive)."),
    ("iops", "float64", "I/O operations per second in this direction."),
    ("bw_bytes_per_s", "float64", "Bandwidth in bytes per second (fio bw_bytes; fio 2.x files have only "
     "'bw' in KiB/s, multiplied by 1024)."),
    ("lat_mean_us", "float64", "Mean total latency (submission + completion) in microseconds. Every latency column "
     "is NaN when fio did not measure that latency (a block with N = 0, or all zeros in fio 2.x: gtod_reduce=1, "
     "slat on synchronous engines), never 0."),
    ("lat_stddev_us", "float64", "Standard deviation of total latency in microseconds."),
    ("lat_min_us", "float64", "Minimum total latency in microseconds."),
    ("lat_max_us", "float64", "Maximum total latency in microseconds."),
    ("clat_mean_us", "float64", "Mean completion latency in microseconds."),
    ("slat_mean_us", "float64", "Mean submission latency in microseconds."),
    ("clat_p50_us", "float64", "50th percentile completion latency in microseconds (NaN if fio did not report it)."),
    ("clat_p90_us", "float64", "90th percentile completion latency in microseconds."),
    ("clat_p95_us", "float64", "95th percentile completion latency in microseconds."),
    ("clat_p99_us", "float64", "99th percentile completion latency in microseconds."),
    ("clat_p99_9_us", "float64", "99.9th percentile completion latency in microseconds."),
    ("clat_p99_99_us", "float64", "99.99th percentile completion latency in microseconds."),
    ("lat_p50_us", "float64", "50th percentile total latency (submission + completion) in microseconds: fio's "
     "lat_ns percentiles, written when the job ran with lat_percentiles=1; NaN otherwise."),
    ("lat_p90_us", "float64", "90th percentile total latency in microseconds (lat_percentiles=1; else NaN)."),
    ("lat_p95_us", "float64", "95th percentile total latency in microseconds (lat_percentiles=1; else NaN)."),
    ("lat_p99_us", "float64", "99th percentile total latency in microseconds (lat_percentiles=1; else NaN)."),
    ("lat_p99_9_us", "float64", "99.9th percentile total latency in microseconds (lat_percentiles=1; else NaN)."),
    ("lat_p99_99_us", "float64", "99.99th percentile total latency in microseconds (lat_percentiles=1; else NaN)."),
    ("usr_cpu_pct", "float64", "fio user CPU in percent of one CPU (job level, same for each direction row)."),
    ("sys_cpu_pct", "float64", "fio system CPU in percent of one CPU (job level)."),
    ("process_cpu_pct", "float64", "The whole fio process's CPU while it ran, in percent of one CPU (all its "
     "threads: the jobs, fio's own and the kernel's io_uring workers; sampled by the lab from /proc, the set-up "
     "left out: helpers.run.cpu; same for each row of the point). fio's usr/sys are each job thread's own and miss "
     "io_uring's workers (zram, 2 io_uring jobs: fio 53 % per job, the process 187 %). NaN for others' files and "
     "multi-host points."),
    ("timestamp_s", "int64", "fio's Unix timestamp of the result (seconds)."),
    ("disk_read_ios", "Int64", "Read I/Os the kernel counted on the disks of the file's top-level disk_util list "
     "(summed over its entries; <NA> when the file has none), each I/O once at the top of a device stack: "
     "when the list holds stacked devices (entries with fio's aggr_* fields, e.g. dm-0 or md0), only those "
     "count, not the member disks fio lists beside them (sda under dm-0 carries the same I/Os again). For "
     "client/server files only the entries of the row's host:port, and a disk repeated once per client "
     "connection is counted once (its largest count), never summed. Far fewer than total_ios on reads "
     "suggests the page cache served them (flag_page_cache uses these top-level numbers)."),
    ("disk_write_ios", "Int64", "Write I/Os counted on the disks of disk_util, summed like disk_read_ios."),
    ("disk_read_merges", "Int64", "Read requests the kernel merged into others (disk_util read_merges, summed "
     "like disk_read_ios): disk_read_ios + disk_read_merges approximates the reads fio issued to the device."),
    ("disk_write_merges", "Int64", "Write requests merged (disk_util write_merges, summed like disk_read_ios)."),
    ("source_format", "string", "The fio output format the row was read from: json, json+ (JSON with latency "
     "bins), normal (fio's human-readable text) or terse (--minimal)."),
    ("rounded_columns", "string", "Comma-separated names of this row's columns that the source printed rounded "
     "(text output such as 'IOPS=45.2k': exact only to the printed digits); <NA> for JSON, which is exact."),
    ("config_note", "string", "Why configuration columns are <NA>, in one sentence (e.g. 'options not recorded by "
     "this fio version' for fio before 2.3, or a client/server option the file cannot attribute to this "
     "client), and what a text source leaves open (terse percentiles taken as completion latency); <NA> when "
     "the file states the whole configuration (fio's defaults for options it omits)."),
] + FLAG_COLUMNS

PERCENTILES: dict[str, str] = {k: f"clat_{v}_us" for k, v in PERCENTILE_KEYS.items()}  # fio key -> column
LAT_PERCENTILES: dict[str, str] = {k: f"lat_{v}_us" for k, v in PERCENTILE_KEYS.items()}  # total latency

QUARANTINE_COLUMNS: list[tuple[str, str, str]] = [
    ("run_id", "string", "Run identifier."),
    ("source_file", "string", "Raw file path relative to the ingested folder."),
    ("run_index", "Int64", "Which fio run of the file (as in results); <NA> when the whole file is unusable."),
    ("job_name", "string", "fio jobname, or <NA> when the whole file is unusable."),
    ("reason", "string", "One sentence: why the file or job is not a data point."),
]


HISTOGRAM_COLUMNS: list[tuple[str, str, str]] = [
    ("run_id", "string", "Run identifier."),
    ("source_file", "string", "Raw file path relative to the ingested folder (joins with results)."),
    ("run_index", "int64", "Which fio run of the file, as in results (joins with results)."),
    ("point_id", "string", "Sweep point id, as in results."),
    ("job_name", "string", "fio jobname."),
    ("job_index", "int64", "Position of the job entry in the file (joins with results with source_file)."),
    ("direction", "string", "read, write or trim."),
    ("latency", "string", "Which latency the bins count: 'lat' (total latency, submission + completion; fio "
     "writes these bins when the job ran with lat_percentiles=1, and they are then kept instead of the clat "
     "bins) or 'clat' (completion latency only, fio's default)."),
    ("bin_ns", "int64", "Latency of the bin in nanoseconds (of the kind named in 'latency'): fio's json+ 'bins' "
     "key (the bin's representative value, the value fio itself reports as a percentile)."),
    ("count", "int64", "I/Os that fell into this bin (fio only writes bins with a non-zero count)."),
]

TIMESERIES_COLUMNS: list[tuple[str, str, str]] = [
    ("run_id", "string", "Run identifier."),
    ("point_id", "string", "Sweep point id, as in results (the fio job name of the log's job)."),
    ("source_file", "string", "The point's raw JSON file, relative to the ingested folder (joins with results)."),
    ("run_index", "int64", "The fio run of that JSON the logs belong to, as in results: its last (each fio "
     "process rewrites its log files)."),
    ("job_index", "int64", "Position of the point's job entry in its JSON, as in results (joins with results on "
     "source_file, job_index, direction): numjobs clones grouped by group_reporting share entry 0."),
    ("log_job", "int64", "fio's job number in the log file name (PREFIX_iops.N.log): every numjobs clone writes "
     "its own logs, so a grouped entry has one series per clone."),
    ("direction", "string", "read, write or trim."),
    ("log", "string", "The fio log(s) the row's values come from: 'iops,bw' (written together at one tick of "
     "fio's helper thread), 'lat,clat,slat' (at one completion), 'clat_hist', or one of them alone when its "
     "entries do not pair up one to one with the others' time stamps."),
    ("t_ms", "int64", "fio's own time stamp of the log entry, as written (ms since the end of the ramp, or Unix ms "
     "with log_unix_epoch=1); for logs written per I/O, the end of the aggregated window; for a from_json row, "
     "the JSON's runtime."),
    ("window_start_s", "float64", "Start of the time the entry covers, seconds since the end of the ramp (fio "
     "starts its logs when ramp_time ends): fio's previous call for the job, i.e. the previous entry of the "
     "same log, job and direction (0 for the first), or the job's entry in another direction in between; after a "
     "bw/iops gap in which fio called without logging (a stall: no I/O completed) one tick before the entry "
     "(helpers.ingest.timeseries.tick_starts; where no log tells a stall from a late call, the JSON's io_bytes "
     "decide)."),
    ("window_end_s", "float64", "End of the time the entry covers: the entry's time stamp in seconds since the end "
     "of the ramp.  Windows are not on a grid: a late entry, two entries in one interval and the job's final "
     "partial window keep their own widths (window_end_s - window_start_s)."),
    ("interval_s", "float64", "The log's interval in seconds (log_avg_msec or log_hist_msec; 1 s for logs "
     "written per I/O, aggregated into 1 s windows): the width a window normally has."),
    ("from_json", "bool", "True for the job's final partial bw/iops window, which fio does not log: the JSON's "
     "io_bytes / total_ios minus what the log entries hold, over [last entry, the JSON's runtime]."),
    ("ramp_s", "float64", "The point's ramp_time in seconds (not in the logs; views shade it before 0)."),
    ("iops", "float64", "I/O operations per second in the window (fio iops log; NaN in rows of other logs)."),
    ("bytes_per_s", "float64", "Bytes per second in the window (fio bw log, KiB/s x 1024)."),
    ("lat_mean_us", "float64", "Mean TOTAL latency (submission + completion, fio lat log) in the window, µs."),
    ("clat_mean_us", "float64", "Mean completion latency (fio clat log) in the window, µs."),
    ("slat_mean_us", "float64", "Mean submission latency (fio slat log) in the window, µs (NaN when fio did not "
     "measure it)."),
    ("hist_ios", "Int64", "I/Os in the window's completion-latency histogram (fio clat_hist log); the count "
     "behind the window's percentiles (<NA> without a histogram log)."),
    ("clat_p50_us", "float64", "Median completion latency of the window in µs, from its fio histogram by fio's "
     "percentile rule (helpers.fio.histogram)."),
    ("clat_p99_us", "float64", "99th percentile completion latency of the window in µs (histogram log)."),
    ("clat_p99_9_us", "float64", "99.9th percentile completion latency of the window in µs (histogram log)."),
    ("clat_p99_999_us", "float64", "99.999th percentile completion latency of the window in µs (histogram log; "
     "sound only with >= 100,000 I/Os in the window, hist_ios: not in unreliable_percentiles)."),
    ("clat_max_us", "float64", "Slowest completion latency of the window in µs: its histogram's highest non-empty "
     "bin (fio's percentile rule at 100 %, within the bin's width of the true maximum)."),
    ("unreliable_percentiles", "string", "Percentile columns of this window with too few I/Os behind them "
     "(hist_ios x (1 - p) < 10, the rule of results' flag_few_ios), comma-separated; empty when all are sound."),
    ("flag_few_ios", "bool", "True when at least one of the window's percentiles is unreliable (see above)."),
]

HEALTH_COLUMNS: list[tuple[str, str, str]] = [
    ("run_id", "string", "Run identifier."),
    ("point_id", "string", "Sweep point id, as in results (the health file is <point_id>.health.jsonl)."),
    ("source_file", "string", "The point's health file, relative to the ingested folder: every capture kept "
     "verbatim (the tool's argv, exit status, stdout and stderr), one JSON line each."),
    ("phase", "string", "When the capture was taken: 'before' (just before fio started), 'during' (long points: "
     "every 10 s while fio ran) or 'after'."),
    ("t_s", "float64", "Seconds since fio was launched (the ramp included; negative before it). Time-series "
     "views draw it against the end of the ramp: t_s minus the point's ramp_s."),
    ("source", "string", "The tool that read the device: nvme-cli (nvme smart-log -o json) or smartctl "
     "(smartctl -j -a)."),
    ("temperature_c", "float64", "Device temperature in °C (the NVMe composite temperature; nvme-cli prints "
     "Kelvin, converted); NaN when the capture gave none."),
    ("warning_temp_c", "float64", "The drive's own warning temperature threshold in °C: from the capture when "
     "it carries one (smartctl 7.5+'s nvme_composite_temperature_threshold, a SATA drive's SCT op_limit_max), "
     "else read once per run where the device keeps it (device-thresholds.jsonl: nvme id-ctrl wctemp, "
     "smartctl's WCTEMP, SCT status); NaN when the device reports none."),
    ("critical_temp_c", "float64", "The drive's critical temperature threshold in °C (NVMe cctemp; SATA: the "
     "SCT limit temperature), when reported."),
    ("threshold_source", "string", "Where the thresholds came from: id-ctrl (nvme id-ctrl wctemp/cctemp), "
     "smartctl WCTEMP, SCT status, SCT temperature history or smartctl op_limit_max; <NA> without one."),
    ("thermal_transitions", "Int64", "The drive's lifetime count of thermal-management transitions (sum over "
     "TMT1/TMT2: nvme-cli thm_temp{1,2}_trans_count, smartctl thermal_mgmt_temperature_{1,2}_transition_count) "
     "at this capture: the point's transitions are its growth."),
    ("thermal_time_s", "Int64", "The drive's lifetime seconds in thermal management (sum over TMT1/TMT2: "
     "thm_temp{1,2}_total_time, thermal_mgmt_temperature_{1,2}_total_time) at this capture."),
    ("warning_temp_min", "Int64", "The drive's lifetime minutes above its warning temperature at this capture."),
    ("critical_temp_min", "Int64", "The drive's lifetime minutes above its critical temperature at this capture."),
    ("error", "string", "Why this capture gave no health data, in one sentence (<NA> when it did)."),
]

TRACE_COLUMNS: list[tuple[str, str, str]] = [
    ("run_id", "string", "Run identifier (the import's run)."),
    ("trace_id", "string", "The trace's identifier within the run (its file name without extension, or given)."),
    ("source_file", "string", "The trace file as imported (its name)."),
    ("source_format", "string", "The trace format recognised by content: blkparse, blktrace (binary, through "
     "blkparse), tracepoints (block_rq_issue/block_rq_complete text from tracefs or perf script), iolog2, iolog3, "
     "msr (MSR Cambridge CSV), alibaba (Alibaba block-trace CSV) or csv (plain CSV with named columns)."),
    ("seq", "int64", "Position of the I/O in the trace (0, 1, ...), in issue order."),
    ("t_s", "float64", "Issue time of the I/O in seconds since the trace's first I/O (blkparse and tracepoints: "
     "the request's dispatch to the driver, D / block_rq_issue; MSR: its Windows filetime; Alibaba: its µs "
     "timestamp; fio iolog v3: its µs time stamp); NaN for fio iolog v2, which has no times."),
    ("op", "string", "read, write or trim."),
    ("offset_bytes", "int64", "Start of the I/O on the traced device or file in bytes (sectors x 512 for block "
     "traces)."),
    ("size_bytes", "int64", "Length of the I/O in bytes."),
    ("latency_us", "float64", "The trace's own latency of the I/O in µs: completion minus issue (blkparse D->C, "
     "block_rq_issue->block_rq_complete) or MSR's ResponseTime; NaN where the trace has none."),
    ("stream", "string", "The stream the I/O belongs to (device major,minor for block traces, the file of an "
     "fio iolog, Hostname/DiskNumber for MSR, device_id for Alibaba): sequentiality is judged within a stream."),
]

DATASETS = {"results": "RESULT_COLUMNS", "histograms": "HISTOGRAM_COLUMNS", "quarantine": "QUARANTINE_COLUMNS",
            "timeseries": "TIMESERIES_COLUMNS", "health": "HEALTH_COLUMNS", "traces": "TRACE_COLUMNS"}


def columns_of(dataset: str) -> list[tuple[str, str, str]]:
    """The column table of a processed dataset ('results', 'histograms', 'quarantine', 'timeseries' or
    'health')."""
    return globals()[DATASETS[dataset]]


def column_names(columns: list[tuple[str, str, str]] = RESULT_COLUMNS) -> list[str]:
    return [c for c, _, _ in columns]


def dtypes(columns: list[tuple[str, str, str]] = RESULT_COLUMNS) -> dict[str, str]:
    return {c: t for c, t, _ in columns}


def markdown(columns: list[tuple[str, str, str]] = RESULT_COLUMNS) -> str:
    lines = ["| column | type | meaning |", "| --- | --- | --- |"]
    lines += [f"| `{c}` | {t} | {d} |" for c, t, d in columns]
    return "\n".join(lines)


def document() -> str:
    """The text of docs/schema.md."""
    return "\n".join([
        "# Processed data schema",
        "",
        "Generated from `src/helpers/processed/schema.py` by `python -m helpers.processed.schema > docs/schema.md`; do not edit.",
        "",
        "Each dataset lives in `data/processed/<dataset>/run_id=<RUN>/part-0.parquet` (Hive partitions: "
        "pandas, pyarrow, DuckDB or Spark read one run or all). Units are in the column names: `_us` "
        "microseconds, `_ns` nanoseconds, `_s` seconds, `_bytes` bytes, `_per_s` per second, `_pct` percent. "
        "fio's own `bw` is KiB/s and is never stored; `bw_bytes_per_s` is fio's `bw_bytes`. fio 2.x files "
        "(latency in µs under `clat`/`lat`/`slat`) and fio 3.x files (`*_ns`) give the same µs columns.",
        "",
        "## results (one row per fio job entry and direction with I/O)",
        "",
        markdown(RESULT_COLUMNS),
        "",
        "## histograms (json+ latency bins, long form; one latency per job entry and direction)",
        "",
        "Percentiles and the CDF are computed from it by `helpers.fio.histogram` with fio's own convention "
        "(the p-th percentile is the first bin whose cumulative count reaches p % of the I/Os).",
        "",
        markdown(HISTOGRAM_COLUMNS),
        "",
        "## quarantine (files and jobs that are not data points)",
        "",
        markdown(QUARANTINE_COLUMNS),
        "",
        "## timeseries (fio's logs: one row per point, job, direction and log entry)",
        "",
        "From the `*_bw/_iops/_lat/_clat/_slat.N.log` and `*_clat_hist.N.log` files next to a point's JSON "
        "(lab sweeps record them with every point; foreign trees are matched to their JSON by name or by the "
        "`write_*_log` option in the JSON). Every entry fio wrote is a row with fio's own time stamp (`t_ms`) "
        "and the time it covers (`window_start_s`-`window_end_s`, not on a grid); the job's final partial "
        "bw/iops window, which fio does not log, is added from the JSON (`from_json`), so for every point "
        "sum(bytes_per_s x window width) = the JSON's io_bytes. Logs written per I/O are aggregated into 1 s "
        "windows. Nothing is downsampled here.",
        "",
        markdown(TIMESERIES_COLUMNS),
        "",
        "## health (SMART / health captures of the target's device: one row per capture)",
        "",
        "From the `<point_id>.health.jsonl` files a lab sweep writes next to a point's JSON when the target's "
        "device has a source (nvme-cli or smartctl): before and after every point, and every 10 s while a long "
        "point runs. The results' `flag_throttled` is read from these rows. Runs without a source have no rows; "
        "the run manifest's `health.note` says why in one sentence.",
        "",
        markdown(HEALTH_COLUMNS),
        "",
        "## traces (imported block I/O traces: one row per I/O)",
        "",
        "From `helpers.ingest.traces`: blkparse text, blktrace binary, kernel block tracepoints, fio iologs v2/v3, "
        "MSR Cambridge, Alibaba and plain CSV, recognised by content. Lines that are not I/Os the lab can use "
        "are counted and named in the import's one-sentence summary, not stored.",
        "",
        markdown(TRACE_COLUMNS),
        "",
    ])


if __name__ == "__main__":
    print(document(), end="")

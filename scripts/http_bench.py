#!/usr/bin/env python3
"""What the pool saves a live HTTP service, in counts (examples/with-deps).

Builds the server (`http_service`) on glibc's malloc, mimalloc and jemalloc,
each with the pool and without it (the `no-pool` feature: the same handlers
on plain values), and the open-loop load generator (`loadgen`). Three
variants per allocator: `pool`, `no pool`, and `POOLABLE=off` (the pool
binary with pooling switched off at run time: the pool's get and return
paths still run, every value is made fresh and dropped). Two routes:
`POST /orders` (JSON) and `POST /upload` (bodies of 16 KiB to 1 MiB into a
`BufferPool`, checksummed).

1. Instructions per request: the server under callgrind, warmed up, its
   counters zeroed (`callgrind_control -z`), `--requests` requests, a dump
   (`callgrind_control -d`), the dump's total Ir divided by the requests.
   Deterministic up to scheduling, so one run per cell.
2. CPU per request, page faults, peak RSS: the server on its own (no
   valgrind), the same warm-up and requests; CPU is the sum over its threads
   of `/proc/PID/task/*/schedstat` (time on a CPU, in ns, which steal does
   not inflate as `task-clock` does), page faults are `minflt` + `majflt` of
   `/proc/PID/stat`, peak RSS is `VmHWM`. `--rounds` rounds, medians.
3. The tail (JSON route): the no-pool saturation rate per allocator (the
   throughput under an offered load far above it), then p50 to p99.9 at 50%
   and 80% of it, `--rounds` rounds of `--tail-seconds`, medians.

Every timed run records the hypervisor's steal over the run (`/proc/stat`,
as a share of all CPU ticks); a run with steal >= 2% is repeated (up to
`--retries` times) and, if it stays high, kept and marked. The server runs
on CPU 0 and the load generator on CPU 1 (taskset). Writes the tables into
benches/RESULTS.md and the README (between their `http` markers), and every
run to target/http_bench.json. Standard library only.

    python3 scripts/http_bench.py                      # everything (about 20 minutes)
    python3 scripts/http_bench.py --counts             # steps 1 and 2 only
    python3 scripts/http_bench.py --allocators glibc --requests 2000 --upload-requests 200 --no-write
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BINS = ROOT / "target/http-bins"
ALLOCATORS = ["glibc", "mimalloc", "jemalloc"]
VARIANTS = [  # (label, build, POOLABLE)
    ("pool", "pool", "on"),
    ("no pool", "no-pool", "on"),
    ("POOLABLE=off", "pool", "off"),
]
ROUTES = {  # route: (loadgen flags, callgrind rate, timed-run rate, warm-up requests)
    "json": ([], 500, 20_000, 1000),
    "upload": (["--upload"], 100, 400, 300),
}
SATURATING = 150_000  # offered for 2 s to find the no-pool build's saturation
STEAL_LIMIT = 2.0
OTHERS_LIMIT = 10.0  # % of the machine's CPU taken by processes other than ours
RESULTS_START, RESULTS_END = "<!-- http:start -->", "<!-- http:end -->"
README_START, README_END = "<!-- http-summary:start -->", "<!-- http-summary:end -->"


def build(allocators: list[str]) -> None:
    """One binary per allocator and build, copied to target/http-bins."""
    BINS.mkdir(parents=True, exist_ok=True)
    for allocator in allocators:
        target = "target" if allocator == "glibc" else f"target/{allocator}"
        for build_ in ("pool", "no-pool"):
            features = [f for f in (allocator if allocator != "glibc" else None,
                                    "no-pool" if build_ == "no-pool" else None) if f]
            cmd = ["cargo", "build", "--release", "-p", "poolable-examples", "--bins", "--target-dir", target]
            if features:
                cmd += ["--features", ",".join(features)]
            subprocess.run(cmd, cwd=ROOT, check=True)
            shutil.copy2(ROOT / target / "release/http_service", BINS / f"http_service-{allocator}-{build_}")
            shutil.copy2(ROOT / target / "release/loadgen", BINS / "loadgen")


def pinned(cpu: int | None, command: list) -> list:
    return command if cpu is None else ["taskset", "-c", str(cpu)] + command


def cpu_ticks() -> list[int]:
    with open("/proc/stat") as f:
        return [int(v) for v in f.readline().split()[1:]]


def children_cpu_ns() -> int:
    """User and system time of our finished children (the load generators)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return int((usage.ru_utime + usage.ru_stime) * 1e9)


class Noise:
    """What else the machine did during a run: the hypervisor's steal, and
    the CPU that processes other than the server and the load generator
    took (another build on the same cores), each as % of all CPU time."""

    def __init__(self, pid: int):
        self.pid, self.ticks, self.ours = pid, cpu_ticks(), task_cpu_ns(pid) + children_cpu_ns()

    def end(self, ours_after: int | None = None) -> dict:
        ticks = cpu_ticks()
        ours = (ours_after if ours_after is not None else task_cpu_ns(self.pid)) + children_cpu_ns()
        delta = [a - b for a, b in zip(ticks, self.ticks)]
        total = sum(delta[:8])
        busy = total - delta[3] - delta[4]  # not idle, not iowait
        tick_ns = 1e9 / os.sysconf("SC_CLK_TCK")
        others = (busy - delta[7]) * tick_ns - (ours - self.ours)
        return {"steal_pct": 100.0 * delta[7] / total if total > 0 else 0.0,
                "others_pct": max(0.0, 100.0 * others / (total * tick_ns)) if total > 0 else 0.0}


def task_cpu_ns(pid: int) -> int:
    total = 0
    for path in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        try:
            total += int(open(path).read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that ended between glob and read
    return total


def page_faults(pid: int) -> int:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[7]) + int(fields[9])  # minflt, majflt


class Server:
    """A fresh server on CPU 0, maybe under callgrind."""

    def __init__(self, allocator: str, build_: str, pooling: str, pin: bool, callgrind_dir: str | None = None):
        binary = str(BINS / f"http_service-{allocator}-{build_}")
        cmd = [binary, "127.0.0.1:0"]
        if callgrind_dir:
            cmd = ["valgrind", "--tool=callgrind", "--quiet",
                   f"--callgrind-out-file={callgrind_dir}/callgrind.out.%p"] + cmd
        self.proc = subprocess.Popen(pinned(0 if pin else None, cmd), stdout=subprocess.PIPE,
                                     env=dict(os.environ, POOLABLE=pooling), text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("listening on "):
            self.close()
            raise RuntimeError(f"server said {line!r}")
        self.addr = line.removeprefix("listening on ")
        self.pid = self.proc.pid  # taskset and valgrind exec in place: the same pid

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def loadgen(addr: str, flags: list, count: int, rate: float, pin: bool, connections: int = 32) -> dict:
    cmd = [str(BINS / "loadgen"), addr, "--rate", str(rate), "--count", str(count),
           "--connections", str(connections), "--json"] + flags
    out = subprocess.run(pinned(1 if pin else None, cmd), check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def callgrind_total(path: str) -> int:
    for line in open(path):
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise RuntimeError(f"no total in {path}")


def count_instructions(allocator, build_, pooling, route, requests, pin) -> dict:
    flags, rate, _, warm = ROUTES[route]
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(allocator, build_, pooling, pin, callgrind_dir=tmp)
        try:
            loadgen(server.addr, flags, warm, rate / 2, pin, connections=8)
            subprocess.run(["callgrind_control", "-z", str(server.pid)], check=True, capture_output=True)
            r = loadgen(server.addr, flags, requests, rate, pin, connections=8)
            subprocess.run(["callgrind_control", "-d", str(server.pid)], check=True, capture_output=True)
            dumps = sorted(glob.glob(f"{tmp}/callgrind.out.{server.pid}.*"), key=os.path.getmtime)
            if not dumps:
                raise RuntimeError("callgrind wrote no dump")
            total = callgrind_total(dumps[-1])
        finally:
            server.close()
    return {"ir_total": total, "ok": r["ok"], "errors": r["errors"], "ir_per_request": total / max(r["ok"], 1)}


def time_run(allocator, build_, pooling, route, requests, pin) -> dict:
    flags, _, rate, warm = ROUTES[route]
    server = Server(allocator, build_, pooling, pin)
    try:
        loadgen(server.addr, flags, warm, rate, pin)
        noise = Noise(server.pid)
        ns0, pf0 = task_cpu_ns(server.pid), page_faults(server.pid)
        r = loadgen(server.addr, flags, requests, rate, pin)
        ns1, pf1 = task_cpu_ns(server.pid), page_faults(server.pid)
        noise = noise.end(ns1)
    finally:
        server.close()
    ok = max(r["ok"], 1)
    return {"cpu_us_per_request": (ns1 - ns0) / 1000 / ok, "faults_per_request": (pf1 - pf0) / ok,
            "allocs_per_request": r["allocs_per_request"], "peak_rss_kib": r["peak_rss_kib"],
            "ok": r["ok"], "errors": r["errors"], **noise}


def tail_run(allocator, build_, pooling, rate, seconds, pin) -> dict:
    server = Server(allocator, build_, pooling, pin)
    try:
        loadgen(server.addr, [], int(rate), rate, pin)  # a second's warm-up
        noise = Noise(server.pid)
        r = loadgen(server.addr, [], int(rate * seconds), rate, pin)
        r.update(noise.end())
    finally:
        server.close()
    return r


def steady(run, retries: int, *args) -> dict:
    """`run(*args)`, repeated while steal or the other processes' load is at
    or over its limit; the quietest attempt is kept, marked if still over."""
    attempts = []
    for attempt in range(retries + 1):
        r = run(*args)
        r["attempts"] = attempt + 1
        attempts.append(r)
        if r["steal_pct"] < STEAL_LIMIT and r["others_pct"] < OTHERS_LIMIT:
            return r
        print(f"    steal {r['steal_pct']:.1f}%, others {r['others_pct']:.0f}%: "
              + ("again" if attempt < retries else "keeping the quietest, marked"), flush=True)
    r = min(attempts, key=lambda a: (a["steal_pct"] >= STEAL_LIMIT, a["others_pct"]))
    r["noisy"] = True
    return r


def median(values: list[float]) -> float:
    values = sorted(values)
    n = len(values)
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2


def fmt_ir(v: float) -> str:
    return f"{v / 1000:,.1f}k" if v < 1e6 else f"{v / 1e6:,.2f}M"


def mib(kib: float) -> str:
    return f"{kib / 1024:.1f} MiB"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--allocators", nargs="+", default=ALLOCATORS, choices=ALLOCATORS)
    ap.add_argument("--requests", type=int, default=10_000, help="JSON requests per counted or timed run")
    ap.add_argument("--upload-requests", type=int, default=1_000, help="uploads per counted or timed run")
    ap.add_argument("--timed-requests", type=int, default=40_000, help="JSON requests per timed (CPU) run")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the timed runs; figures are medians")
    ap.add_argument("--tail-seconds", type=float, default=3.0)
    ap.add_argument("--retries", type=int, default=1, help="repeats of a run whose steal is >= 2%%")
    ap.add_argument("--counts", action="store_true", help="instructions, CPU and memory only, no tail runs")
    ap.add_argument("--no-build", action="store_true", help="use the binaries in target/http-bins as they are")
    ap.add_argument("--no-write", action="store_true", help="print, and leave RESULTS.md and the README alone")
    ap.add_argument("--no-pin", action="store_true")
    args = ap.parse_args()
    pin = not args.no_pin and shutil.which("taskset") is not None and (os.cpu_count() or 1) >= 2
    if not args.no_build:
        build(args.allocators)
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    n = {"json": args.requests, "upload": args.upload_requests}
    cells = [(a, label, b, p, route) for route in ROUTES for a in args.allocators for label, b, p in VARIANTS]

    counts = {}
    print("instructions per request (callgrind)", flush=True)
    for a, label, b, p, route in cells:
        c = count_instructions(a, b, p, route, n[route], pin)
        counts[(a, label, route)] = c
        print(f"  {route:<6} {a:<8} {label:<13} {fmt_ir(c['ir_per_request']):>9} Ir/request "
              f"({c['ok']} ok, {c['errors']} errors)", flush=True)

    timed = {key: [] for key in counts}
    print("CPU, page faults and peak RSS per request", flush=True)
    for round_ in range(args.rounds):
        for a, label, b, p, route in cells:  # the variants of a cell back to back
            count = args.timed_requests if route == "json" else n[route]
            r = steady(time_run, args.retries, a, b, p, route, count, pin)
            r["round"] = round_
            timed[(a, label, route)].append(r)
            print(f"  {round_} {route:<6} {a:<8} {label:<13} {r['cpu_us_per_request']:8.1f} us CPU  "
                  f"{r['faults_per_request']:7.1f} faults  {r['allocs_per_request']:6.2f} allocs  "
                  f"{mib(r['peak_rss_kib'])}  steal {r['steal_pct']:.1f}%  others {r['others_pct']:.0f}%", flush=True)

    rows = []
    for (a, label, route), c in counts.items():
        t = timed[(a, label, route)]
        rows.append({
            "allocator": a, "variant": label, "route": route, "ir_per_request": c["ir_per_request"],
            "cpu_us_per_request": median([r["cpu_us_per_request"] for r in t]),
            "faults_per_request": median([r["faults_per_request"] for r in t]),
            "allocs_per_request": median([r["allocs_per_request"] for r in t]),
            "peak_rss_kib": median([r["peak_rss_kib"] for r in t]),
            "steal_pct": max(r["steal_pct"] for r in t),
            "others_pct": max(r["others_pct"] for r in t),
            "noisy": sum(1 for r in t if r.get("noisy")),
        })
    row = {(r["allocator"], r["variant"], r["route"]): r for r in rows}

    saturation, tails = {}, []
    if not args.counts:
        print("tail: no-pool saturation, then 50% and 80% of it", flush=True)
        for a in args.allocators:
            r = steady(tail_run, args.retries, a, "no-pool", "on", SATURATING, 2.0, pin)
            saturation[a] = r["throughput"]
            print(f"  {a:<8} no pool saturates at {r['throughput']:.0f}/s (steal {r['steal_pct']:.1f}%, "
                  f"others {r['others_pct']:.0f}%)", flush=True)
        for round_ in range(args.rounds):
            for a in args.allocators:
                for share in (0.5, 0.8):
                    rate = round(saturation[a] * share, -2)
                    for label, b, p in VARIANTS:
                        r = steady(tail_run, args.retries, a, b, p, rate, args.tail_seconds, pin)
                        r.update(allocator=a, variant=label, share=share, round=round_)
                        tails.append(r)
                        print(f"  {round_} {a:<8} {share:.0%} {rate:>6.0f}/s {label:<13} p50 {r['p50_ms']:.2f} "
                              f"p99 {r['p99_ms']:.2f} p99.9 {r['p999_ms']:.2f} ms  steal {r['steal_pct']:.1f}%  "
                              f"others {r['others_pct']:.0f}%",
                              flush=True)
    tail_rows = []
    for a in args.allocators:
        for share in (0.5, 0.8):
            for label, _, _ in VARIANTS:
                mine = [r for r in tails if (r["allocator"], r["share"], r["variant"]) == (a, share, label)]
                if not mine:
                    continue
                tail_rows.append({"allocator": a, "share": share, "variant": label, "rate": mine[0]["rate"],
                                  "rounds": len(mine), "noisy": sum(1 for r in mine if r.get("noisy")),
                                  "steal_pct": max(r["steal_pct"] for r in mine),
                                  "others_pct": max(r["others_pct"] for r in mine),
                                  **{k: median([r[k] for r in mine]) for k in
                                     ("p50_ms", "p90_ms", "p99_ms", "p999_ms", "throughput", "errors")}})

    (ROOT / "target").mkdir(exist_ok=True)
    (ROOT / "target/http_bench.json").write_text(json.dumps({
        "started": started, "counts": {"|".join(k): v for k, v in counts.items()},
        "timed": {"|".join(k): v for k, v in timed.items()}, "rows": rows,
        "saturation": saturation, "tails": tails, "tail_rows": tail_rows}, indent=2) + "\n")

    results = results_section(args, pin, started, n, row, saturation, tail_rows)
    summary = readme_summary(args, row)
    print("\n".join(results) + "\n\n" + "\n".join(summary))
    if not args.no_write:
        replace_block(ROOT / "benches/RESULTS.md", RESULTS_START, RESULTS_END, "\n".join(results))
        replace_block(ROOT / "README.md", README_START, README_END, "\n".join(summary))
        print("wrote benches/RESULTS.md (section 8), the README summary and target/http_bench.json")
    return 0


def ratio(row, a, route, variant, against="no pool") -> str:
    mine, base = row.get((a, variant, route)), row.get((a, against, route))
    if not mine or not base:
        return "n/a"
    return f"{mine['ir_per_request'] / base['ir_per_request']:.2f}x"


def results_section(args, pin, started, n, row, saturation, tail_rows) -> list[str]:
    lines = [
        "## 8. Live HTTP service (`examples/with-deps`): instructions per request, CPU, memory, the tail",
        "",
        f"`scripts/http_bench.py`, {started}: the JSON API of `examples/with-deps` (hyper 1, tokio, 2 worker "
        "threads) on glibc's malloc, mimalloc and jemalloc, "
        + ("pinned to CPU 0, its open-loop load generator on CPU 1. " if pin else "unpinned. ")
        + "`pool` is the server as written; `no pool` is the same handlers built with the `no-pool` feature "
        "(plain `Default::default()` and `Vec::with_capacity`, no pool code on the path); `POOLABLE=off` is the "
        "pool build with pooling switched off at run time (the pool's get and return paths run, every value is "
        "made fresh and dropped). `POST /orders` is a 5-line JSON order parsed into a pooled struct; "
        "`POST /upload` is a body of 16 KiB to 1 MiB (sizes uniform, a fixed seed) read into a `BufferPool` "
        "buffer and checksummed.",
        "",
        f"**Instructions per request** are the server's, user space only, from callgrind: warm-up "
        f"({ROUTES['json'][3]} orders or {ROUTES['upload'][3]} uploads), `callgrind_control -z`, "
        f"{n['json']} orders at {ROUTES['json'][1]}/s or {n['upload']} uploads at {ROUTES['upload'][1]}/s over 8 "
        "connections, `callgrind_control -d`, the dump's total Ir over the requests (one run; two runs of the "
        "script agreed within 2%). **CPU per request** is the server's time on a CPU (the sum of "
        "`/proc/PID/task/*/schedstat`, kernel included, steal not) over "
        f"{args.timed_requests} orders at {ROUTES['json'][2]}/s or {n['upload']} uploads at "
        f"{ROUTES['upload'][2]}/s over 32 connections, without valgrind; **faults** are its page faults "
        "per request (`minflt + majflt`), **allocs** its heap allocations per request (a counting allocator), "
        f"**peak RSS** its `VmHWM`. These are medians of {args.rounds} rounds. **steal** is the largest share "
        "of the machine's CPU time the hypervisor took during any of those runs (`/proc/stat`), **others** the "
        "largest share other processes took (busy ticks less steal, the server's and the load generator's "
        "time: another build on the same 2 cores shows here, not in steal; kernel threads that carry our own "
        "traffic do too, so it is an upper bound); a run with steal at "
        f"{STEAL_LIMIT:g}% or more, or others at {OTHERS_LIMIT:g}% or more, is repeated up to {args.retries} "
        "times, the quietest attempt kept, and marked (`*`) if it stays over.",
        "",
        "| route | allocator | variant | instructions/request | vs no pool | CPU/request | faults/request "
        "| allocs/request | peak RSS | steal | others |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for route in ROUTES:
        for a in args.allocators:
            for label, _, _ in VARIANTS:
                r = row.get((a, label, route))
                if not r:
                    continue
                mark = " *" if r["noisy"] else ""
                lines.append(
                    f"| {route} | {a} | {label} | {fmt_ir(r['ir_per_request'])} | {ratio(row, a, route, label)} | "
                    f"{r['cpu_us_per_request']:.1f} µs | {r['faults_per_request']:.2f} | {r['allocs_per_request']:.2f} "
                    f"| {mib(r['peak_rss_kib'])} | {r['steal_pct']:.1f}% | {r['others_pct']:.0f}%{mark} |")
    if tail_rows:
        lines += [
            "",
            "**The tail** (`POST /orders`): the no-pool build's saturation rate per allocator is its throughput "
            f"under an offered {SATURATING:,}/s for 2 s ("
            + ", ".join(f"{a} {saturation[a]:,.0f}/s" for a in args.allocators)
            + "); each row is then a fresh server, warmed up for 1 s at the rate and measured for "
            f"{args.tail_seconds:g} s over 32 connections, latency from the scheduled send (coordinated "
            f"omission corrected), the median of {args.rounds} rounds; steal and others are the largest over the "
            "rounds.",
            "",
            "| allocator | load | rate | variant | p50 | p90 | p99 | p99.9 | errors | steal | others |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for t in tail_rows:
            mark = " *" if t["noisy"] else ""
            lines.append(
                f"| {t['allocator']} | {t['share']:.0%} | {t['rate']:,.0f}/s | {t['variant']} | {t['p50_ms']:.2f} ms | "
                f"{t['p90_ms']:.2f} ms | {t['p99_ms']:.2f} ms | {t['p999_ms']:.2f} ms | {t['errors']:.0f} | "
                f"{t['steal_pct']:.1f}% | {t['others_pct']:.0f}%{mark} |")
    return lines


def readme_summary(args, row) -> list[str]:
    lines = [
        "| allocator | route | instructions/request: pool / no pool | CPU/request: pool / no pool "
        "| page faults/request: pool / no pool | peak RSS: pool / no pool |",
        "|---|---|---|---|---|---|",
    ]
    for route in ROUTES:
        for a in args.allocators:
            p, q = row.get((a, "pool", route)), row.get((a, "no pool", route))
            if not p or not q:
                continue
            lines.append(
                f"| {a} | {route} | {fmt_ir(p['ir_per_request'])} / {fmt_ir(q['ir_per_request'])} "
                f"(**{p['ir_per_request'] / q['ir_per_request']:.2f}x**) | "
                f"{p['cpu_us_per_request']:.1f} / {q['cpu_us_per_request']:.1f} µs | "
                f"{p['faults_per_request']:.2f} / {q['faults_per_request']:.2f} | "
                f"{mib(p['peak_rss_kib'])} / {mib(q['peak_rss_kib'])} |")
    return lines


def replace_block(path: Path, start: str, end: str, block: str) -> None:
    text = path.read_text()
    block = f"{start}\n{block}\n{end}"
    if start in text and end in text:
        head, rest = text.split(start, 1)
        text = head + block + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text)


if __name__ == "__main__":
    sys.exit(main())

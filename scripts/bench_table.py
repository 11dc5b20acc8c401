#!/usr/bin/env python3
"""Turn the criterion results of the benchmark suite into benches/RESULTS.md
and benches/chart.svg.

Reads every target/criterion/**/new/estimates.json (the median point
estimate) with the benchmark.json beside it, and target/criterion/alloc_count.json
written by the `alloc_count` bench. Standard library only.

    python3 scripts/bench_table.py            # tables from the last `cargo bench`
    python3 scripts/bench_table.py --run      # run `cargo bench` first, timed
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Contenders in table order, with their display names.
CONTENDERS = [
    ("thread_local", "thread_local! slot (baseline)"),
    ("plain", "plain allocation"),
    ("poolable", "**poolable**"),
    ("object-pool", "object-pool 0.6"),
    ("lockfree-linear", "lockfree-object-pool Linear"),
    ("lockfree-spinlock", "lockfree-object-pool SpinLock"),
    ("opool", "opool 0.2"),
    ("sharded-slab", "sharded-slab Pool"),
    ("poolshark-local", "poolshark local"),
    ("poolshark-global", "poolshark global"),
]
NAMES = dict(CONTENDERS)
ORDER = {k: i for i, (k, _) in enumerate(CONTENDERS)}
BASELINE = "thread_local"
PLAIN = "plain"

# What each criterion group measures.
WORKLOADS = {
    "1_small_get_drop": (
        "1. Small derived struct: get + drop",
        "`#[derive(Poolable, Default)] struct Small { id: u64, flags: u32, name: String }`: "
        "take, set the fields and push 7 bytes into `name`, return. "
        "2 threads: both threads do this at once; time per op per thread.",
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
        "with the 64 KiB size cap in force; fresh vs pooled.",
    ),
    "5_request": (
        "5. Request struct",
        "Derived `Request { id, body: String, headers: Vec<(String, String)>, query: Option<String> }` "
        "filled like a parsed HTTP request (196-byte body, 6 headers, a query), then reset. "
        "The header strings are fresh allocations for every contender (a `Vec` reset drops its elements).",
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
        "it too). `cap off`: everything is kept. Contenders without a cap only run `cap off`.",
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
    path = crit / "alloc_count.json"
    if not path.exists():
        return None
    return json.loads(path.read_text())


def suite_settings() -> dict:
    """The criterion settings, read from benches/support/mod.rs."""
    src = (ROOT / "benches" / "support" / "mod.rs").read_text()
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


def workload_table(group: str, by_param: dict) -> list[str]:
    params = param_order(group, by_param)
    functions = sorted({f for p in params for f in by_param[p]}, key=lambda f: ORDER.get(f, 99))
    ops = group in ("6_producer_consumer", "7_mixed_sizes")
    head = ["contender"]
    for p in params:
        label = f" ({p})" if p else ""
        head += [f"median/op{label}", "÷ baseline", "÷ plain"]
        if ops:
            head.append(f"Mops/s{label}")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for f in functions:
        cells = [NAMES.get(f, f)]
        for p in params:
            res = by_param[p]
            ns = res.get(f)
            if ns is None:
                cells += ["n/a", "", ""] + ([""] if ops else [])
                continue
            cells += [
                fmt_ns(ns),
                fmt_ratio(ratio(ns, res.get(BASELINE))),
                fmt_ratio(ratio(ns, res.get(PLAIN))),
            ]
            if ops:
                cells.append(f"{1e3 / ns:.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def alloc_table(allocs: dict) -> list[str]:
    per = {}
    workloads = []
    for r in allocs["allocs_per_op"]:
        if r["workload"] not in workloads:
            workloads.append(r["workload"])
        per[(r["workload"], r["contender"])] = r["value"]
    short = [w.split("_")[0] + (" " + w.split(" ", 1)[1] if " " in w else "") for w in workloads]
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
        "| cap | contender | allocs/op | peak heap | retained heap after the run | poolable `stats().retained_bytes` |",
        "|---|---|---|---|---|---|",
    ]
    for m in allocs["mixed_memory"]:
        lines.append(
            "| {} | {} | {} | {} | {} | {} |".format(
                m["cap"],
                NAMES.get(m["contender"], m["contender"]),
                f"{m['allocs_per_op']:.3f}",
                fmt_bytes(m["peak_bytes"]),
                fmt_bytes(m["retained_bytes"]),
                fmt_bytes(m["poolable_stats_retained_bytes"]),
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
            color = "#d9480f" if f == "poolable" else ("#868e96" if f == PLAIN else "#4c6ef5")
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


def report(groups, allocs, settings, mach, wall, note, times) -> str:
    lines = [
        "# Benchmark results",
        "",
        "Generated by `scripts/bench_table.py` from criterion's output; do not edit by hand.",
        "",
    ]
    if note:
        lines += [f"> **Note:** {note}", ""]
    lines += [
        "## Machine and run",
        "",
        f"- CPU: {mach['cpu']} (`nproc` = {mach['nproc']})",
        f"- OS: {mach['os']}",
        f"- Compiler: {mach['rustc']}",
        f"- Generated: {mach['date']}",
    ]
    if times:
        first, last = (dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC") for t in times)
        lines.append(f"- Criterion results written between {first} and {last}")
    if wall is not None:
        lines.append(f"- Wall time of `cargo bench` (build included): {wall / 60:.1f} min ({wall:.0f} s)")
    lines += [
        "",
        "Reproduce (from the repository root):",
        "",
        "```sh",
        "python3 scripts/bench_table.py --run   # = cargo bench, timed, then this script",
        "# or: cargo bench && python3 scripts/bench_table.py",
        "```",
        "",
        "## Settings",
        "",
        f"- criterion 0.8: warm-up {settings['WARM_UP']}, measurement {settings['MEASUREMENT']}, "
        f"{settings['SAMPLES']} samples, {settings['RESAMPLES']} bootstrap resamples, plots off "
        "(set on the `Criterion` value in `benches/support/mod.rs`, so `-- --warm-up-time …` overrides them). "
        "Multi-threaded groups use flat sampling (every sample the same length).",
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
        "- Multi-threaded iterations spawn scoped threads per sample, released together by a barrier; "
        "thread-local caches start cold in each sample (amortised over ~10⁵–10⁶ ops).",
        "",
    ]
    for group in sorted(groups):
        title, desc = WORKLOADS.get(group, (group, ""))
        lines += [f"## {title}", "", desc, ""] if desc else [f"## {title}", ""]
        lines += workload_table(group, groups[group])
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
    if allocs:
        lines += [
            "## Allocations per operation (steady state)",
            "",
            "From `benches/alloc_count.rs` (a counting global allocator; `alloc`, `alloc_zeroed` and "
            f"`realloc` each count one): {allocs['ops']} single-threaded ops after 1000 warm-up ops; "
            f"workload 6 counts {allocs['pipe_msgs']} messages after a warm-up phase, between barriers. "
            "The bench exits non-zero if poolable allocates in workloads 1–4, or more than 0.001/message "
            "(a producer that finds every idle value in flight makes one more; the population converges) "
            "or drops values in 6.",
            "",
        ]
        lines += alloc_table(allocs)
        lines.append("")
    lines += [
        "## Contenders left out, or not comparable",
        "",
        "- Workload 6 with the `thread_local!` slot and poolshark local: they run, but values return to the "
        "*consumer's* thread-local storage, so the producer allocates every message; the rows show that cost.",
        "- Workload 7 `cap 64 KiB`: object-pool, lockfree-object-pool and sharded-slab have no size cap "
        "(they appear under `cap off` only).",
        "",
        "![ratio chart](chart.svg)",
        "",
    ]
    return "\n".join(lines)


README_START = "<!-- bench-summary:start -->"
README_END = "<!-- bench-summary:end -->"


def readme_summary(groups: dict, mach: dict, times) -> list[str]:
    """One table for the README: each contender's median per workload, with
    the ratio to the thread-local baseline in brackets."""
    columns = []  # (label, group, param)
    for group in sorted(groups):
        short = WORKLOADS.get(group, (group, ""))[0].split(". ", 1)[-1]
        for param in param_order(group, groups[group]):
            columns.append((f"{short} ({param})" if param else short, group, param))
    head = ["contender"] + [label for label, _, _ in columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, name in CONTENDERS:
        cells = [name]
        for _, group, param in columns:
            res = groups[group][param]
            ns = res.get(key)
            if ns is None:
                cells.append("n/a")
            else:
                r = ratio(ns, res.get(BASELINE))
                cells.append(f"{fmt_ns(ns)} ({fmt_ratio(r)})" if r is not None else fmt_ns(ns))
        lines.append("| " + " | ".join(cells) + " |")
    when = time.strftime("%Y-%m-%d", time.gmtime(times[1]))
    lines += [
        "",
        f"Median time per operation, and in brackets the ratio to a hand-written `thread_local!` "
        f"single-slot cache doing the same work. {mach.get('cpu', 'unknown CPU')}, "
        f"{mach.get('nproc', '?')} cores, {mach.get('rustc', 'rustc')}, {when}. "
        "Full tables, allocation counts and memory: [benches/RESULTS.md](benches/RESULTS.md).",
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
    ap.add_argument("--run", action="store_true", help="run `cargo bench` first and record its wall time")
    ap.add_argument("--wall-time", type=float, help="wall time of the cargo bench run, in seconds")
    ap.add_argument("--note", help="a note to print at the top of RESULTS.md")
    ap.add_argument("--out", type=Path, default=ROOT / "benches" / "RESULTS.md")
    ap.add_argument("--chart", type=Path, default=ROOT / "benches" / "chart.svg")
    args = ap.parse_args()

    wall = args.wall_time
    if args.run:
        start = time.monotonic()
        status = subprocess.run(["cargo", "bench"], cwd=ROOT).returncode
        wall = time.monotonic() - start
        print(f"cargo bench: exit {status}, {wall:.0f} s", file=sys.stderr)
        if status != 0:
            return status

    crit = target_dir() / "criterion"
    rows = load_results(crit)
    if not rows:
        print(f"no criterion results under {crit}; run `cargo bench` first", file=sys.stderr)
        return 1
    groups = group_results(rows)
    allocs = load_allocs(crit)
    times = (min(r["mtime"] for r in rows), max(r["mtime"] for r in rows))
    text = report(groups, allocs, suite_settings(), machine(), wall, args.note, times)
    args.out.write_text(text)
    chart(groups, args.chart)
    mach = machine()
    if update_readme(ROOT / "README.md", readme_summary(groups, mach, times)):
        print("updated the summary table in README.md")
    print(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out} "
          f"and {args.chart.relative_to(ROOT) if args.chart.is_relative_to(ROOT) else args.chart} "
          f"({len(rows)} benchmarks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

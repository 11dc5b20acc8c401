#!/usr/bin/env python3
"""Does the pool move the tail? The live HTTP measurement (examples/with-deps).

Builds the server (`http_service`, on the system allocator and on mimalloc)
and the open-loop load generator (`loadgen`), then for each rate and each
configuration (pool on / off x glibc / mimalloc) starts a fresh server
(pinned to CPU 0, and the load generator to CPU 1, with taskset, so that
they do not take each other's core), warms it up for a second at the rate,
and measures for `--seconds`. The
configurations of one rate run back to back, so machine noise hits them
alike. Writes the table and benches/http_chart.svg into benches/RESULTS.md
and the README (between their `http` markers), and the raw figures to
target/http_bench.json. Standard library only.

    python3 scripts/http_bench.py                 # rates 3000 to 15000, 5 s each, 3 rounds
    python3 scripts/http_bench.py --rates 1000 4000 --seconds 2
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = [  # (label, allocator, POOLABLE)
    ("pool on, glibc", "glibc", "on"),
    ("pool off, glibc", "glibc", "off"),
    ("pool on, mimalloc", "mimalloc", "on"),
    ("pool off, mimalloc", "mimalloc", "off"),
]
RESULTS_START, RESULTS_END = "<!-- http:start -->", "<!-- http:end -->"
README_START, README_END = "<!-- http-summary:start -->", "<!-- http-summary:end -->"


def build() -> dict[str, Path]:
    cargo = ["cargo", "build", "--release", "-p", "poolable-examples", "--bins"]
    subprocess.run(cargo, cwd=ROOT, check=True)
    subprocess.run(cargo + ["--features", "mimalloc", "--target-dir", "target/mimalloc"], cwd=ROOT, check=True)
    return {
        "glibc": ROOT / "target/release/http_service",
        "mimalloc": ROOT / "target/mimalloc/release/http_service",
        "loadgen": ROOT / "target/release/loadgen",
    }


def pinned(cpu: int | None, command: list) -> list:
    """`command` on CPU `cpu` only (taskset), or as it is."""
    return command if cpu is None else ["taskset", "-c", str(cpu)] + command


def measure(bins: dict[str, Path], allocator: str, pooling: str, rate: float, seconds: float, pin: bool) -> dict:
    env = dict(os.environ, POOLABLE=pooling)
    server_cpu, load_cpu = (0, 1) if pin else (None, None)
    server = subprocess.Popen(pinned(server_cpu, [str(bins[allocator]), "127.0.0.1:0"]),
                              stdout=subprocess.PIPE, env=env, text=True)
    try:
        line = server.stdout.readline().strip()
        addr = line.removeprefix("listening on ")
        load = pinned(load_cpu, [str(bins["loadgen"]), addr, "--rate", str(rate), "--connections", "32"])
        subprocess.run(load + ["--seconds", "1"], check=True, capture_output=True)  # warm-up
        out = subprocess.run(load + ["--seconds", str(seconds), "--json"], check=True, capture_output=True, text=True)
        return json.loads(out.stdout.strip().splitlines()[-1])
    finally:
        server.kill()
        server.wait()


def medians(runs: list[dict]) -> list[dict]:
    """One row per (rate, configuration): the median of each figure over the rounds."""
    rows = []
    for key in dict.fromkeys((r["rate"], r["config"]) for r in runs):
        mine = [r for r in runs if (r["rate"], r["config"]) == key]
        row = {"rate": key[0], "config": key[1], "rounds": len(mine)}
        for field in ("throughput", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms", "allocs_per_request", "peak_rss_kib", "errors"):
            values = sorted(r[field] for r in mine)
            row[field] = values[len(values) // 2]
        rows.append(row)
    return rows


def table(rows: list[dict], rates: list[float]) -> list[str]:
    lines = [
        "| rate (req/s) | configuration | throughput | p50 | p90 | p99 | p99.9 | max | errors | allocs/request | peak RSS |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for rate in rates:
        for label, _, _ in CONFIGS:
            r = next((r for r in rows if r["config"] == label and r["rate"] == rate), None)
            if r is None:
                continue
            lines.append(
                f"| {rate:.0f} | {label} | {r['throughput']:.0f}/s | {r['p50_ms']:.2f} ms | {r['p90_ms']:.2f} ms | "
                f"{r['p99_ms']:.2f} ms | {r['p999_ms']:.2f} ms | {r['max_ms']:.2f} ms | {r['errors']} | "
                f"{r['allocs_per_request']:.2f} | {r['peak_rss_kib'] / 1024:.1f} MiB |"
            )
    return lines


def summary(rows: list[dict], rates: list[float]) -> list[str]:
    """The README's table: p99 / p99.9 per rate, allocations and peak RSS per configuration."""
    head = ["configuration"] + [f"p99 / p99.9 at {rate:.0f}/s" for rate in rates] + ["allocs/request", "peak RSS"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, _, _ in CONFIGS:
        mine = {r["rate"]: r for r in rows if r["config"] == label}
        if not mine:
            continue
        cells = [label] + [
            f"{mine[rate]['p99_ms']:.1f} / {mine[rate]['p999_ms']:.1f} ms" if rate in mine else "n/a" for rate in rates
        ]
        allocs = sorted(r["allocs_per_request"] for r in mine.values())
        cells += [f"{allocs[len(allocs) // 2]:.1f}", f"{max(r['peak_rss_kib'] for r in mine.values()) / 1024:.1f} MiB"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "![p99 and p99.9 against the offered rate](benches/http_chart.svg)"]
    return lines


def chart(rows: list[dict], rates: list[float], path: Path) -> None:
    """p99 (solid) and p99.9 (dashed) against the rate, one colour per configuration."""
    w, h, left, right, top, bottom = 720, 360, 60, 190, 20, 40
    colours = ["#1b7837", "#762a83", "#5aae61", "#c2a5cf"]
    top_ms = max(max(r["p999_ms"] for r in rows), 1.0) * 1.1
    x = lambda rate: left + (w - left - right) * (rates.index(rate) / max(len(rates) - 1, 1))
    y = lambda ms: top + (h - top - bottom) * (1 - ms / top_ms)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>']
    for i in range(5):
        ms = top_ms * i / 4
        svg.append(f'<line x1="{left}" x2="{w - right}" y1="{y(ms):.1f}" y2="{y(ms):.1f}" stroke="#ddd"/>')
        svg.append(f'<text x="{left - 6}" y="{y(ms) + 4:.1f}" text-anchor="end">{ms:.0f} ms</text>')
    for rate in rates:
        svg.append(f'<text x="{x(rate):.1f}" y="{h - bottom + 16}" text-anchor="middle">{rate:.0f}/s</text>')
    for (label, _, _), colour in zip(CONFIGS, colours):
        mine = sorted((r for r in rows if r["config"] == label), key=lambda r: r["rate"])
        for key, dash in (("p99_ms", ""), ("p999_ms", ' stroke-dasharray="5,4"')):
            pts = " ".join(f"{x(r['rate']):.1f},{y(r[key]):.1f}" for r in mine)
            svg.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
    for i, ((label, _, _), colour) in enumerate(zip(CONFIGS, colours)):
        ly = top + 16 + 18 * i
        svg.append(f'<line x1="{w - right + 12}" x2="{w - right + 36}" y1="{ly - 4}" y2="{ly - 4}" stroke="{colour}" stroke-width="2"/>')
        svg.append(f'<text x="{w - right + 42}" y="{ly}">{label}</text>')
    svg.append(f'<text x="{w - right + 12}" y="{top + 16 + 18 * 4 + 8}">solid p99, dashed p99.9</text>')
    svg.append(f'<text x="{(left + w - right) / 2}" y="{h - 6}" text-anchor="middle">offered rate (open loop)</text>')
    svg.append("</svg>")
    path.write_text("\n".join(svg) + "\n")


def replace_block(path: Path, start: str, end: str, block: str, before: str | None = None) -> None:
    text = path.read_text()
    block = f"{start}\n{block}\n{end}"
    if start in text and end in text:
        head, rest = text.split(start, 1)
        text = head + block + rest.split(end, 1)[1]
    elif before and before in text:
        head, tail = text.split(before, 1)
        text = head + block + "\n\n" + before + tail
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rates", type=float, nargs="+", default=[3000, 6000, 9000, 12000, 15000])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--repeat", type=int, default=3, help="rounds over every cell; each figure is the median")
    ap.add_argument("--no-pin", action="store_true", help="do not pin the server and the load generator to CPUs 0 and 1")
    args = ap.parse_args()
    pin = not args.no_pin and shutil.which("taskset") is not None and (os.cpu_count() or 1) >= 2
    bins = build()
    runs = []
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    for round_ in range(args.repeat):
        for rate in args.rates:
            for label, allocator, pooling in CONFIGS:
                r = measure(bins, allocator, pooling, rate, args.seconds, pin)
                r["config"], r["rate"], r["round"] = label, rate, round_
                runs.append(r)
                print(f"{round_} {rate:>6.0f}/s  {label:<20} p99 {r['p99_ms']:7.2f} ms  p99.9 {r['p999_ms']:7.2f} ms  "
                      f"{r['allocs_per_request']:5.2f} allocs/req  {r['peak_rss_kib'] / 1024:5.1f} MiB  {r['errors']} errors",
                      flush=True)
    rows = medians(runs)
    (ROOT / "target").mkdir(exist_ok=True)
    (ROOT / "target/http_bench.json").write_text(json.dumps({"runs": runs, "medians": rows}, indent=2) + "\n")
    chart(rows, args.rates, ROOT / "benches/http_chart.svg")
    lines = table(rows, args.rates)
    method = [
        "## 8. Live HTTP service (`examples/with-deps`)",
        "",
        f"`scripts/http_bench.py`, {started}: the JSON API of `examples/with-deps` (hyper 1, tokio, 2 worker threads) "
        "driven over 32 TCP connections by its open-loop load generator on the same 2-core machine"
        + (", the server pinned to CPU 0 and the load generator to CPU 1 (taskset). " if pin else ". ")
        + "Requests are "
        "sent on a fixed schedule and latency is measured from the scheduled send (wrk2's correction for "
        "coordinated omission), into an HdrHistogram. Each row is a fresh server, warmed up for 1 s at the rate, "
        f"then measured for {args.seconds:g} s; the four configurations of a rate run back to back, and the whole "
        f"grid {args.repeat} times: each figure is the median of the {args.repeat} rounds. `pool off` is "
        "`POOLABLE=off` on the same binary (every get constructs, every return is dropped). Allocations are the "
        "server's, from a counting allocator, per request; peak RSS is the server's `VmHWM`. The highest rate is "
        "near the server's saturation.",
        "",
    ] + lines + ["", "![p99 and p99.9 against the rate](http_chart.svg)"]
    replace_block(ROOT / "benches/RESULTS.md", RESULTS_START, RESULTS_END, "\n".join(method))
    replace_block(ROOT / "README.md", README_START, README_END, "\n".join(summary(rows, args.rates)))
    print("wrote benches/RESULTS.md (section 8), the README summary, benches/http_chart.svg, target/http_bench.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())

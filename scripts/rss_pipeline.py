#!/usr/bin/env python3
"""Peak RSS of the buffer pipeline (benches/rss_pipeline.rs), plain against the pool.

Builds the bench, then runs each mode `--runs` times, alternating, one process
per run, a second apart, and prints every run, the medians, and the ratio of
the median peaks (pool / plain) beside the issue's target (<= 1.5x at >= 90%
hits). Standard library only.

The pause matters: a plain run frees pages by the gigabyte (1.5 s of system
time), and a pool run started right after it shares the 2 cores with the
kernel's clean-up, so its consumer falls behind and the channel fills: back to
back, the pool runs had a median of 49 buffers in flight instead of 13, and
twice the peak.

    python3 scripts/rss_pipeline.py [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def binary() -> str:
    out = subprocess.run(
        ["cargo", "bench", "-p", "poolable-benches", "--bench", "rss_pipeline", "--no-run",
         "--message-format", "json"],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg["target"]["name"] == "rss_pipeline" \
                and msg.get("executable"):
            return msg["executable"]
    raise SystemExit("rss_pipeline: no executable built")


def run(exe: str, mode: str) -> dict:
    line = subprocess.run([exe, mode], check=True, capture_output=True, text=True).stdout.split("\n")[0]
    fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
    return {k: (v if k == "mode" else float(v)) for k, v in fields.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    exe = binary()
    runs = {"plain": [], "pool": []}
    for i in range(args.runs):
        for mode in (("plain", "pool") if i % 2 == 0 else ("pool", "plain")):
            time.sleep(1.0)  # the previous run's freed pages: see the docstring
            r = run(exe, mode)
            runs[mode].append(r)
            print(" ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items()))
    plain = statistics.median([r["peak_kib"] for r in runs["plain"]])
    pool = statistics.median([r["peak_kib"] for r in runs["pool"]])
    hits = statistics.median([r["hit_rate"] for r in runs["pool"]])
    print(f"median peak RSS: plain {plain / 1024:.1f} MiB "
          f"(most in flight {statistics.median([r['most_in_flight'] for r in runs['plain']]):g}), "
          f"pool {pool / 1024:.1f} MiB (most in flight {statistics.median([r['most_in_flight'] for r in runs['pool']]):g}, "
          f"hits {hits:.1%}, {statistics.median([r['retained'] for r in runs['pool']]):g} buffers retained)")
    floor = statistics.median([r["most_in_flight_kib"] for r in runs["pool"]])
    print(f"the pool run's most bytes in flight: {floor / 1024:.1f} MiB = {floor / plain:.2f}x plain's peak RSS "
          "(a floor of the pool's peak, whatever it retains)")
    # Each run's peak over its own most bytes in flight: what the process
    # holds beyond the buffers it is using, which the scheduler does not
    # move as much as it moves the depth of the channel.
    over = {mode: statistics.median([r["peak_kib"] / r["most_in_flight_kib"] for r in runs[mode]]) for mode in runs}
    print(f"peak / most bytes in flight, per run: plain {over['plain']:.2f}x, pool {over['pool']:.2f}x "
          f"(ratio {over['pool'] / over['plain']:.2f})")
    ratio = pool / plain
    met = ratio <= 1.5 and hits >= 0.9
    print(f"pool / plain: {ratio:.2f}x (target <= 1.5x at >= 90% hits: {'met' if met else 'missed'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

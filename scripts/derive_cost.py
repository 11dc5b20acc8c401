#!/usr/bin/env python3
"""What `#[derive(Poolable)]` costs at compile time, against serde.

Generates a crate with 300 structs of six fields each under target/derive_cost,
once per variant (no derive; `serde::Serialize`, and the same with every type
serialised once by `serde_json::to_vec`; `poolable::Reset`; `Poolable` with the
pools unused, with every pool used once, and unused again with a field type the
derive checks, as it does any type it does not know by its spelling for one of
std's), builds it in debug, then touches
its source and times the rebuild of that one crate, `--runs` times. Prints the
median rebuild time of each variant, its cost per struct over the no-derive
baseline, and the two ratios issue #25 sets targets for: the derive alone
against serde's (target <= 1x), and every pool used against serde's derive plus
one `to_vec` per type (target <= 2x). Standard library only; needs `cargo` and
the registry cache (serde, serde_json).

Wall time on a shared machine swings by as much as the differences measured
(serde's row alone moved from 0.38 s to 0.66 s between two quiet runs), so
`--count` also counts the instructions of each variant's rebuild (its rustc,
derives included, under `valgrind --tool=cachegrind`): the ratios from those
are exact from run to run.

    python3 scripts/derive_cost.py [--structs 300] [--runs 5] [--count]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "target" / "derive_cost"

SERDE = 'serde = { version = "1", features = ["derive"] }'
SERDE_JSON = SERDE + '\nserde_json = "1"'
# The last field's type, as the prelude names it, or spelt out: the derive
# takes the first for std's and checks nothing (`is_std_only` in
# pool-derive/src/expand.rs); the second it checks, as any type it does not
# know by its spelling (a nested struct, another crate's type).
OPTION, SPELT = "Option<u32>", "core::option::Option<u32>"
# variant: (derive attribute, extra dependencies, what uses each type or "", last field's type)
VARIANTS = {
    "none": ("", "", "", OPTION),
    "serde::Serialize": ("#[derive(serde::Serialize)]", SERDE, "", OPTION),
    "serde::Serialize, every type through serde_json::to_vec": (
        "#[derive(serde::Serialize)]", SERDE_JSON, "let _ = serde_json::to_vec(&S{i}::default());", OPTION),
    "poolable::Reset": ("#[derive(poolable::Reset)]", "", "", OPTION),
    "Poolable (pools unused)": ("#[derive(poolable::Poolable)]", "", "", OPTION),
    "Poolable (every pool used)": ("#[derive(poolable::Poolable)]", "", "drop(S{i}::pool().get());", OPTION),
    f"Poolable (pools unused), a field checked (`{SPELT}`)": ("#[derive(poolable::Poolable)]", "", "", SPELT),
}


def source(derive: str, use: str, structs: int, last: str = OPTION) -> str:
    out = ["#![allow(dead_code)]"]
    for i in range(structs):
        out.append(
            f"{derive}\n#[derive(Default)]\npub struct S{i} {{\n"
            "    pub id: u64,\n    pub name: String,\n    pub tags: Vec<String>,\n"
            f"    pub body: Vec<u8>,\n    pub flag: bool,\n    pub score: {last},\n}}\n"
        )
    if use:
        out.append("pub fn touch_all() {")
        out += ["    " + use.format(i=i) for i in range(structs)]
        out.append("}")
    return "\n".join(out) + "\n"


def crate(name: str, derive: str, extra_dep: str, use: str, structs: int, last: str) -> Path:
    path = WORK / name
    (path / "src").mkdir(parents=True, exist_ok=True)
    (path / "Cargo.toml").write_text(
        f'[package]\nname = "{name}"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
        f'[dependencies]\npoolable = {{ path = "{ROOT}" }}\n{extra_dep}\n\n[workspace]\n'
    )
    (path / "src" / "lib.rs").write_text(source(derive, use, structs, last))
    return path


def rebuild_seconds(path: Path, runs: int) -> float:
    target = WORK / "target"
    build = ["cargo", "build", "--quiet", "--target-dir", str(target)]
    subprocess.run(build, cwd=path, check=True)
    times = []
    for _ in range(runs):
        (path / "src" / "lib.rs").touch()
        start = time.perf_counter()
        subprocess.run(build, cwd=path, check=True)
        times.append(time.perf_counter() - start)
    # Of an even count, the mean of the middle two.
    return statistics.median(times)


# Run as RUSTC_WRAPPER: the rustc that compiles $COUNT_CRATE runs under
# cachegrind, which writes its instruction count to $COUNT_OUT.
WRAPPER = """#!/bin/sh
rustc="$1"; shift
case " $* " in
*" --crate-name $COUNT_CRATE "*)
    exec valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$COUNT_OUT" --log-file="$COUNT_OUT.log" "$rustc" "$@" ;;
esac
exec "$rustc" "$@"
"""


def rebuild_instructions(path: Path) -> int:
    """Instructions of one rebuild of the crate at `path` (touched first)."""
    target = WORK / "target-count"
    wrapper = WORK / "count-rustc.sh"
    wrapper.write_text(WRAPPER)
    wrapper.chmod(0o755)
    out = WORK / "count.out"
    env = dict(os.environ, RUSTC_WRAPPER=str(wrapper), COUNT_CRATE="-", COUNT_OUT=str(out))
    build = ["cargo", "build", "--quiet", "--target-dir", str(target)]
    subprocess.run(build, cwd=path, check=True, env=env)
    (path / "src" / "lib.rs").touch()
    # The file is shared by the variants: a rebuild that did not run rustc
    # under cachegrind must not read the previous variant's count.
    out.unlink(missing_ok=True)
    env["COUNT_CRATE"] = path.name
    subprocess.run(build, cwd=path, check=True, env=env)
    if not out.exists():
        raise SystemExit(f"the rebuild of {path.name} wrote no cachegrind count: rustc did not run?")
    summary = re.search(r"^summary:\s+(\d+)", out.read_text(), re.MULTILINE)
    if summary is None:
        raise SystemExit(f"no cachegrind summary in {out}")
    return int(summary.group(1))


def ratios(results: dict[str, float], what_unit: str) -> None:
    def extra(variant: str) -> float:
        return results[variant] - results["none"]

    for what, num, den, limit in (
        ("derive, pools unused, against serde's derive", "Poolable (pools unused)", "serde::Serialize", 1),
        ("every pool used, against serde's derive and one to_vec per type", "Poolable (every pool used)",
         "serde::Serialize, every type through serde_json::to_vec", 2),
    ):
        ratio = extra(num) / extra(den) if extra(den) > 0 else float("inf")
        print(f"{what}: {ratio:.1f}x the extra {what_unit} (target <= {limit}x: {'met' if ratio <= limit else 'missed'})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--structs", type=int, default=300)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--count", action="store_true", help="also count each rebuild's instructions (valgrind)")
    args = ap.parse_args()
    results, counts = {}, {}
    for i, (variant, (derive, dep, use, last)) in enumerate(VARIANTS.items()):
        path = crate(f"derive_cost_{i}", derive, dep, use, args.structs, last)
        results[variant] = rebuild_seconds(path, args.runs)
        if args.count:
            counts[variant] = rebuild_instructions(path)
    base = results["none"]
    count_head = " rebuild instructions | per struct over none |" if args.count else ""
    print(f"| derive on {args.structs} structs (six fields each) | rebuild (debug, median of {args.runs}) | per struct over none |{count_head}")
    print("|---|---|---|" + ("---|---|" if args.count else ""))
    for variant, seconds in results.items():
        per = (seconds - base) / args.structs * 1000
        row = f"| {variant} | {seconds:.2f} s | {per:.2f} ms |"
        if args.count:
            extra = (counts[variant] - counts["none"]) / args.structs / 1e6
            row += f" {counts[variant] / 1e9:.2f} G | {extra:.2f} M |"
        print(row)
    print()
    ratios(results, "build time")
    if args.count:
        ratios({k: float(v) for k, v in counts.items()}, "instructions")
    return 0


if __name__ == "__main__":
    sys.exit(main())

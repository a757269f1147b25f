#!/usr/bin/python3
"""Bar chart of `arrvm bench --json` results: speed-up over NumPy per program,
one bar per backend x fuser.

usage: bench/plot.py RESULTS.json [-o speedups.png|speedups.svg] [--title TEXT]

Needs matplotlib (Debian: python3-matplotlib; scripts/setup.sh installs it).
Rows that failed or mismatched NumPy are drawn as a hatched stub marked "x".
The y axis is logarithmic with a line at 1 (NumPy's speed).
"""
import argparse
import json
import sys

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("-o", "--output", default="speedups.png")
    ap.add_argument("--title", default=None)
    args = ap.parse_args()

    with open(args.results) as f:
        doc = json.load(f)
    rows = doc.get("rows")
    if not rows:
        sys.exit(f"{args.results}: no rows (is it `arrvm bench --json` output?)")

    programs = list(dict.fromkeys(r["program"] for r in rows))
    series = list(dict.fromkeys((r["backend"], r["fuser"]) for r in rows))
    by_key = {(r["program"], r["backend"], r["fuser"]): r for r in rows}

    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(max(8, 0.9 * len(programs) * max(1, len(series) / 3)), 5))
    cmap = plt.get_cmap("tab10")
    ymin = 1.0
    for k, (backend, fuser) in enumerate(series):
        xs, ys = [], []
        for i, p in enumerate(programs):
            r = by_key.get((p, backend, fuser))
            if r is None:
                continue
            x = i - 0.4 + width * (k + 0.5)
            if r["status"] == "ok" and r["speedup"]:
                xs.append(x)
                ys.append(r["speedup"])
                ymin = min(ymin, r["speedup"])
            else:
                ax.bar(x, 1.0, width, color="none", edgecolor="red", hatch="xx")
        label = fuser if len({b for b, _ in series}) == 1 else f"{backend}/{fuser}"
        bars = ax.bar(xs, ys, width, label=label, color=cmap(k % 10))
        if len(series) * len(programs) <= 48:
            ax.bar_label(bars, labels=[f"{y:.2g}" for y in ys], fontsize="x-small", padding=1)
    ax.set_yscale("log")
    ax.set_ylim(bottom=min(0.5, ymin / 1.5))
    ax.axhline(1.0, color="black", linewidth=0.8)
    ticks = matplotlib.ticker.FuncFormatter(lambda y, _: f"{y:g}x")
    ax.yaxis.set_major_formatter(ticks)
    # Minor ticks labelled at 2 and 5 times a power of ten.
    ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(
        lambda y, _: f"{y:g}x" if f"{y:.0e}"[0] in "25" else ""))
    ax.set_xticks(range(len(programs)))
    ax.set_xticklabels(programs, rotation=35, ha="right")
    ax.set_ylabel("speed-up over NumPy (log scale)")
    backends = ",".join(dict.fromkeys(b for b, _ in series))
    ax.set_title(args.title or f"arrvm bench: size {doc.get('size')}, backend {backends}, "
                 f"cost model {doc.get('cost_model')}")
    ax.legend(title="fuser", fontsize="small", ncol=min(len(series), 6))
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.output)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()

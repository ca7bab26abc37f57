#!/usr/bin/env python3
"""The RSS half of `make soak-all`: reads the samples the fault tests wrote (rss-likes.csv,
rss-content.csv: `<seconds>,<pid>,<KiB>` once a second per `plauditd serve`), prints per
process its RSS after its first minute and at its end, and plots every process's line into
docs/soak-rss.png (gnuplot). A process is one line: a SIGKILLed and restarted instance starts
a new one. Growth is judged on processes that lived at least half the run: their last RSS
against the one a minute in (the caches and pools are warm by then).
Needs only the standard library, and gnuplot for the chart."""

import argparse
import datetime
import os
import shutil
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WARM_S = 60.0


def read(path):
    """pid → [(seconds, MiB)] in time order."""
    lines = defaultdict(list)
    if not os.path.exists(path):
        return lines
    with open(path) as f:
        for row in f:
            parts = row.strip().split(",")
            if len(parts) != 3:
                continue
            t, pid, kib = float(parts[0]), parts[1], int(parts[2])
            lines[pid].append((t, kib / 1024.0))
    return lines


def at_or_after(samples, t):
    for s in samples:
        if s[0] >= t:
            return s
    return samples[-1]


def summarise(name, lines, run_s):
    """Text lines about `lines`, and whether a long-lived process grew by more than 10%."""
    out, grew = [], False
    long_lived = 0
    for pid, samples in sorted(lines.items(), key=lambda kv: kv[1][0][0]):
        start, end = samples[0][0], samples[-1][0]
        if end - start < max(WARM_S * 2, run_s / 2):
            continue
        long_lived += 1
        warm = at_or_after(samples, start + WARM_S)
        last = samples[-1]
        peak = max(mib for _, mib in samples)
        growth = (last[1] - warm[1]) / warm[1] * 100.0
        grew = grew or growth > 10.0
        out.append(f"  {name} pid {pid}: {end - start:.0f} s; RSS {warm[1]:.1f} MiB a minute in, "
                   f"{last[1]:.1f} MiB at its end ({growth:+.1f}%), peak {peak:.1f} MiB")
    short = [s for s in lines.values() if s[-1][0] - s[0][0] < max(WARM_S * 2, run_s / 2)]
    if short:
        peak = max(mib for s in short for _, mib in s)
        out.append(f"  {name}: {len(short)} shorter-lived process(es) (restarted by faults), "
                   f"peak RSS {peak:.1f} MiB")
    if long_lived == 0:
        out.append(f"  {name}: no process lived half the run: no growth figure")
    return out, grew


def plot(series, title, png):
    if not shutil.which("gnuplot"):
        return "no chart: gnuplot is not installed (apt-get install gnuplot-nox)"
    tmp = png + ".dat"
    plots = []
    with open(tmp, "w") as f:
        index = 0
        for name, colour, lines in series:
            first = True
            for pid, samples in sorted(lines.items(), key=lambda kv: kv[1][0][0]):
                for t, mib in samples:
                    f.write(f"{t / 60.0:.3f} {mib:.2f}\n")
                f.write("\n\n")
                label = f'title "{name}"' if first else "notitle"
                plots.append(f'"{tmp}" index {index} with lines lc rgb "{colour}" lw 1.5 {label}')
                first = False
                index += 1
    script = f"""set terminal pngcairo size 900,460 font "sans,10" noenhanced
set output "{png}"
set title "{title}"
set xlabel "minutes"
set ylabel "RSS (MiB)"
set yrange [0:*]
set grid
set key below
plot {", ".join(plots) if plots else "0 notitle"}
"""
    done = subprocess.run(["gnuplot"], input=script, text=True, stderr=subprocess.PIPE)
    os.remove(tmp)
    return None if done.returncode == 0 else (done.stderr.splitlines() or ["gnuplot failed"])[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("dir")
    ap.add_argument("--minutes", type=float, required=True)
    ap.add_argument("--db", default="postgresql")
    ap.add_argument("--seed", default="")
    ap.add_argument("--likes-faults", default="")
    ap.add_argument("--content-faults", default="")
    ap.add_argument("--png", default=os.path.join(ROOT, "docs", "soak-rss.png"))
    args = ap.parse_args()

    run_s = args.minutes * 60.0
    likes = read(os.path.join(args.dir, "rss-likes.csv"))
    content = read(os.path.join(args.dir, "rss-content.csv"))
    if not likes and not content:
        print("soak report: no RSS samples (was PLAUDIT_SOAK_RSS set?)", file=sys.stderr)
        return 1
    text, grew = [], False
    for name, lines in (("likes test", likes), ("content test", content)):
        t, g = summarise(name, lines, run_s)
        text += t
        grew = grew or g
    title = (f"plauditd serve RSS under make soak-all MINUTES={args.minutes:g} DB={args.db} "
             f"SEED={args.seed} ({datetime.date.today()})")
    error = plot([("likes test (faults: " + args.likes_faults + ")", "#1f77b4", likes),
                  ("content test (faults: " + args.content_faults + ")", "#d62728", content)],
                 title, args.png)
    print("soak RSS:")
    print("\n".join(text))
    print(f"  chart: {os.path.relpath(args.png, ROOT)}" if error is None else f"  {error}")
    if grew:
        print("soak RSS: a process that lived half the run grew by more than 10% after its "
              "first minute", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

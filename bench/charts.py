"""Bar charts of a bench script's figures (docs/overload.png, docs/open-loop.png), with gnuplot
as scripts/soak_report.py draws the soak's: one PNG, one panel per measure, a bar per row.
Needs only the standard library, and gnuplot for the chart."""

import os
import shutil
import subprocess
import tempfile


def bars(out, title, labels, panels):
    """Writes `out`: a panel per (ylabel, values, reference line or None, log scale), a bar per
    label. Returns None, or why there is no chart."""
    if not shutil.which("gnuplot"):
        return "no chart: gnuplot is not installed (apt-get install gnuplot-nox)"
    with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as f:
        for i, label in enumerate(labels):
            values = " ".join(f"{p[1][i]:.6g}" for p in panels)
            f.write(f'"{label}" {values}\n')
        data = f.name
    script = [f'set terminal pngcairo size {420 * len(panels) + 60},460 font "sans,10" noenhanced',
              f"set output '{out}'",
              f"set multiplot layout 1,{len(panels)} title \"{title}\"",
              "set style data histograms", "set style fill solid 0.7 border -1",
              "set boxwidth 0.75", "set xtics rotate by 30 right nomirror", "set grid ytics",
              "set key off", "set yrange [0:*]"]
    for n, (ylabel, _, reference, log) in enumerate(panels):
        script.append(f"set ylabel \"{ylabel}\"")
        script.append("set logscale y" if log else "unset logscale y")
        script.append("set yrange [0.5:*]" if log else "set yrange [0:*]")
        script.append("unset arrow")
        if reference is not None:
            script.append(f"set arrow from graph 0, first {reference} to graph 1, first "
                          f"{reference} nohead dt 2 lw 1.5 lc rgb 'red'")
        script.append(f"plot '{data}' using {n + 2}:xtic(1) lc rgb '#4472c4'")
    script.append("unset multiplot")
    done = subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True,
                          stderr=subprocess.PIPE)
    os.unlink(data)
    return None if done.returncode == 0 else (done.stderr.splitlines() or ["gnuplot failed"])[0]

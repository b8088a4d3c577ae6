#!/usr/bin/python3
"""Times `h5ad-sizer size` against `h5ls -r -v` and an h5py metadata walk on
the same files, at 1x (~300 MB) and 10x the data, and prints a Markdown table.

    /usr/bin/python3 bench/size_speed.py [--tool build/h5ad-sizer] [--work bench/out] [--runs 7]

Each command runs once to warm the page cache, then --runs times; the table
shows the median wall-clock time. Files are generated once and reused.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"
SIZES = {"1x": (100_000, 20_000, 180), "10x": (1_000_000, 20_000, 180)}


def median_seconds(cmd, runs):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tool", default=os.path.join(HERE, "..", "build", "h5ad-sizer"))
    p.add_argument("--work", default=os.path.join(HERE, "out"))
    p.add_argument("--runs", type=int, default=7)
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    rows = {}
    for label, (n_obs, n_vars, per_row) in SIZES.items():
        path = os.path.join(a.work, f"sparse_{label}.h5ad")
        if not os.path.exists(path):
            print(f"generating {path} ...", file=sys.stderr)
            subprocess.run([PY, os.path.join(HERE, "make_sparse_h5ad.py"), path, str(n_obs), str(n_vars),
                            str(per_row)], check=True)
        rows[label] = {
            "file": os.path.getsize(path),
            "h5ad-sizer size": median_seconds([a.tool, "size", path], a.runs),
            "h5ls -r -v": median_seconds(["h5ls", "-r", "-v", path], a.runs),
            "h5py walk": median_seconds([PY, os.path.join(HERE, "h5py_walk.py"), path], a.runs),
        }
    tools = ["h5ad-sizer size", "h5ls -r -v", "h5py walk"]
    print("| data | file | " + " | ".join(tools) + " | sizer / h5ls | sizer / h5py |")
    print("|---|---|" + "---|" * (len(tools) + 2))
    for label, r in rows.items():
        print(f"| {label} | {r['file'] / 1e6:.0f} MB | "
              + " | ".join(f"{r[t] * 1000:.1f} ms" for t in tools)
              + f" | {r['h5ad-sizer size'] / r['h5ls -r -v']:.2f} | {r['h5ad-sizer size'] / r['h5py walk']:.2f} |")
    print()
    for t in tools:
        print(f"- {t}: time at 10x / time at 1x = {rows['10x'][t] / rows['1x'][t]:.2f}")


if __name__ == "__main__":
    main()

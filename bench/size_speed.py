#!/usr/bin/python3
"""Times `h5ad-sizer size` against `h5ls -r -v` and an h5py metadata walk on
the same files, at 1x (~300 MB) and 10x the data, and prints Markdown tables.

    /usr/bin/python3 bench/size_speed.py [--tool build/h5ad-sizer] [--work bench/out] [--runs 21]

Wall clock: each command runs once to warm the page cache, then the three
commands take turns --runs times (so that a noisy neighbour slows all of them
alike); the table shows medians. Instructions: one run of each native
command under callgrind, which counts instructions exactly and repeatably
whatever else the machine is doing. Files are generated once and reused.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"
SIZES = {"1x": (100_000, 20_000, 180), "10x": (1_000_000, 20_000, 180)}


IN_PROCESS = dict(os.environ, H5AD_SIZER_IN_PROCESS="1")


def run(cmd):
    # A command is an argv, or (argv, environment).
    argv, env = cmd if isinstance(cmd, tuple) else (cmd, None)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)


def interleaved_medians(commands, runs):
    for cmd in commands.values():
        run(cmd)  # warm the page cache
    times = {name: [] for name in commands}
    for _ in range(runs):
        for name, cmd in commands.items():
            start = time.perf_counter()
            run(cmd)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def instructions(cmd):
    if shutil.which("valgrind") is None:
        return None
    argv, env = cmd if isinstance(cmd, tuple) else (cmd, None)
    with tempfile.TemporaryDirectory() as tmp:
        # `size` reads in a child process: valgrind follows the fork, and
        # each process reports its own count.
        out = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.%p"] + argv,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True,
                             env=env).stderr
    return sum(int(n) for n in re.findall(r"Collected : (\d+)", out))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tool", default=os.path.join(HERE, "..", "build", "h5ad-sizer"))
    p.add_argument("--work", default=os.path.join(HERE, "out"))
    p.add_argument("--runs", type=int, default=21)
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    rows = {}
    for label, (n_obs, n_vars, per_row) in SIZES.items():
        path = os.path.join(a.work, f"sparse_{label}.h5ad")
        if not os.path.exists(path):
            print(f"generating {path} ...", file=sys.stderr)
            subprocess.run([PY, os.path.join(HERE, "make_sparse_h5ad.py"), path, str(n_obs), str(n_vars),
                            str(per_row)], check=True)
        commands = {
            "h5ad-sizer size": [a.tool, "size", path],
            # The same without the child process that contains crashes.
            "size in process": ([a.tool, "size", path], IN_PROCESS),
            "h5ls -r -v": ["h5ls", "-r", "-v", path],
            "h5py walk": [PY, os.path.join(HERE, "h5py_walk.py"), path],
        }
        rows[label] = interleaved_medians(commands, a.runs)
        rows[label]["file"] = os.path.getsize(path)
        rows[label]["Ir sizer"] = instructions(commands["h5ad-sizer size"])
        rows[label]["Ir in process"] = instructions(commands["size in process"])
        rows[label]["Ir h5ls"] = instructions(commands["h5ls -r -v"])
    tools = ["h5ad-sizer size", "size in process", "h5ls -r -v", "h5py walk"]
    print("Wall clock, median of", a.runs, "interleaved runs:\n")
    print("| data | file | " + " | ".join(tools) + " | sizer / h5ls | sizer / h5py |")
    print("|---|---|" + "---|" * (len(tools) + 2))
    for label, r in rows.items():
        print(f"| {label} | {r['file'] / 1e6:.0f} MB | "
              + " | ".join(f"{r[t] * 1000:.1f} ms" for t in tools)
              + f" | {r['h5ad-sizer size'] / r['h5ls -r -v']:.2f} | {r['h5ad-sizer size'] / r['h5py walk']:.2f} |")
    print()
    for t in tools:
        print(f"- {t}: time at 10x / time at 1x = {rows['10x'][t] / rows['1x'][t]:.2f}")
    for label, r in rows.items():
        print(f"- isolation (a child process for the read) at {label}: "
              f"{(r['h5ad-sizer size'] - r['size in process']) * 1000:+.2f} ms")
    if rows["1x"]["Ir sizer"] is not None:
        print("\nInstructions executed (callgrind, whole process including start-up):\n")
        print("| data | h5ad-sizer size | h5ls -r -v | sizer / h5ls |")
        print("|---|---|---|---|")
        for label, r in rows.items():
            print(f"| {label} | {r['Ir sizer'] / 1e6:.2f} M | {r['Ir h5ls'] / 1e6:.2f} M | {r['Ir sizer'] / r['Ir h5ls']:.2f} |")
        print(f"\n- h5ad-sizer size: instructions at 10x / at 1x = {rows['10x']['Ir sizer'] / rows['1x']['Ir sizer']:.2f}")
        for label, r in rows.items():
            print(f"- isolation at {label}: {(r['Ir sizer'] - r['Ir in process']) / 1e6:+.2f} M instructions "
                  f"(in process: {r['Ir in process'] / 1e6:.2f} M)")


if __name__ == "__main__":
    main()

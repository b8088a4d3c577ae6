#!/usr/bin/python3
"""The calibration benchmark: anndata's real peak memory against h5ad-sizer's
estimate, file by file.

    /usr/bin/python3 bench/accuracy/run.py [--tool build/h5ad-sizer] [--corpus bench/out/corpus]
                                           [--real ../shared/corpus/real] [--runs 3] [--job load]
                                           [--runtime anndata-0.8]

Generates the corpus (make_corpus.py) if it is missing, measures each file in
fresh processes (measure_peak.py: VmHWM after resetting it, minus VmRSS once
anndata is imported, the maximum over --runs) with --runtime's anndata stack
(bench/runtimes), runs `h5ad-sizer size --runtime` with the model for that
runtime, and prints a Markdown table. For --job load the estimate compared is
loaded_bytes; for the other jobs it is required_bytes minus the 96 MiB the
profiles reserve for the interpreter with anndata imported, since the
measurement starts after the import.

--job after compares `dataset.memory.after_read_bytes`, what the model says
is left once read_h5ad returns (what the process profile's copies of X
stand on), with the resident memory then (VmRSS above the same start,
measured in the load's processes).

Measured peaks are kept in bench/out/peaks/RUNTIME-JOB.json, keyed by file
name, size and modification time, so that a change of the model is checked
against the same measurements in seconds; --remeasure measures again.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from measure_peak import measure  # noqa: E402
from runtimes import RUNTIMES  # noqa: E402

MIB = 1024 * 1024


def estimate(tool, path, job, runtime):
    command = [tool, "size", path, "--profile", "load" if job == "after" else job]
    out = subprocess.run(command + ["--runtime", runtime], capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    e = doc["estimate"]
    # The measurement starts after the import: leave the interpreter out.
    interpreter = e["runtime_detail"]["interpreter_mib"] * MIB
    if job == "load":
        predicted = e["loaded_bytes"]
    elif job == "after":
        predicted = doc["dataset"]["memory"]["after_read_bytes"]
    else:
        predicted = e["required_bytes"] - interpreter
    return predicted, e["baselines"], doc["dataset"]["file_bytes"], e["runtime"]


def cached_measure(path, job, runs, runtime, remeasure):
    cache_path = os.path.join(ROOT, "bench", "out", "peaks", f"{runtime}-{job}.json")
    cache = {}
    if os.path.exists(cache_path):
        with open(cache_path) as f:
            cache = json.load(f)
    st = os.stat(path)
    key = f"{os.path.basename(path)}:{st.st_size}:{int(st.st_mtime)}:{runs}"
    if remeasure or key not in cache:
        try:
            measured = measure(path, "load" if job == "after" else job, runs, runtime)
            cache[key] = measured["final_bytes" if job == "after" else "peak_bytes"]
        except subprocess.CalledProcessError:
            cache[key] = None  # anndata cannot read it
        os.makedirs(os.path.dirname(cache_path), exist_ok=True)
        with open(cache_path + ".tmp", "w") as f:
            json.dump(cache, f, indent=1, sort_keys=True)
        os.replace(cache_path + ".tmp", cache_path)
    return cache[key]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tool", default=os.path.join(ROOT, "build", "h5ad-sizer"))
    p.add_argument("--corpus", default=os.path.join(ROOT, "bench", "out", "corpus"))
    p.add_argument("--real", default=os.path.join(ROOT, "..", "shared", "corpus", "real"))
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--job", default="load", choices=["load", "migrate", "process", "after"])
    p.add_argument("--runtime", default="anndata-0.8", choices=RUNTIMES)
    p.add_argument("--remeasure", action="store_true", help="measure again instead of reusing bench/out/peaks")
    a = p.parse_args()
    subprocess.run(["/usr/bin/python3", os.path.join(HERE, "make_corpus.py"), a.corpus], check=True,
                   stdout=subprocess.DEVNULL)
    files = sorted(glob.glob(os.path.join(a.corpus, "*.h5ad"))) + sorted(glob.glob(os.path.join(a.real, "*.h5ad")))
    model = estimate(a.tool, os.path.join(ROOT, "data", "example.h5ad"), "load", a.runtime)[3]
    print(f"Runtime measured: {a.runtime}; model: {model}\n")
    measured_label = "measured resident after read_h5ad" if a.job == "after" else f"measured peak ({a.job})"
    print(f"| file | on disk | {measured_label} | h5ad-sizer | ratio | n_obs x n_vars ratio | "
          "X + raw.X ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for path in files:
        measured = cached_measure(path, a.job, a.runs, a.runtime, a.remeasure)
        if measured is None:
            print(f"| {os.path.basename(path)} | | anndata cannot read it | | | | |", flush=True)
            continue
        predicted, baselines, file_bytes, _ = estimate(a.tool, path, a.job, a.runtime)
        ratio = predicted / measured if measured else float("nan")
        print(f"| {os.path.basename(path)} | {file_bytes / MIB:.1f} MiB | {measured / MIB:.1f} MiB | "
              f"{predicted / MIB:.1f} MiB | {ratio:.3f} | "
              f"{baselines['n_obs_x_n_vars'] / measured:.3f} | {baselines['x_and_raw_x_nbytes'] / measured:.3f} |",
              flush=True)


if __name__ == "__main__":
    main()

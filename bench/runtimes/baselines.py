#!/usr/bin/python3
"""The memory a job's interpreter holds before it reads anything, per
anndata stack: VmRSS of a fresh process after `import anndata, numpy,
scipy.sparse` (what bench/measure_peak.py's children import before they
measure), the maximum over --runs fresh processes. Then, in the same
process, what the first DataFrame with a string column and index sets up
(pandas 3 makes them Arrow arrays: pyarrow's kernels are set up then): the
rise of VmHWM, reset first, over VmRSS.

    /usr/bin/python3 bench/runtimes/baselines.py [--runs 5]
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from runtimes import RUNTIMES, python_for  # noqa: E402

CHILD = r'''
import json, warnings
warnings.filterwarnings("ignore")
import anndata, numpy, scipy.sparse, pandas, h5py
from importlib.metadata import PackageNotFoundError, version as dist_version
import importlib
def version(name):
    try:
        return dist_version(name)
    except PackageNotFoundError:  # Debian's packages may carry no metadata
        return importlib.import_module(name).__version__
def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
rss = status("VmRSS:")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
base = status("VmRSS:")
frame = pandas.DataFrame({"a": numpy.array(["x", "y"], dtype=object)}, index=numpy.array(["r1", "r2"], dtype=object))
first_frame = status("VmHWM:") - base
print(json.dumps({"rss": rss, "first_frame": first_frame, "versions": {p: version(p) for p in ["anndata", "pandas", "numpy", "h5py", "scipy"]}}))
'''


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args()
    print("| runtime | stack | interpreter with anndata imported (max of runs) | first string DataFrame (max) |")
    print("|---|---|---:|---:|")
    for runtime in RUNTIMES:
        results = [json.loads(subprocess.run([python_for(runtime), "-c", CHILD], capture_output=True, text=True,
                                             check=True, cwd="/").stdout) for _ in range(a.runs)]
        versions = ", ".join(f"{k} {v}" for k, v in results[0]["versions"].items())
        print(f"| {runtime} | {versions} | {max(r['rss'] for r in results) / 2**20:.1f} MiB | "
              f"{max(r['first_frame'] for r in results) / 2**20:.2f} MiB |", flush=True)


if __name__ == "__main__":
    sys.exit(main())

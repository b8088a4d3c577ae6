#!/usr/bin/python3
"""Measures the peak resident memory that anndata really needs for a job on
an .h5ad file, in fresh processes of the runtime's interpreter (Debian's
/usr/bin/python3 for anndata-0.8, bench/runtimes/setup.sh's virtual
environments for the others).

    /usr/bin/python3 bench/measure_peak.py FILE [--job load|migrate|process] [--runs 3]
                                           [--runtime anndata-0.8]

Prints one JSON line: {"file", "job", "peak_bytes" (max over runs), "runs",
"final_bytes", "baseline_bytes"}. peak_bytes is the rise of VmHWM over VmRSS
after `import anndata`, with the high-water mark reset first (write 5 to
/proc/self/clear_refs). ru_maxrss is not used: Linux carries it across fork
and exec, so a child of a big parent would report the parent's peak.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runtimes import RUNTIMES, python_for  # noqa: E402

CHILD = r'''
import json, os, sys, tempfile, warnings
warnings.filterwarnings("ignore")
import anndata, numpy as np
from scipy import sparse

def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1]) * 1024

path, job = sys.argv[1], sys.argv[2]
baseline = status("VmRSS:")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
base = status("VmRSS:")

adata = anndata.read_h5ad(path)
if job == "migrate":
    # What a schema migration does: edit annotations, write a compressed copy.
    adata.obs["migrated"] = True
    adata.uns["schema_version"] = "5.0.0"
    adata.var.index = adata.var.index.astype(str)
    with tempfile.TemporaryDirectory() as tmp:
        adata.write_h5ad(os.path.join(tmp, "out.h5ad"), compression="gzip")
elif job == "process":
    # What a processing job does to X: a float copy, per-cell normalisation,
    # log1p, a column-major copy for per-gene statistics.
    X = adata.X
    if X is not None:
        X = X.astype(np.float32) if X.dtype != np.float32 else X.copy()
        if sparse.issparse(X):
            totals = np.asarray(X.sum(axis=1)).ravel()
            totals[totals == 0] = 1
            X = sparse.diags(1e4 / totals) @ X
            np.log1p(X.data, out=X.data)
            Xc = X.tocsc()
            means = np.asarray(Xc.mean(axis=0)).ravel()
            del Xc
        else:
            totals = X.sum(axis=1, keepdims=True)
            totals[totals == 0] = 1
            X *= 1e4 / totals
            np.log1p(X, out=X)
            means = X.mean(axis=0)
        adata.layers["normalized"] = X
peak = status("VmHWM:") - base
final = status("VmRSS:") - base
print(json.dumps({"peak_bytes": peak, "final_bytes": final, "baseline_bytes": baseline}))
'''


def measure(path, job, runs, runtime="anndata-0.8"):
    python = python_for(runtime)
    results = []
    for _ in range(runs):
        out = subprocess.run([python, "-c", CHILD, os.path.abspath(path), job], capture_output=True,
                             text=True, check=True, cwd="/")
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {
        "file": path,
        "job": job,
        "runtime": runtime,
        "peak_bytes": max(r["peak_bytes"] for r in results),
        "runs": [r["peak_bytes"] for r in results],
        "final_bytes": max(r["final_bytes"] for r in results),
        "baseline_bytes": max(r["baseline_bytes"] for r in results),
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("--job", default="load", choices=["load", "migrate", "process"])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--runtime", default="anndata-0.8", choices=RUNTIMES)
    a = p.parse_args()
    print(json.dumps(measure(a.file, a.job, a.runs, a.runtime)))


if __name__ == "__main__":
    sys.exit(main())

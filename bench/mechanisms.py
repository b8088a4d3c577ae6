#!/usr/bin/python3
"""Measures, one mechanism at a time, the memory that anndata 0.8 / h5py /
HDF5 1.10 take while reading, on synthetic files. Every constant of
src/estimate/read_costs.cpp and python_costs.cpp comes from a table printed
here (docs/memory-model.md quotes them).

    /usr/bin/python3 bench/mechanisms.py [strings|chunks|datasets|records|interpreter ...] [--work DIR]

Each measurement runs in a fresh /usr/bin/python3 that has imported anndata,
resets the resident-set high-water mark (writes 5 to /proc/self/clear_refs),
reads one element and reports VmHWM and VmRSS above the VmRSS it started at.
"""
import argparse
import os
import subprocess
import sys

import h5py
import numpy as np

PY = "/usr/bin/python3"
MIB = 2**20
CHILD = r'''
import sys, h5py, anndata
from anndata._io.specs import read_elem
def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
f = h5py.File(sys.argv[1], "r")
with open("/proc/self/clear_refs", "w") as c:
    c.write("5")
base = status("VmRSS:")
if sys.argv[2] == "<file>":
    f.close()
    x = anndata.read_h5ad(sys.argv[1])
elif sys.argv[3] == "raw":
    x = f[sys.argv[2]][...]
else:
    x = read_elem(f[sys.argv[2]])
print(status("VmHWM:") - base, status("VmRSS:") - base)
'''


def measure(path, key, how="elem"):
    out = subprocess.run([PY, "-c", CHILD, path, key, how], capture_output=True, text=True, check=True,
                         cwd="/").stdout.split()
    return int(out[0]), int(out[1])


def tag(ds, kind):
    ds.attrs["encoding-type"] = kind
    ds.attrs["encoding-version"] = "0.2.0"


def strings(work):
    """Plain string arrays: peak per string against final + transient model."""
    print("## String arrays (read_elem of a string-array, 1 000 000 strings unless noted)\n")
    print("| length | strings | peak B/string | model final B | model transient B | batch+buffers MiB | model peak B/string |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for length, n in [(8, 10**6), (19, 10**6), (40, 10**6), (100, 10**6), (19, 5_000), (19, 20_000),
                      (19, 65_000), (19, 200_000)]:
        path = os.path.join(work, f"strings_{length}_{n}.h5")
        if not os.path.exists(path):
            with h5py.File(path, "w") as f:
                data = np.array([str(i).zfill(length) for i in range(n)], dtype=object)
                tag(f.create_dataset("s", data=data, dtype=h5py.string_dtype()), "string-array")
        peak, _ = measure(path, "s")
        final = 8 + (48 + length + 1 + 15) // 16 * 16
        transient = (33 + length + 15) // 16 * 16 + max(32, (length + 1 + 8 + 15) // 16 * 16) + 16
        buffers = min(n, 65536) * 115 + 1280 * 1024
        print(f"| {length} | {n} | {peak / n:.1f} | {final} | {transient} | {buffers / MIB:.2f} | "
              f"{(final + transient + buffers / n):.1f} |")
    print()


def chunks(work):
    """Chunked numeric datasets: overhead against chunk count."""
    print("## Chunked numeric datasets (h5py ds[...], float32, h5py's own chunking)\n")
    print("| elements | compression | chunks | peak - nbytes MiB | retained after MiB | model MiB |")
    print("|---:|---|---:|---:|---:|---:|")
    for n in [2_500_000, 12_500_000, 50_000_000]:
        for compression in [None, "gzip"]:
            path = os.path.join(work, f"chunks_{n}_{compression}.h5")
            if not os.path.exists(path):
                with h5py.File(path, "w") as f:
                    f.create_dataset("d", data=np.random.default_rng(1).random(n, dtype=np.float32),
                                     maxshape=(None,), compression=compression)
            with h5py.File(path) as f:
                n_chunks = -(-n // f["d"].chunks[0])
            peak, final = measure(path, "d", "raw")
            nbytes = n * 4
            model = (n_chunks * 4200 + 1126 * 1024 + (1434 * 1024 if compression else 0)) / MIB
            print(f"| {n} | {compression or 'none'} | {n_chunks} | {(peak - nbytes) / MIB:.2f} | "
                  f"{(final - nbytes) / MIB:.2f} | {model:.2f} |")
    print()


def datasets(work):
    """Fixed cost of read_h5ad and its growth with the number of datasets."""
    import anndata as ad
    import pandas as pd
    print("## read_h5ad of a nearly empty file with k small uns arrays\n")
    print("| k | peak MiB |")
    print("|---:|---:|")
    for k in [0, 10, 100, 1000]:
        path = os.path.join(work, f"datasets_{k}.h5ad")
        if not os.path.exists(path):
            a = ad.AnnData(obs=pd.DataFrame(index=[f"c{i}" for i in range(10)]),
                           var=pd.DataFrame(index=[f"g{i}" for i in range(5)]))
            a.uns["many"] = {f"a{i}": np.arange(10) for i in range(k)}
            a.write_h5ad(path)
        peak = max(measure(path, "<file>")[0] for _ in range(3))
        print(f"| {k} | {peak / MIB:.2f} |")
    print()


def records(work):
    """Compound datasets with string members (rec-arrays)."""
    print("## rec-arrays of variable-length strings (read_elem)\n")
    print("| members | records | length | peak B/string | final + bytes object model B |")
    print("|---:|---:|---:|---:|---:|")
    for fields, n, length in [(40, 8000, 8), (10, 100_000, 8), (10, 100_000, 30), (2, 400_000, 8)]:
        path = os.path.join(work, f"records_{fields}_{n}_{length}.h5")
        if not os.path.exists(path):
            dt = np.dtype([(f"f{i}", h5py.string_dtype()) for i in range(fields)])
            a = np.empty(n, dtype=dt)
            for i in range(fields):
                a[f"f{i}"] = np.array([str(j * fields + i).zfill(length) for j in range(n)], dtype=object)
            with h5py.File(path, "w") as f:
                tag(f.create_dataset("r", data=a), "rec-array")
        peak, _ = measure(path, "r")
        strings_n = fields * n
        model = 8 + (48 + length + 1 + 15) // 16 * 16 + (33 + length + 15) // 16 * 16
        print(f"| {fields} | {n} | {length} | {peak / strings_n:.1f} | {model} |")
    print()


def interpreter(work):
    print("## The interpreter\n")
    out = subprocess.run([PY, "-c", "import anndata\nfor l in open('/proc/self/status'):\n"
                          "    print(l.strip()) if l.startswith('VmRSS') else None"],
                         capture_output=True, text=True, check=True, cwd="/").stdout
    print(f"`/usr/bin/python3 -c 'import anndata'`: {out.strip()}\n")


MECHANISMS = {"strings": strings, "chunks": chunks, "datasets": datasets, "records": records,
              "interpreter": interpreter}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("which", nargs="*", default=list(MECHANISMS))
    p.add_argument("--work", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "out", "mechanisms"))
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    for name in a.which:
        MECHANISMS[name](a.work)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Reads one element at a time, alone, in a fresh process of a runtime, and
sets what it took beside what the model says of that element: how far the
read peaked above what it started at (VmHWM after a reset), and how much of
its temporary memory the allocators still hold once it returned (VmRSS after
minus the element's modelled final bytes, HDF5 buffers and chunk records).
This is how the model's loose ends were found (docs/memory-model.md,
"Where the model is loose"): reads whose peak the model misses, and the
share of Python temporaries that outlives a read.

    /usr/bin/python3 bench/accuracy/alone.py --runtime anndata-0.11 FILE.h5ad [/obs ...]
    /usr/bin/python3 bench/accuracy/alone.py --runtime anndata-0.11 FILE.h5ad --after /obs/barcode /obs/_index

Without element paths it reads every column of /obs that has 4 MiB or more
of modelled Python temporaries, then /obs whole. Prints a Markdown table:
modelled final, Python temporaries, HDF5 buffers; measured rise after the
read, peak during it; "held" = (rise after - final - buffers - chunk
records) / Python temporaries; "peak / model" = measured peak / (final +
all three transients). One process per element, so nothing else is alive.

With --after FIRST, each element is read after FIRST in the same process
(FIRST kept alive, as anndata keeps a frame's earlier columns), both
measured from before FIRST: "over own" is how far the second read peaked
above FIRST's modelled final plus its own modelled final and transients,
also as a share of FIRST's Python temporaries: the part of FIRST's
leftovers this read did not reuse (negative where the model of the two
is loose).
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from runtimes import RUNTIMES, python_for  # noqa: E402
from elements import CHILD_PRELUDE, modelled  # noqa: E402

MIB = 2**20
CHILD = CHILD_PRELUDE + r'''
f = h5py.File(sys.argv[1], "r")
element = f[sys.argv[2]]
gc.collect()
start = status()["VmRSS"]
first = read_elem(f[sys.argv[3]]) if len(sys.argv) > 3 else None
gc.collect()
reset()
value = read_elem(element)
end = status()
print(end["VmRSS"] - start, end["VmHWM"] - start)
'''


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runtime", choices=RUNTIMES, required=True)
    p.add_argument("--tool", default=os.path.join(ROOT, "build", "h5ad-sizer"))
    p.add_argument("--after", help="read this element first, in the same process")
    p.add_argument("file")
    p.add_argument("paths", nargs="*")
    a = p.parse_intermixed_args()
    model = modelled(a.tool, a.file, a.runtime)
    paths = a.paths
    if not paths:
        obs = model["/obs"]
        paths = [c["path"] for c in obs.get("children", [])
                 if "[" not in c["path"] and c["transient_bytes"] >= 4 * MIB] + ["/obs"]
    if a.after:
        first = model[a.after]
        print(f"{os.path.basename(a.file)}, {a.runtime}, each read after {a.after}\n")
        print("| element | final | Python temp | HDF5 buffers | peak | over own | over own / first's temp |")
        print("|---|---:|---:|---:|---:|---:|---:|")
    else:
        print(f"{os.path.basename(a.file)}, {a.runtime}\n")
        print("| element | final | Python temp | HDF5 buffers | rise after | peak | held | peak / model |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for path in paths:
        e = model[path]
        command = [python_for(a.runtime), "-c", CHILD, a.file, path] + ([a.after] if a.after else [])
        out = subprocess.run(command, capture_output=True, text=True)
        if out.returncode != 0:
            print(f"| {path} | read failed: {out.stderr.strip().splitlines()[-1][:80]} |||||||")
            continue
        rise, peak = map(int, out.stdout.split())
        final, py = e["loaded_bytes"], e["transient_bytes"]
        buffers, records = e["buffer_transient_bytes"], e["io_transient_bytes"]
        own = final + py + buffers + records
        if a.after:
            # Both measured from before FIRST: its final is there, and
            # whatever of its temporaries this read did not reuse.
            over = peak - own - first["loaded_bytes"]
            share = over / first["transient_bytes"] if first["transient_bytes"] else float("nan")
            print(f"| {path} | {final / MIB:.1f} | {py / MIB:.1f} | {buffers / MIB:.1f} | {peak / MIB:.1f} | "
                  f"{over / MIB:.1f} | {share:.2f} |")
            continue
        held = (rise - final - buffers - records) / py if py else float("nan")
        print(f"| {path} | {final / MIB:.1f} | {py / MIB:.1f} | {buffers / MIB:.1f} | {rise / MIB:.1f} | "
              f"{peak / MIB:.1f} | {held:.2f} | {peak / own:.3f} |")

if __name__ == "__main__":
    main()

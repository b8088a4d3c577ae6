#!/usr/bin/python3
"""How a frame's nullable-string-array columns are read under pandas 3, step
by step, beside what the model says of each (docs/memory-model.md, "Arrow
strings read as such").

    /usr/bin/python3 bench/accuracy/steps.py --runtime anndata-0.13 FILE.h5ad [--frame /obs]
    /usr/bin/python3 bench/accuracy/steps.py --runtime anndata-0.13 FILE.h5ad --in-order

Without --in-order, each nullable-string-array column of the frame (and its
index, when it is one) is read in a fresh process the way anndata 0.12 and
0.13 read it (values, mask, a numpy StringDType copy, pd.array of
pandas' StringDtype, the mask applied), with the high-water mark reset
before each step: how far each step peaked above where the column's read
started, and what is resident once the temporaries are gone. "model": the
column's modelled transient plus its final bytes and its HDF5 buffers, the
same quantity as "peak".

With --in-order, one process reads the frame's columns one after another
with anndata's own reader, each kept, as read_h5ad does: where each read
started, peaked and ended, from before the first. A column's peak less
where it started, against its peak read alone, is how much of the earlier
columns' leftovers it reused.

Max of --runs fresh processes for every figure.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from runtimes import RUNTIMES, python_for  # noqa: E402
from elements import CHILD_PRELUDE, modelled  # noqa: E402

MIB = 2**20
PRELUDE = CHILD_PRELUDE + r'''
f = h5py.File(sys.argv[1], "r")
'''
STEPS = PRELUDE + r'''
g = f[sys.argv[2]]
out = {}
gc.collect(); reset(); start = status()["VmRSS"]
def step(name):
    out[name] = status()["VmHWM"] - start
    reset()
values = read_elem(g["values"]); mask = read_elem(g["mask"]); step("values")
na = pd.NA if g.attrs.get("na-value", "NA") == "NA" else np.nan
copy = values.astype(np.dtypes.StringDType(na_object=na)); step("StringDType")
arr = pd.array(copy, dtype=pd.StringDtype(na_value=na)); step("pd.array")
arr[mask] = pd.NA; step("mask")
del copy, values; gc.collect()
out["after"] = status()["VmRSS"] - start
out["arrow"] = int(arr.nbytes)
print(json.dumps(out))
'''
IN_ORDER = PRELUDE + r'''
frame = f[sys.argv[2]]
order = list(frame.attrs["column-order"]) + [frame.attrs["_index"]]
kept = {}
gc.collect(); reset(); start = status()["VmRSS"]
rows = []
for name in order:
    reset(); before = status()["VmRSS"]
    kept[name] = read_elem(frame[name])
    s = status()
    rows.append([name, before - start, s["VmHWM"] - start, s["VmRSS"] - start])
print(json.dumps(rows))
'''


def run(runtime, code, *args):
    out = subprocess.run([python_for(runtime), "-c", code, *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{args[0]} {args[1]}: {out.stderr.strip().splitlines()[-1]}")
    return json.loads(out.stdout)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runtime", choices=RUNTIMES, required=True)
    p.add_argument("--tool", default=os.path.join(ROOT, "build", "h5ad-sizer"))
    p.add_argument("--frame", default="/obs")
    p.add_argument("--in-order", action="store_true")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("file")
    a = p.parse_args()
    name = os.path.basename(a.file)
    if a.in_order:
        runs = [run(a.runtime, IN_ORDER, a.file, a.frame) for _ in range(a.runs)]
        print(f"{name}, {a.runtime}: {a.frame}'s columns read in order, MiB from before the first\n")
        print("| column | started | peak | ended |")
        print("|---|---:|---:|---:|")
        for i, row in enumerate(runs[0]):
            worst = [max(r[i][k] for r in runs) for k in (1, 2, 3)]
            print(f"| {row[0]} | " + " | ".join(f"{v / MIB:.1f}" for v in worst) + " |")
        return
    model = modelled(a.tool, a.file, a.runtime)
    frame = model[a.frame]
    columns = [c for c in frame.get("children", []) if c.get("encoding") == "nullable-string-array"]
    print(f"{name}, {a.runtime}: MiB above where each column's read started\n")
    print("| column | values | StringDType | pd.array | mask | peak | model | resident after | Arrow array |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for column in columns:
        runs = [run(a.runtime, STEPS, a.file, column["path"]) for _ in range(a.runs)]
        worst = {k: max(r[k] for r in runs) for k in runs[0]}
        peak = max(worst[k] for k in ("values", "StringDType", "pd.array", "mask"))
        own = column["loaded_bytes"] + column["transient_bytes"] + column["buffer_transient_bytes"]
        print(f"| {column['path']} | " +
              " | ".join(f"{worst[k] / MIB:.1f}" for k in ("values", "StringDType", "pd.array", "mask")) +
              f" | {peak / MIB:.1f} | {own / MIB:.1f} | {worst['after'] / MIB:.1f} | {worst['arrow'] / MIB:.1f} |")


if __name__ == "__main__":
    main()

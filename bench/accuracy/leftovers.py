#!/usr/bin/python3
"""What stays resident once read_h5ad returns, and whose it is: reads FILE
in fresh processes of a runtime's interpreter and prints, max of --runs,

  after:           VmRSS rise once read_h5ad has returned
  without check:   the same with anndata's duplicate check of obs_names and
                   var_names patched out (AnnData._check_uniqueness)
  engines:         what clearing the cached hash engines of every
                   categorical's categories, then of the obs index, frees

This is how the index check and the categories' engines were costed
(docs/accuracy.md, estimate/memory.cpp).

    /usr/bin/python3 bench/accuracy/leftovers.py --runtime anndata-0.13 FILE.h5ad [--runs 3]
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from runtimes import python_for  # noqa: E402

MIB = 2**20
CHILD = r'''
import gc, json, sys, warnings
warnings.filterwarnings("ignore")
import anndata
def rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
path, check = sys.argv[1], sys.argv[2] == "check"
if not check:
    anndata.AnnData._check_uniqueness = lambda self: None
start = rss()
adata = anndata.read_h5ad(path)
after = rss() - start
for column in adata.obs.columns:
    if str(adata.obs[column].dtype) == "category":
        adata.obs[column].cat.categories._cache.clear()
gc.collect()
categories = rss() - start
adata.obs.index._cache.clear()
gc.collect()
index = rss() - start
print(json.dumps({"after": after, "categories": after - categories, "index": categories - index}))
'''


def run(python, path, check):
    out = subprocess.run([python, "-c", CHILD, path, "check" if check else "nocheck"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file")
    parser.add_argument("--runtime", default="anndata-0.8")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    python = python_for(args.runtime)
    checked = [run(python, args.file, True) for _ in range(args.runs)]
    unchecked = [run(python, args.file, False) for _ in range(args.runs)]
    def most(runs, key):
        return max(r[key] for r in runs) / MIB
    print(f"{os.path.basename(args.file)} ({args.runtime}, max of {args.runs} fresh processes)")
    print(f"  after read_h5ad:            {most(checked, 'after'):8.1f} MiB")
    print(f"  without the duplicate check: {most(unchecked, 'after'):7.1f} MiB")
    print(f"  categories' engines freed:  {most(checked, 'categories'):8.1f} MiB")
    print(f"  the index's engine freed:   {most(checked, 'index'):8.1f} MiB")


if __name__ == "__main__":
    main()

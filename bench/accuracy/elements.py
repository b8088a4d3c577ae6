"""What bench/accuracy's per-element scripts share: the code their fresh
child processes start with, and the model's view of a file's elements."""
import json
import subprocess

# Child processes run this first: anndata's element reader, and the kernel's
# resident-memory figures (VmRSS now, VmHWM the high-water mark since the
# last reset()).
CHILD_PRELUDE = r'''
import gc, json, sys, warnings
warnings.filterwarnings("ignore")
import h5py, numpy as np, pandas as pd, anndata
try:
    from anndata._io.specs import read_elem
except ImportError:
    from anndata.experimental import read_elem
def status():
    values = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, value = line.split(":", 1)
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(value.split()[0]) * 1024
    return values
def reset():
    with open("/proc/self/clear_refs", "w") as out:
        out.write("5")
'''


def modelled(tool, path, runtime):
    """Every element of `h5ad-sizer inspect --json`, by path."""
    out = subprocess.run([tool, "inspect", path, "--runtime", runtime, "--json"], capture_output=True, text=True,
                         check=True)
    found = {}

    def walk(element):
        found[element["path"]] = element
        for child in element.get("children", []):
            walk(child)
    for element in json.loads(out.stdout)["elements"]:
        walk(element)
    return found

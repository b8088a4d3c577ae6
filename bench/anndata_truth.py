#!/usr/bin/python3
"""Prints what anndata reports for .h5ad files, in the shape of
../shared/corpus/real/TRUTH.json: n_obs, n_vars, X / raw.X encoding, dtype,
shape and nnz, and the keys of layers, obsm, varm, obsp, varp and obs/var.

    /usr/bin/python3 bench/anndata_truth.py FILE...
"""
import json
import sys
import warnings

import anndata as ad
import numpy as np
from scipy import sparse

warnings.filterwarnings("ignore")


def matrix(m):
    if m is None:
        return None
    if sparse.issparse(m):
        return {"encoding": m.format + "_matrix", "dtype": str(m.dtype), "shape": list(m.shape), "nnz": int(m.nnz)}
    m = np.asarray(m)
    return {"encoding": "array", "dtype": str(m.dtype), "shape": list(m.shape), "nnz": int(m.size)}


def truth(path):
    a = ad.read_h5ad(path)
    return {
        "n_obs": a.n_obs,
        "n_vars": a.n_vars,
        "X": matrix(a.X),
        "raw_X": matrix(a.raw.X) if a.raw is not None else None,
        "layers": list(a.layers.keys()),
        "obsm": list(a.obsm.keys()),
        "varm": list(a.varm.keys()),
        "obsp": list(a.obsp.keys()),
        "varp": list(a.varp.keys()),
        "obs_columns": list(a.obs.columns),
        "var_columns": list(a.var.columns),
    }


if __name__ == "__main__":
    print(json.dumps({p.rsplit("/", 1)[-1]: truth(p) for p in sys.argv[1:]}, indent=1, sort_keys=True))

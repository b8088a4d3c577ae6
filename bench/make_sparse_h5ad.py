#!/usr/bin/python3
"""Writes a synthetic AnnData 0.8 file with a CSR X and a CSR raw.X of any
size, streaming the matrices in blocks so memory stays small.

    /usr/bin/python3 bench/make_sparse_h5ad.py OUT N_OBS N_VARS NNZ_PER_ROW [--compression gzip]

obs/var are written by anndata itself (index strings, a categorical, a
numeric column); X and raw/X are then added with h5py using anndata's
encoding attributes, so the file reads back with anndata.read_h5ad.
"""
import argparse
import os
import tempfile
import warnings

import anndata as ad
import h5py
import numpy as np
import pandas as pd

warnings.filterwarnings("ignore")
BLOCK_ROWS = 50_000


def frames(n_obs, n_vars, rng):
    obs = pd.DataFrame(
        {"cell_type": pd.Categorical(rng.choice([f"type-{i}" for i in range(40)], n_obs)),
         "n_counts": rng.random(n_obs).astype(np.float32)},
        index=[f"cell-{i:08d}-AACCGGTT" for i in range(n_obs)])
    var = pd.DataFrame({"means": rng.random(n_vars)}, index=[f"ENSG{i:011d}" for i in range(n_vars)])
    return obs, var


def set_encoding(obj, kind, version="0.1.0"):
    obj.attrs.create("encoding-type", kind, dtype=h5py.string_dtype())
    obj.attrs.create("encoding-version", version, dtype=h5py.string_dtype())


def write_csr(group, n_obs, n_vars, per_row, rng, compression):
    nnz = n_obs * per_row
    set_encoding(group, "csr_matrix")
    group.attrs["shape"] = np.array([n_obs, n_vars], dtype=np.int64)
    kw = dict(compression=compression) if compression else {}
    data = group.create_dataset("data", shape=(nnz,), dtype=np.float32, maxshape=(None,), chunks=(1 << 18,), **kw)
    indices = group.create_dataset("indices", shape=(nnz,), dtype=np.int32, maxshape=(None,), chunks=(1 << 18,), **kw)
    group.create_dataset("indptr", data=np.arange(n_obs + 1, dtype=np.int64) * per_row, maxshape=(None,), **kw)
    for start in range(0, n_obs, BLOCK_ROWS):
        rows = min(BLOCK_ROWS, n_obs - start)
        lo, hi = start * per_row, (start + rows) * per_row
        data[lo:hi] = rng.random(hi - lo, dtype=np.float32)
        cols = np.sort(rng.integers(0, n_vars, (rows, per_row), dtype=np.int32), axis=1)
        indices[lo:hi] = cols.ravel()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("n_obs", type=int)
    p.add_argument("n_vars", type=int)
    p.add_argument("per_row", type=int)
    p.add_argument("--raw-vars", type=int, default=0, help="raw.X genes (default: 1.25 x n_vars)")
    p.add_argument("--compression", default=None)
    a = p.parse_args()
    rng = np.random.default_rng(1)
    raw_vars = a.raw_vars or a.n_vars * 5 // 4
    obs, var = frames(a.n_obs, a.n_vars, rng)
    ad.AnnData(obs=obs, var=var).write_h5ad(a.out)
    with tempfile.TemporaryDirectory() as tmp:
        raw_file = os.path.join(tmp, "raw.h5ad")
        ad.AnnData(var=frames(1, raw_vars, rng)[1]).write_h5ad(raw_file)
        with h5py.File(a.out, "r+") as f, h5py.File(raw_file, "r") as r:
            write_csr(f.create_group("X"), a.n_obs, a.n_vars, a.per_row, rng, a.compression)
            raw = f.create_group("raw")
            set_encoding(raw, "raw")
            write_csr(raw.create_group("X"), a.n_obs, raw_vars, a.per_row, rng, a.compression)
            r.copy("var", raw, "var")
            varm = raw.create_group("varm")
            set_encoding(varm, "dict")


if __name__ == "__main__":
    main()

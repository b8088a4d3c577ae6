#!/usr/bin/python3
"""Writes the calibration corpus: h5ad files of different shapes, each of
which anndata needs at least 100 MiB to load.

    /usr/bin/python3 bench/accuracy/make_corpus.py OUT_DIR [NAME ...]

Every file is written by anndata itself, so the corpus holds what real files
hold: anndata 0.8 (Debian's python3-anndata), except the entries of WRITERS,
which need a newer stack's encodings; the script runs itself again under that
runtime's interpreter for them (bench/runtimes/setup.sh makes it).
Deterministic: fixed seeds.
"""
import os
import subprocess
import sys
import warnings

import anndata as ad
import h5py
import numpy as np
import pandas as pd
from scipy import sparse

warnings.filterwarnings("ignore")


def rng(name):
    return np.random.default_rng(sum(map(ord, name)))


def cells(n, r, extra=None):
    obs = pd.DataFrame(
        {"cell_type": pd.Categorical(r.choice([f"type-{i}" for i in range(30)], n)),
         "n_counts": r.random(n).astype(np.float32),
         "n_genes": r.integers(200, 6000, n)},
        index=[f"AAACCTGAGA{i:08d}-1" for i in range(n)])
    for key, value in (extra or {}).items():
        obs[key] = value
    return obs


def genes(n, r):
    return pd.DataFrame({"gene_symbol": [f"GENE{i}" for i in range(n)],
                         "highly_variable": r.random(n) > 0.7},
                        index=[f"ENSG{i:011d}" for i in range(n)])


def csr(n_obs, n_vars, per_row, r, dtype=np.float32, index_dtype=np.int32):
    indptr = np.arange(n_obs + 1, dtype=np.int64) * per_row
    indices = np.sort(r.integers(0, n_vars, (n_obs, per_row)), axis=1).ravel()
    data = r.random(n_obs * per_row).astype(dtype)
    m = sparse.csr_matrix((data, indices.astype(index_dtype), indptr.astype(index_dtype)),
                          shape=(n_obs, n_vars))
    return m


def dense_f32(r):
    return ad.AnnData(r.random((30_000, 2_000), dtype=np.float32), obs=cells(30_000, r), var=genes(2_000, r)), {}


def dense_f64_with_raw(r):
    a = ad.AnnData(r.random((12_000, 1_200)), obs=cells(12_000, r), var=genes(1_200, r), dtype=np.float64)
    a.raw = ad.AnnData(csr(12_000, 3_000, 100, r), obs=a.obs, var=genes(3_000, r))
    return a, {}


def dense_f16(r):
    return ad.AnnData(r.random((40_000, 2_000), dtype=np.float32).astype(np.float16), obs=cells(40_000, r),
                      var=genes(2_000, r), dtype=np.float16), {}


def csr_raw_more_genes(r):
    a = ad.AnnData(csr(60_000, 15_000, 120, r), obs=cells(60_000, r), var=genes(15_000, r))
    a.raw = ad.AnnData(csr(60_000, 25_000, 150, r), obs=a.obs, var=genes(25_000, r))
    return a, {}


def csc_gzip(r):
    return ad.AnnData(csr(80_000, 12_000, 150, r).tocsc(), obs=cells(80_000, r), var=genes(12_000, r)), \
        {"compression": "gzip"}


def csr_int64_indices(r):
    a = ad.AnnData(csr(70_000, 18_000, 180, r), obs=cells(70_000, r), var=genes(18_000, r))
    return a, {"post": widen_indices}


def widen_indices(path):
    """scipy writes int32 indices while they fit; large matrices and other
    writers (dask, BPCells) use int64, which anndata keeps on read."""
    with h5py.File(path, "r+") as f:
        for key in ("indices", "indptr"):
            values = f["X"][key][...].astype(np.int64)
            del f["X"][key]
            f["X"].create_dataset(key, data=values, maxshape=(None,))


def layers_only_lzf(r):
    a = ad.AnnData(obs=cells(20_000, r), var=genes(2_000, r))
    a.layers["counts"] = csr(20_000, 2_000, 200, r, dtype=np.int32)
    a.layers["dense"] = r.random((20_000, 2_000), dtype=np.float32)
    return a, {"compression": "lzf"}


def heavy_embeddings(r):
    n = 100_000
    a = ad.AnnData(csr(n, 5_000, 20, r), obs=cells(n, r), var=genes(5_000, r))
    a.obsm["X_pca"] = r.random((n, 100), dtype=np.float32)
    a.obsm["X_umap"] = r.random((n, 2))
    a.obsm["X_scvi"] = r.random((n, 30), dtype=np.float32)
    a.obsp["connectivities"] = csr(n, n, 15, r)
    a.obsp["distances"] = csr(n, n, 15, r)
    a.varm["PCs"] = r.random((5_000, 100))
    return a, {}


def heavy_uns(r):
    a = ad.AnnData(csr(20_000, 8_000, 50, r), obs=cells(20_000, r), var=genes(8_000, r))
    groups = [f"cluster{i}" for i in range(40)]
    names = np.rec.fromarrays([np.array([f"GENE{j}" for j in r.integers(0, 8000, 8_000)], dtype=object)
                               for _ in groups], names=groups)
    scores = np.rec.fromarrays([r.random(8_000).astype(np.float32) for _ in groups], names=groups)
    a.uns["rank_genes_groups"] = {"names": names, "scores": scores, "pvals": scores,
                                  "params": {"groupby": "leiden", "method": "wilcoxon"}}
    a.uns["big_matrix"] = r.random((3_000, 3_000))
    a.uns["nested"] = {"level1": {"level2": {"array": r.random(1_000_000), "text": "deep"}}}
    a.uns["table"] = pd.DataFrame({"a": r.random(200_000), "b": [f"row{i}" for i in range(200_000)]},
                                  index=[f"r{i}" for i in range(200_000)])
    return a, {}


def string_heavy_obs(r):
    n = 400_000
    extra = {
        "barcode_long": [f"sample-{i % 97}-lane-{i % 8}-AAACCTGAGAAACCAT-{i}" for i in range(n)],
        "free_text": [f"cell {i} annotated by curator {i % 13} with a long note" for i in range(n)],
        "accented": [f"Zürich-{i}" for i in range(n)],
    }
    a = ad.AnnData(csr(n, 2_000, 10, r), obs=cells(n, r, extra), var=genes(2_000, r))
    return a, {}


def many_categories(r):
    n = 300_000
    extra = {
        "donor": pd.Categorical([f"donor-{i % 50_000}" for i in range(n)]),
        "sample": pd.Categorical([f"sample-{i % 2_000}" for i in range(n)]),
        "batch": pd.Categorical([f"b{i % 100}" for i in range(n)]),
    }
    a = ad.AnnData(csr(n, 3_000, 30, r), obs=cells(n, r, extra), var=genes(3_000, r))
    return a, {}


def dense_uncompressed_big_var(r):
    a = ad.AnnData(r.random((5_000, 6_000), dtype=np.float32), obs=cells(5_000, r), var=genes(6_000, r))
    a.varm["loadings"] = r.random((6_000, 500), dtype=np.float32)
    a.varp["correlation"] = csr(6_000, 6_000, 200, r)
    return a, {}


def nullable_columns(r):
    # pandas nullable integer and boolean obs columns, with missing values:
    # read without a copy, copied once by DataFrame().
    n = 600_000
    extra = {}
    for k in range(5):
        values = pd.array(r.integers(0, 100_000, n), dtype="Int64")
        values[r.random(n) < 0.05] = pd.NA
        extra[f"count_{k}"] = values
    for k in range(4):
        flags = pd.array(r.random(n) < 0.5, dtype="boolean")
        flags[r.random(n) < 0.05] = pd.NA
        extra[f"flag_{k}"] = flags
    return ad.AnnData(csr(n, 2_000, 8, r), obs=cells(n, r, extra), var=genes(2_000, r)), {}


def many_small_uns(r):
    # Thousands of small uns entries, as analysis notebooks leave them:
    # nested dicts, small arrays and strings, rank_genes_groups-style records.
    a = ad.AnnData(csr(40_000, 6_000, 60, r), obs=cells(40_000, r), var=genes(6_000, r))
    for g in range(600):
        groups = [f"g{i}" for i in range(8)]
        a.uns[f"result_{g}"] = {
            "params": {"method": "wilcoxon", "n_genes": int(g), "use_raw": bool(g % 2)},
            "scores": r.random(200).astype(np.float32),
            "names": np.array([f"GENE{j}" for j in r.integers(0, 6_000, 200)], dtype=object),
            "ranked": np.rec.fromarrays([np.array([f"GENE{j}" for j in r.integers(0, 6_000, 50)], dtype=object)
                                         for _ in groups], names=groups),
            "colors": np.array(["#1f77b4", "#ff7f0e", "#2ca02c"], dtype=object),
        }
    return a, {}


def unique_strings_with_missing(n):
    # Two unique string columns with missing values, as pandas "string".
    return {
        "barcode": pd.array([f"sample-{i % 97}-AAACCTGAGAAACCAT-{i}" if i % 10 else None for i in range(n)],
                            dtype="string"),
        "note": pd.array([f"cell {i} annotated by curator {i % 13}" if i % 7 else None for i in range(n)],
                         dtype="string"),
    }


def nullable_strings(r):
    # anndata 0.11 writes such columns as nullable-string-array (values and
    # mask) when allowed to and when not turned into categoricals.
    ad.settings.allow_write_nullable_strings = True
    n = 400_000
    a = ad.AnnData(csr(n, 2_000, 10, r), obs=cells(n, r, unique_strings_with_missing(n)), var=genes(2_000, r))
    a.strings_to_categoricals = lambda *args, **kwargs: None  # keep them strings
    return a, {}


def high_cardinality_categoricals(r):
    # What anndata 0.11 makes of the same columns by default: categoricals
    # with 360 000 and 343 000 categories.
    ad.settings.allow_write_nullable_strings = True
    n = 400_000
    return ad.AnnData(csr(n, 2_000, 10, r), obs=cells(n, r, unique_strings_with_missing(n)), var=genes(2_000, r)), {}


def awkward_obsm(r):
    # A ragged per-cell array in obsm (peaks per cell, as ATAC tools keep
    # them): anndata writes it as awkward-array buffers.
    import awkward as ak
    n = 300_000
    lengths = r.integers(0, 60, n)
    values = r.random(int(lengths.sum())).astype(np.float32)
    a = ad.AnnData(csr(n, 2_000, 10, r), obs=cells(n, r), var=genes(2_000, r))
    a.obsm["peaks"] = ak.unflatten(values, lengths)
    return a, {}


def pandas3_strings(r):
    # What anndata 0.13 writes under pandas 3, whose string columns and index
    # are "str": every one of them as nullable-string-array.
    n = 400_000
    extra = {
        "barcode_long": [f"sample-{i % 97}-lane-{i % 8}-AAACCTGAGAAACCAT-{i}" for i in range(n)],
        "free_text": [f"cell {i} annotated by curator {i % 13} with a long note" for i in range(n)],
    }
    a = ad.AnnData(csr(n, 2_000, 10, r), obs=cells(n, r, extra), var=genes(2_000, r))
    a.strings_to_categoricals = lambda *args, **kwargs: None  # keep them strings
    return a, {}


# Entries written by a newer stack than Debian's, and which.
WRITERS = {"nullable_strings": "anndata-0.11", "high_cardinality_categoricals": "anndata-0.11",
           "awkward_obsm": "anndata-0.11", "pandas3_strings": "anndata-0.13"}


CORPUS = {f.__name__: f for f in [
    dense_f32, dense_f64_with_raw, dense_f16, csr_raw_more_genes, csc_gzip, csr_int64_indices,
    layers_only_lzf, heavy_embeddings, heavy_uns, string_heavy_obs, many_categories,
    dense_uncompressed_big_var, nullable_columns, many_small_uns, nullable_strings,
    high_cardinality_categoricals, awkward_obsm, pandas3_strings]}


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or list(CORPUS)
    os.makedirs(out, exist_ok=True)
    for name in names:
        path = os.path.join(out, name + ".h5ad")
        if os.path.exists(path):
            continue
        writer = WRITERS.get(name)
        if writer and not ad.__version__.startswith(writer.split("-")[1]):
            sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
            from runtimes import python_for
            subprocess.run([python_for(writer), os.path.abspath(__file__), out, name], check=True)
            continue
        adata, kwargs = CORPUS[name](rng(name))
        post = kwargs.pop("post", None)
        adata.write_h5ad(path + ".tmp", **kwargs)
        if post:
            post(path + ".tmp")
        os.replace(path + ".tmp", path)
        print(path, flush=True)


if __name__ == "__main__":
    main()

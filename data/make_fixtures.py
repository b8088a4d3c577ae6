#!/usr/bin/python3
"""Writes the small .h5ad fixtures in this folder.

Run with Debian's Python and its single-cell stack (python3-anndata 0.8.0,
python3-h5py, python3-scipy):  /usr/bin/python3 data/make_fixtures.py data/

Files anndata 0.8 can write are written by anndata; older layouts and broken
files are written with h5py, imitating what the old writers produced. The
output is deterministic (fixed seeds), so re-running it changes nothing.
"""
import os
import shutil
import sys
import warnings

import anndata as ad
import h5py
import numpy as np
import pandas as pd
from scipy import sparse

warnings.filterwarnings("ignore")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261129)


def path(name):
    return os.path.join(OUT, name)


def obs_frame(n, prefix="cell"):
    return pd.DataFrame(
        {
            "cell_type": pd.Categorical(rng.choice(["T cell", "B cell", "NK cell"], n)),
            "n_genes": rng.integers(100, 5000, n).astype(np.int64),
            "percent_mito": rng.random(n).astype(np.float32),
            "donor": [f"donor-{i % 7}" for i in range(n)],
        },
        index=[f"{prefix}-{i:05d}-AACCGGTT" for i in range(n)],
    )


def var_frame(n):
    return pd.DataFrame(
        {"gene_symbol": [f"GENE{i}" for i in range(n)], "highly_variable": rng.random(n) > 0.5},
        index=[f"ENSG{i:011d}" for i in range(n)],
    )


def random_csr(rows, cols, density, dtype=np.float32):
    return sparse.random(rows, cols, density=density, format="csr", dtype=dtype, random_state=7)


def write_anndata_fixtures():
    # Dense float32 X, no raw.
    dense = ad.AnnData(rng.random((40, 30), dtype=np.float32), obs=obs_frame(40), var=var_frame(30))
    dense.write_h5ad(path("dense.h5ad"))

    # The bundled example: CSR X, raw with more genes, layers, obsm/varm/obsp, nested uns.
    n_obs, n_vars, n_raw = 200, 50, 80
    raw = ad.AnnData(random_csr(n_obs, n_raw, 0.1), obs=obs_frame(n_obs), var=var_frame(n_raw))
    example = ad.AnnData(random_csr(n_obs, n_vars, 0.2), obs=obs_frame(n_obs), var=var_frame(n_vars))
    example.raw = raw
    example.layers["counts"] = random_csr(n_obs, n_vars, 0.2, np.int32)
    example.obsm["X_pca"] = rng.random((n_obs, 10), dtype=np.float32)
    example.obsm["X_umap"] = rng.random((n_obs, 2))
    example.varm["PCs"] = rng.random((n_vars, 10))
    example.obsp["connectivities"] = random_csr(n_obs, n_obs, 0.05)
    example.uns["neighbors"] = {"params": {"n_neighbors": 15, "method": "umap"}}
    example.uns["cell_type_colors"] = np.array(["#1f77b4", "#ff7f0e", "#2ca02c"], dtype=object)
    example.uns["title"] = "example dataset"
    example.write_h5ad(path("example.h5ad"), compression="gzip")

    # CSC float64 X.
    # anndata 0.8 casts X to float32 unless told otherwise.
    csc = ad.AnnData(random_csr(60, 25, 0.3, np.float64).tocsc(), obs=obs_frame(60), var=var_frame(25),
                     dtype=np.float64)
    csc.write_h5ad(path("csc.h5ad"))

    # No X at all: layers only (n_obs/n_vars come from obs/var).
    no_x = ad.AnnData(obs=obs_frame(30), var=var_frame(20))
    no_x.layers["counts"] = random_csr(30, 20, 0.3)
    no_x.write_h5ad(path("no_x.h5ad"))

    # String-heavy obs: unique long strings, a categorical with many
    # categories, non-ASCII text and a nullable integer column.
    n = 500
    strings = ad.AnnData(
        random_csr(n, 10, 0.1),
        obs=pd.DataFrame(
            {
                "description": [f"sample {i} from a long free-text field " + "x" * (i % 50) for i in range(n)],
                "cluster": pd.Categorical([f"cluster-{i % 300}" for i in range(n)]),
                "city": ["Zürich" if i % 2 else "Αθήνα" for i in range(n)],
                "count": pd.array([i if i % 5 else None for i in range(n)], dtype="Int64"),
            },
            index=[f"cell-{i:06d}" for i in range(n)],
        ),
        var=var_frame(10),
    )
    strings.write_h5ad(path("strings.h5ad"))

    # The same layout written with h5py's LZF filter.
    dense.write_h5ad(path("lzf.h5ad"), compression="lzf")


def attrs_string(obj, name, value):
    obj.attrs.create(name, value, dtype=h5py.string_dtype())


def write_legacy_fixture():
    """anndata <= 0.6: compound obs/var, h5sparse X, raw.* at the root,
    categories in uns/<column>_categories."""
    with h5py.File(path("legacy.h5ad"), "w") as f:
        X = random_csr(20, 8, 0.25)
        g = f.create_group("X")
        attrs_string(g, "h5sparse_format", "csr")
        g.attrs["h5sparse_shape"] = np.array([20, 8], dtype=np.int64)
        for key in ("data", "indices", "indptr"):
            g.create_dataset(key, data=getattr(X, key), maxshape=(None,))
        vlen = h5py.string_dtype()
        obs = np.zeros(20, dtype=[("index", vlen), ("louvain", np.int8), ("n_counts", np.float32)])
        obs["index"] = [f"cell{i}" for i in range(20)]
        obs["louvain"] = np.arange(20) % 3
        obs["n_counts"] = rng.random(20)
        f.create_dataset("obs", data=obs)
        var = np.zeros(8, dtype=[("index", "S10"), ("means", np.float64)])
        var["index"] = [f"gene{i}".encode() for i in range(8)]
        f.create_dataset("var", data=var)
        obsm = np.zeros(20, dtype=[("X_pca", np.float32, (5,))])
        f.create_dataset("obsm", data=obsm)
        f.create_dataset("uns/louvain_categories", data=np.array([b"a", b"b", b"c"]))
        f.create_dataset("raw.var", data=var)
        g = f.create_group("raw.X")
        attrs_string(g, "h5sparse_format", "csr")
        g.attrs["h5sparse_shape"] = np.array([20, 8], dtype=np.int64)
        for key in ("data", "indices", "indptr"):
            g.create_dataset(key, data=getattr(X, key), maxshape=(None,))


def copy_with(name, edit):
    """A broken variant of dense.h5ad or a CSR fixture, edited with h5py."""
    shutil.copy(path("example.h5ad"), path(name))
    with h5py.File(path(name), "r+") as f:
        edit(f)


def write_broken_fixtures():
    with open(path("bad_not_hdf5.h5ad"), "w") as f:
        f.write("this is a text file, not HDF5\n")
    with open(path("example.h5ad"), "rb") as f:
        head = f.read(4096)
    with open(path("bad_truncated.h5ad"), "wb") as f:
        f.write(head)

    def short_indptr(f):
        del f["X/indptr"]
        f["X/indptr"] = np.zeros(10, dtype=np.int32)

    copy_with("bad_indptr_length.h5ad", short_indptr)

    def short_indices(f):
        n = f["X/indices"].shape[0]
        del f["X/indices"]
        f["X/indices"] = np.zeros(n - 1, dtype=np.int32)

    copy_with("bad_data_indices_length.h5ad", short_indices)
    copy_with("bad_no_shape.h5ad", lambda f: f["X"].attrs.__delitem__("shape"))

    def negative_shape(f):
        f["X"].attrs["shape"] = np.array([-200, 50], dtype=np.int64)

    copy_with("bad_negative_shape.h5ad", negative_shape)

    def obs_rows(f):
        del f["obs"]
        group = f.create_group("obs")
        attrs_string(group, "encoding-type", "dataframe")
        attrs_string(group, "encoding-version", "0.2.0")
        attrs_string(group, "_index", "_index")
        group.attrs["column-order"] = np.array([], dtype=np.float64)
        ds = group.create_dataset("_index", data=np.array(["a", "b"], dtype=object), dtype=h5py.string_dtype())
        attrs_string(ds, "encoding-type", "string-array")
        attrs_string(ds, "encoding-version", "0.2.0")

    copy_with("bad_obs_rows.h5ad", obs_rows)

    def huge_dense(f):
        # A dense X whose element count overflows 64 bits; chunked and never
        # written, so the file stays tiny.
        del f["X"]
        ds = f.create_dataset("X", shape=(2**40, 2**30), dtype=np.float64, chunks=(1, 1024))
        attrs_string(ds, "encoding-type", "array")
        attrs_string(ds, "encoding-version", "0.2.0")

    copy_with("bad_overflow.h5ad", huge_dense)

    # A global heap collection whose signature is gone: the text of
    # /obs/_index cannot be read. The first heap reference of the dataset
    # (4-byte length, 8-byte collection address, 4-byte index) says where.
    shutil.copy(path("strings.h5ad"), path("bad_string_heap.h5ad"))
    with h5py.File(path("bad_string_heap.h5ad"), "r") as f:
        offset = f["obs/_index"].id.get_offset()
    with open(path("bad_string_heap.h5ad"), "r+b") as f:
        f.seek(offset + 4)
        collection = int.from_bytes(f.read(8), "little")
        f.seek(collection)
        assert f.read(4) == b"GCOL"
        f.seek(collection)
        f.write(b"XXXX")

    with h5py.File(path("bad_not_anndata.h5ad"), "w") as f:
        f["measurements"] = np.arange(10)

    # Not broken: links that a walker must survive (a soft-link cycle and an
    # external link into a file that does not exist).
    def links(f):
        f["uns/loop"] = h5py.SoftLink("/uns")
        f["uns/elsewhere"] = h5py.ExternalLink("missing.h5", "/data")

    copy_with("links.h5ad", links)


def write_wide_uns_fixture():
    """An uns of 120 results, each a dict of small arrays and strings: a group
    structure spread over more than the first request reads (256 KiB), so
    that remote reads walk it ahead of HDF5 (docs/remote.md)."""
    local = np.random.default_rng(20261201)
    n_obs, n_vars = 100, 40
    adata = ad.AnnData(
        X=local.random((n_obs, n_vars)).astype(np.float32),
        obs=pd.DataFrame({"group": pd.Categorical(local.choice(["a", "b"], n_obs))},
                         index=[f"cell-{i}" for i in range(n_obs)]),
        var=pd.DataFrame(index=[f"gene-{i}" for i in range(n_vars)]),
    )
    adata.uns = {
        f"result_{i}": {
            "names": np.array([f"gene-{j}" for j in local.integers(0, n_vars, 30)], dtype=object),
            "scores": local.random(300).astype(np.float32),
            "params": {"method": "wilcoxon", "n_genes": 30},
        }
        for i in range(120)
    }
    adata.write_h5ad(path("wide_uns.h5ad"))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    write_anndata_fixtures()
    write_legacy_fixture()
    write_broken_fixtures()
    write_wide_uns_fixture()

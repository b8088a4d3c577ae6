#!/usr/bin/python3
"""Writes the broken-file corpus: hostile and damaged .h5ad files, each with
the exit codes h5ad-sizer may answer with, into OUT/ and OUT/expected.json.

    /usr/bin/python3 tests/robustness/make_broken.py OUT [--base data/example.h5ad]

Deterministic: the same script and base file give the same bytes. Needs h5py
(Debian's python3-h5py). Cases:
  * truncations at every structural boundary of a valid file (superblock,
    each object header, each dataset's data) and at fixed points: exit 4;
  * byte flips in the superblock, object headers, B-tree and heap regions
    of a valid file: exit 0 or 4 (a flip may be harmless), never a crash;
  * files HDF5 accepts and anndata refuses: not AnnData, X of rank 0, 1, 3,
    no obs, no var, dimensions that disagree, obsm stored as a dataset,
    shapes that overflow 64 bits: exit 4;
  * files that are valid but unusual: names that are not UTF-8 or hold
    control characters, external links (never opened), soft and hard link
    cycles, deep nesting, 100 000 tiny objects, 10 000 attributes: exit 0,
    and deeper nesting than the reader follows: exit 4;
  * a string reference claiming more bytes than the file holds: exit 4;
  * not HDF5 at all: empty, random bytes, a signature and garbage: exit 4.
"""
import argparse
import json
import os
import random
import shutil

import h5py
import numpy as np

INVALID = [4]
ANY_CLASSIFIED = [0, 4]


def encode(obj, kind, version="0.2.0"):
    obj.attrs["encoding-type"] = kind
    obj.attrs["encoding-version"] = version
    return obj


def string_array(group, name, values):
    return encode(group.create_dataset(name, data=np.array(values, dtype=object), dtype=h5py.string_dtype()),
                  "string-array")


def frame(group, name, n, index_prefix, columns=None):
    g = encode(group.create_group(name), "dataframe")
    g.attrs["_index"] = "_index"
    string_array(g, "_index", [f"{index_prefix}{i}" for i in range(n)])
    columns = columns or {}
    for key, values in columns.items():
        if values.dtype == object:
            string_array(g, key, list(values))
        else:
            encode(g.create_dataset(key, data=values), "array")
    g.attrs["column-order"] = np.array(list(columns), dtype=h5py.string_dtype()) if columns else np.array([], "f8")
    return g


def anndata_file(path, n_obs=20, n_vars=8, x_shape=None, obs_rows=None, var_rows=None, obs=True, var=True,
                 extra=None):
    """A small valid AnnData 0.8+ file, with the given parts changed."""
    with h5py.File(path, "w", track_order=False) as f:
        encode(f, "anndata", "0.1.0")
        shape = x_shape if x_shape is not None else (n_obs, n_vars)
        encode(f.create_dataset("X", data=np.arange(int(np.prod(shape)), dtype="f4").reshape(shape)), "array")
        if obs:
            frame(f, "obs", obs_rows if obs_rows is not None else n_obs, "cell-",
                  {"n_genes": np.arange(obs_rows if obs_rows is not None else n_obs, dtype="i8")})
        if var:
            frame(f, "var", var_rows if var_rows is not None else n_vars, "gene-")
        for mapping in ("layers", "obsm", "varm", "obsp", "varp"):
            encode(f.create_group(mapping), "dict", "0.1.0")
        encode(f.create_group("uns"), "dict", "0.1.0")
        if extra:
            extra(f)


def object_offsets(path):
    """Object header addresses and dataset data offsets of every object."""
    offsets = set()
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            offsets.add(h5py.h5o.get_info(obj.id).addr)
            if isinstance(obj, h5py.Dataset):
                data = obj.id.get_offset()
                if data is not None:
                    offsets.add(data)
        offsets.add(h5py.h5o.get_info(f.id).addr)
        f.visititems(visit)
    return sorted(offsets)


def write_bytes(path, data):
    with open(path, "wb") as out:
        out.write(data)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--base", default=os.path.join(os.path.dirname(__file__), "..", "..", "data", "example.h5ad"))
    a = p.parse_args()
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    expected = {}

    def case(name, codes, message=None, max_seconds=None):
        expected[name] = {"exit": codes, **({"message": message} if message else {}),
                          **({"max_seconds": max_seconds} if max_seconds else {})}
        return os.path.join(a.out, name)

    base = open(a.base, "rb").read()
    offsets = [o for o in object_offsets(a.base) if 0 < o < len(base)]

    # Truncations: at each boundary, and a byte either side of it.
    cuts = {0, 8, 20, 50, 96, 512, 4096, len(base) // 2, len(base) - 1}
    for o in offsets:
        cuts.update({o, o + 1, o + 40})
    cuts = sorted(c for c in cuts if 0 <= c < len(base))
    cuts = cuts[::max(1, len(cuts) // 40)]  # about 40, spread over the file
    for cut in cuts:
        write_bytes(case(f"truncated_at_{cut:07d}.h5ad", INVALID, "truncated" if cut >= 96 else None), base[:cut])

    # Byte flips near structures (deterministic positions and values).
    r = random.Random(20261201)
    flip_sites = [0, 8, 9, 13, 16, 24, 32, 40, 44, 56, 64, 80, 88] + [o + d for o in offsets for d in (0, 4, 12, 24)]
    flip_sites = sorted(set(s for s in flip_sites if s < len(base)))
    flip_sites = flip_sites[::max(1, len(flip_sites) // 60)]  # about 60
    for i, site in enumerate(flip_sites):
        data = bytearray(base)
        data[site] ^= 1 << r.randrange(8)
        if i % 3 == 0 and site + 4 < len(data):
            data[site + 1:site + 5] = b"\xff\xff\xff\xff"
        write_bytes(case(f"flip_{site:07d}.h5ad", ANY_CLASSIFIED), bytes(data))

    # A global heap collection whose free-space entry (index 0) claims 0
    # bytes: HDF5 1.10.8 and unpatched 1.14.5 loop forever parsing it
    # (cmake/hdf5/patch-source.cmake); the first collection holds the
    # string attributes every element's encoding is read from.
    data = bytearray(base)
    heap = data.find(b"GCOL")
    at, end = heap + 16, heap + int.from_bytes(data[heap + 8:heap + 16], "little")
    while at + 16 <= end:
        index, size = int.from_bytes(data[at:at + 2], "little"), int.from_bytes(data[at + 8:at + 16], "little")
        if index == 0:
            data[at + 8:at + 16] = bytes(8)
            break
        at += 16 + (size + 7) // 8 * 8
    assert index == 0, "no free space in the first global heap collection"
    write_bytes(case("global_heap_free_space_0.h5ad", INVALID, "global heap free space smaller than its header"),
                bytes(data))

    # A string whose heap reference, in the dataset's own bytes, claims 2 GiB
    # in a small file: the reader took lengths from references and sized
    # such a file (a fuzzer's input) at 10 GB, exit 0.
    path = case("string_longer_than_the_file.h5ad", INVALID, "/obs/_index: a string of 2147483648 bytes")
    anndata_file(path, n_obs=300)
    with h5py.File(path, "r") as f:
        references = f["obs/_index"].id.get_offset()
    data = bytearray(open(path, "rb").read())
    at = references + 150 * 16  # {uint32 length, 8-byte address, uint32 index} each
    data[at:at + 4] = (2**31).to_bytes(4, "little")
    write_bytes(path, bytes(data))

    # Not HDF5.
    write_bytes(case("empty.h5ad", INVALID, "not an HDF5 file"), b"")
    write_bytes(case("random_bytes.h5ad", INVALID, "not an HDF5 file"), bytes(r.randrange(256) for _ in range(4096)))
    write_bytes(case("signature_then_garbage.h5ad", INVALID),
                b"\x89HDF\r\n\x1a\n" + bytes(r.randrange(256) for _ in range(4096)))
    write_bytes(case("text_file.h5ad", INVALID, "not an HDF5 file"), b"cell_id,gene,count\nAAAC,CD3E,4\n" * 100)

    # HDF5 but not AnnData, or AnnData that anndata refuses.
    with h5py.File(case("plain_hdf5.h5ad", INVALID, "not an AnnData file"), "w") as f:
        f.create_group("measurements").create_dataset("temperature", data=np.arange(10.0))
    anndata_file(case("x_rank_0.h5ad", INVALID, "/X: is 0-dimensional"), x_shape=())
    anndata_file(case("x_rank_1.h5ad", INVALID, "/X: is 1-dimensional"), x_shape=(20,))
    anndata_file(case("x_rank_3.h5ad", INVALID, "/X: is 3-dimensional"), x_shape=(20, 8, 2))
    anndata_file(case("no_obs.h5ad", INVALID, "/obs: missing"), obs=False)
    anndata_file(case("no_var.h5ad", INVALID, "/var: missing"), var=False)
    anndata_file(case("obs_rows_disagree.h5ad", INVALID, "/obs: has 19 rows"), obs_rows=19)
    anndata_file(case("var_rows_disagree.h5ad", INVALID, "/var: has 9 rows"), var_rows=9)
    anndata_file(case("layer_shape_disagrees.h5ad", INVALID, "/layers/counts: has shape 20 x 7"),
                 extra=lambda f: encode(f["layers"].create_dataset("counts", data=np.zeros((20, 7), "i4")), "array"))
    anndata_file(case("obsm_rows_disagree.h5ad", INVALID, "/obsm/X_pca: has shape 21 x 2"),
                 extra=lambda f: encode(f["obsm"].create_dataset("X_pca", data=np.zeros((21, 2), "f4")), "array"))
    anndata_file(case("obsp_not_square.h5ad", INVALID, "/obsp/distances: has shape 20 x 19"),
                 extra=lambda f: encode(f["obsp"].create_dataset("distances", data=np.zeros((20, 19), "f4")),
                                        "array"))
    anndata_file(case("varm_rows_disagree.h5ad", INVALID, "/varm/loadings: has shape 7 x 3"),
                 extra=lambda f: encode(f["varm"].create_dataset("loadings", data=np.zeros((7, 3), "f4")), "array"))

    def obsm_dataset(f):
        del f["obsm"]
        f.create_dataset("obsm", data=np.zeros((20, 2), "f4"))
    anndata_file(case("obsm_is_a_dataset.h5ad", INVALID, "/obsm: is a dataset"), extra=obsm_dataset)

    def huge_sparse(shape):
        def add(f):
            del f["X"]
            g = encode(f.create_group("X"), "csr_matrix", "0.1.0")
            g.attrs["shape"] = np.array(shape, dtype="i8")
            g.create_dataset("data", data=np.zeros(0, "f4"))
            g.create_dataset("indices", data=np.zeros(0, "i4"))
            g.create_dataset("indptr", data=np.zeros(shape[0] + 1 if shape[0] < 100 else 1, "i8"))
        return add
    anndata_file(case("sparse_shape_overflows.h5ad", INVALID),
                 extra=huge_sparse([2**62, 2**62]), obs=True, var=True)

    def huge_chunked(f):
        # 2^50 float64 values declared (nothing written: chunks are allocated
        # lazily), in chunks of one value: counting them overflows nothing,
        # holding them needs 8 PiB.
        f["uns"].create_dataset("huge", shape=(2**50,), dtype="f8", chunks=(1,), maxshape=(None,))
    anndata_file(case("uns_dataset_of_8_pib.h5ad", [0, 4, 5]), extra=huge_chunked)

    # Valid but unusual: exit 0.
    def bad_names(f):
        f["obs"].create_dataset(b"caf\xe9\xff", data=np.arange(20, dtype="i8"))
        encode(f["obs"][b"caf\xe9\xff"], "array")
        f["obs"].attrs["column-order"] = np.array(["n_genes", b"caf\xe9\xff"], dtype=h5py.string_dtype("ascii"))
        encode(f["uns"].create_dataset("line\nbreak\x1b[31m", data=np.arange(3)), "array")
    anndata_file(case("names_not_utf8_and_control_chars.h5ad", [0]), extra=bad_names)

    def external(f):
        f["uns"]["elsewhere"] = h5py.ExternalLink("/etc/passwd", "/")
        f["obsm"]["X_ext"] = h5py.ExternalLink("other.h5ad", "/obsm/X_pca")
    anndata_file(case("external_links.h5ad", [0]), extra=external)

    def soft_cycle(f):
        f["uns"].create_group("a")
        f["uns"]["a"]["back"] = h5py.SoftLink("/uns")
        f["uns"]["a"]["self"] = h5py.SoftLink("/uns/a")
    anndata_file(case("soft_link_cycle.h5ad", [0]), extra=soft_cycle)

    def hard_cycle(f):
        g = f["uns"].create_group("loop")
        g["parent"] = f["uns"]
        g["root"] = f["/"]
    anndata_file(case("hard_link_cycle.h5ad", [0]), extra=hard_cycle)

    def nested(depth):
        def add(f):
            g = f["uns"]
            for _ in range(depth):
                g = g.create_group("d")
            g.create_dataset("leaf", data=np.arange(3))
        return add
    anndata_file(case("nested_100.h5ad", [0]), extra=nested(100))
    anndata_file(case("nested_2000.h5ad", INVALID, "levels deep"), extra=nested(2000))

    def many_objects(f):
        g = f["uns"]
        for i in range(1000):
            sub = g.create_group(f"g{i:04d}")
            for j in range(100):
                sub.create_dataset(f"v{j:02d}", data=np.int64(j))
    # HDF5's own walk of these takes 3.7 s (`h5ls -r`, 1.10.8); the tool
    # 1.2 s (docs/robustness.md). The same binary took 1.24-2.02 s of CPU
    # back to back on a busy 2-core machine (2026-12-01), so this case is
    # held to 4 s: still far below a walk that grew faster than the objects.
    anndata_file(case("objects_100000.h5ad", [0], max_seconds=4.0), extra=many_objects)

    def many_attributes(f):
        for i in range(10_000):
            f["uns"].attrs[f"a{i:05d}"] = i
    anndata_file(case("attributes_10000.h5ad", [0]), extra=many_attributes)

    def long_attribute(f):
        f["obs"].attrs["_index"] = "x" * (1 << 20)
    anndata_file(case("index_name_of_1_mib.h5ad", INVALID), extra=long_attribute)

    with open(os.path.join(a.out, "expected.json"), "w") as out:
        json.dump(expected, out, indent=1, sort_keys=True)
    print(f"{len(expected)} cases in {a.out}")


if __name__ == "__main__":
    main()

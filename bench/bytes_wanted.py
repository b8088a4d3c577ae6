#!/usr/bin/python3
"""What the bytes a `size` of one file wants are: every read the reader asks
its source for, from a build with -DH5AD_SIZER_TRACE_READS=ON, matched
against the file's HDF5 structures (h5py's object addresses and dataset
extents; the signatures of global heap collections, B-tree and symbol
nodes and local heaps).

    /usr/bin/python3 bench/bytes_wanted.py [FILE] [--build DIR] [--granule BYTES]

FILE defaults to the uns-heavy benchmark file (bench/out/corpus/
many_small_uns.h5ad, bench/accuracy/make_corpus.py). DIR (default
bench/out/build-trace) is configured and built when it holds no binary yet.
Checks that the union of the traced reads is the `io.bytes_wanted` that
`size --stats` reports, then prints the wanted bytes by structure, the
numeric arrays (which `size` never reads), the heap collections and their
objects, and what fetching only wanted granules would take (docs/remote.md).
"""
import argparse
import collections
import json
import os
import re
import statistics
import struct
import subprocess
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MiB = 2**20
LABELS = ["other", "global heap collections", "string and record arrays' references", "numeric arrays",
          "object headers", "continuation blocks", "B-tree nodes", "symbol nodes", "local heaps"]
(OTHER, COLLECTION, STRING_DATA, NUMERIC_DATA, HEADER, CONTINUATION, BTREE, SYMBOL_NODE,
 LOCAL_HEAP) = range(len(LABELS))


def build(directory):
    binary = os.path.join(directory, "h5ad-sizer")
    if not os.path.exists(binary):
        subprocess.run(["cmake", "-S", ROOT, "-B", directory, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                        "-DH5AD_SIZER_TRACE_READS=ON", "-DBUILD_TESTING=OFF"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", directory, "--target", "h5ad-sizer"], check=True,
                       stdout=subprocess.DEVNULL)
    return binary


def traced_reads(binary, path):
    """The reads of one `size --stats`, and the bytes_wanted it reports. In
    process: the reader's child would keep its stderr to itself."""
    env = dict(os.environ, H5AD_SIZER_IN_PROCESS="1")
    result = subprocess.run([binary, "size", path, "--stats"], capture_output=True, text=True, env=env)
    if result.returncode != 0:
        sys.exit(f"{binary} size {path}: exit {result.returncode}: {result.stderr[-500:]}")
    reads = [tuple(map(int, line.split()[1:])) for line in result.stderr.splitlines() if line.startswith("read ")]
    if not reads:
        sys.exit(f"{binary} logged no reads: was it built with -DH5AD_SIZER_TRACE_READS=ON?")
    return reads, json.loads(result.stdout)["io"]["bytes_wanted"]


def collections_in(data):
    """(offset, size, free bytes, object sizes) of every global heap
    collection, found by its signature and checked by its own walk."""
    found = []
    for match in re.finditer(b"GCOL\x01", data):
        offset = match.start()
        size = struct.unpack_from("<Q", data, offset + 8)[0]
        if size < 4096 or offset + size > len(data):
            continue
        objects, free, at = [], 0, offset + 16
        while at + 16 <= offset + size:
            index, _, _, length = struct.unpack_from("<HH4sQ", data, at)
            if index == 0:  # the free space
                free = length
                break
            objects.append(length)
            at += 16 + (length + 7) // 8 * 8
        found.append((offset, size, free, objects))
    return found


def label_file(path, data):
    """A label for each byte of the file: which structure holds it."""
    labels = np.zeros(len(data), dtype=np.uint8)

    def mark(start, end, label):
        span = labels[start:min(end, len(data))]
        span[span == OTHER] = label

    for offset, size, _, _ in collections_in(data):
        mark(offset, offset + size, COLLECTION)
    for match in re.finditer(b"TREE", data):
        # A group's (type 0) node: 24 bytes + 2K+1 keys and 2K children
        # of 8 bytes (K = 16, the default), as the file's nodes are.
        mark(match.start(), match.start() + 24 + 33 * 8 + 32 * 8, BTREE)
    for match in re.finditer(b"SNOD", data):
        # 2K entries of 40 bytes (K = 4, the default for symbol nodes).
        mark(match.start(), match.start() + 8 + 2 * 4 * 40, SYMBOL_NODE)
    for match in re.finditer(b"HEAP\x00", data):
        offset = match.start()
        data_size, _, data_address = struct.unpack_from("<QQQ", data, offset + 8)
        mark(offset, offset + 32, LOCAL_HEAP)
        if data_address + data_size <= len(data):
            mark(data_address, data_address + data_size, LOCAL_HEAP)

    numeric = []
    headers = set()

    def header(address):
        # Version-1 object headers (what h5py writes by default) and the
        # continuation blocks their messages point to.
        if address in headers or data[address] != 1:
            return
        headers.add(address)
        size = struct.unpack_from("<I", data, address + 8)[0]  # after version, reserved, count, references
        mark(address, address + 16 + size, HEADER)
        blocks = [(address + 16, address + 16 + size)]
        while blocks:
            at, end = blocks.pop()
            while at + 8 <= end:
                kind, length = struct.unpack_from("<HH", data, at)
                if kind == 0x10:
                    offset, block_length = struct.unpack_from("<QQ", data, at + 8)
                    mark(offset, offset + block_length, CONTINUATION)
                    blocks.append((offset, offset + block_length))
                at += 8 + length

    def visit(_, obj):
        header(h5py.h5o.get_info(obj.id).addr)
        if isinstance(obj, h5py.Dataset):
            offset, size = obj.id.get_offset(), obj.id.get_storage_size()
            if offset is not None and size:
                strings = obj.dtype.kind == "O" or obj.dtype.names is not None
                mark(offset, offset + size, STRING_DATA if strings else NUMERIC_DATA)
                if not strings:
                    numeric.append(size)

    with h5py.File(path, "r") as f:
        header(h5py.h5o.get_info(f.id).addr)
        f.visititems(visit)
    return labels, numeric


def main():
    p = argparse.ArgumentParser()
    p.add_argument("file", nargs="?", default=os.path.join(HERE, "out", "corpus", "many_small_uns.h5ad"))
    p.add_argument("--build", default=os.path.join(HERE, "out", "build-trace"))
    p.add_argument("--granule", type=int, default=512)
    a = p.parse_args()
    binary = build(a.build)
    reads, reported = traced_reads(binary, a.file)
    data = open(a.file, "rb").read()
    wanted = np.zeros(len(data), dtype=bool)
    for offset, length in reads:
        wanted[offset:offset + length] = True
    total = int(wanted.sum())
    print(f"{a.file}: {len(data)} bytes, {len(reads)} reads, {total} bytes wanted ({total / MiB:.2f} MiB)")
    if total != reported:
        sys.exit(f"the traced reads cover {total} bytes but size --stats reports bytes_wanted {reported}")
    print("  (the same as size --stats' io.bytes_wanted)")

    labels, numeric = label_file(a.file, data)
    by_label = collections.Counter(labels[wanted].tolist())
    print("\n| wanted bytes in | MiB |\n|---|---:|")
    for label, count in by_label.most_common():
        print(f"| {LABELS[label]} | {count / MiB:.2f} |")

    numeric_wanted = int((wanted & (labels == NUMERIC_DATA)).sum())
    print(f"\nnumeric arrays: {len(numeric)} extents, {sum(numeric) / MiB:.2f} MiB, median "
          f"{statistics.median(numeric) if numeric else 0:.0f} bytes, {sum(1 for n in numeric if n > 2048)} over "
          f"2 KiB; {numeric_wanted} bytes of them wanted")

    found = collections_in(data)
    touched = [c for c in found if wanted[c[0]:c[0] + c[1]].any()]
    sizes = [c[1] for c in touched]
    objects = [n for c in found for n in c[3]]
    spacing = sum(16 + (n + 7) // 8 * 8 for n in objects) / max(1, len(objects))
    print(f"global heap collections: {len(found)} in the file, {len(touched)} read from, "
          f"{min(sizes, default=0) // 1024}-{max(sizes, default=0) // 1024} KiB, "
          f"{sum(c[2] for c in touched) / 1024:.0f} KiB free in those; {len(objects)} heap objects in the file, "
          f"median {statistics.median(objects) if objects else 0:.0f} bytes, {spacing:.1f} bytes apart on average")

    g = a.granule
    granules = np.flatnonzero(np.add.reduceat(wanted, np.arange(0, len(data), g)) > 0)
    holes = int((np.diff(granules) > 1).sum())
    print(f"at {g}-byte granules: {len(granules) * g / MiB:.2f} MiB in {holes + 1} runs "
          f"(fetching only those takes {holes + 1} requests)")


if __name__ == "__main__":
    sys.exit(main())

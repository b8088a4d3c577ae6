#!/usr/bin/python3
"""The h5py peer of `h5ad-sizer size`: visits every object of a file and
reads what a metadata-only sizer needs (shape, dtype, attributes, storage
size), without reading any data.

    /usr/bin/python3 bench/h5py_walk.py FILE
"""
import sys

import h5py


def visit(name, obj):
    dict(obj.attrs)
    if isinstance(obj, h5py.Dataset):
        obj.shape, obj.dtype, obj.id.get_storage_size()


with h5py.File(sys.argv[1], "r") as f:
    dict(f.attrs)
    f.visititems(visit)

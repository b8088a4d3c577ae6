#!/usr/bin/python3
"""What the two copies a pandas-3 read of a nullable-string column makes cost
by string length (docs/memory-model.md, "Nullable strings under pandas 3"):
a numpy StringDType array made from str objects, and the Arrow large_string
array pyarrow builds from them, each in a fresh process of the runtime.

    /usr/bin/python3 bench/accuracy/string_buffers.py --runtime anndata-0.13

Per length: StringDType bytes a string (VmRSS rise around
`objects.astype(StringDType())`, over the strings); and pa.array's peak
above its start (VmHWM after a reset) against the doubled buffers the model
charges (offsets and text, each the next power of two) plus the array.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from runtimes import RUNTIMES, python_for  # noqa: E402
from elements import CHILD_PRELUDE  # noqa: E402

CHILD = CHILD_PRELUDE + r'''
import pyarrow as pa
n, length, what = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
objects = np.array([("%0*d" % (length, i))[:length] for i in range(n)], dtype=object)
gc.collect(); reset(); start = status()["VmRSS"]
if what == "StringDType":
    made = objects.astype(np.dtypes.StringDType(na_object=pd.NA))
    print(status()["VmRSS"] - start, 0)
else:
    made = pa.array(objects, type=pa.large_string(), from_pandas=True)
    print(status()["VmHWM"] - start, made.nbytes)
'''


def pow2(n):
    p = 1
    while p < n:
        p *= 2
    return p


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runtime", choices=RUNTIMES, default="anndata-0.13")
    p.add_argument("--strings", type=int, default=400_000)
    p.add_argument("--lengths", default="16,20,30,40,41,42,45,51,60,100,300")
    a = p.parse_args()
    n = a.strings
    print(f"{a.runtime}, {n} strings of one length, a fresh process each\n")
    print("| bytes a string | StringDType: bytes a string | (that - 16) / (L + 8) | pa.array peak, MB | "
          "doubled buffers + array, MB | peak / that |")
    print("|---:|---:|---:|---:|---:|---:|")
    for length in map(int, a.lengths.split(",")):
        def run(what):
            out = subprocess.run([python_for(a.runtime), "-c", CHILD, str(n), str(length), what],
                                 capture_output=True, text=True, check=True)
            return list(map(int, out.stdout.split()))
        dtype_bytes = run("StringDType")[0] / n
        peak, array = run("pa.array")
        model = pow2(8 * (n + 1)) + pow2(n * length) + array
        print(f"| {length} | {dtype_bytes:.1f} | {(dtype_bytes - 16) / (length + 8):.2f} | {peak / 1e6:.2f} | "
              f"{model / 1e6:.2f} | {peak / model:.2f} |")


if __name__ == "__main__":
    main()

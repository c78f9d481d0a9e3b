#!/usr/bin/python3
"""A checkpoint-like HDF5 file with one float32 [6, 2048, 2048] dataset (96 MiB, above the
dataset view's 64 MiB limit for whole reads): /model/layers/attn_stack, each slice a different
pattern, one NaN at [3, 1000, 1500]. For the picture of a dataset read one slice at a time
(docs/GUI.md, "Big tensors"). Deterministic.

    /usr/bin/python3 scripts/make_stack_checkpoint.py OUT.h5
"""
import sys

import h5py
import numpy as np


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_stack_checkpoint.py OUT.h5")
    rows = np.arange(2048, dtype=np.float64)[:, None]
    cols = np.arange(2048, dtype=np.float64)[None, :]
    stack = np.empty((6, 2048, 2048), dtype=np.float32)
    for s in range(6):
        stack[s] = (s + 1) * np.sin(0.004 * (s + 1) * rows) * np.cos(0.003 * cols) + 0.1 * s
    stack[3, 1000, 1500] = np.nan
    with h5py.File(sys.argv[1], "w") as f:
        f.create_dataset("/model/layers/attn_stack", data=stack)


if __name__ == "__main__":
    main()

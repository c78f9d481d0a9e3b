#!/usr/bin/python3
"""Two small checkpoint-like HDF5 files for the debugger's dataset pictures (docs/GUI.md):
step1000.h5 and step1001.h5 hold the same paths (nested groups, float32 weights, a float16
bias, an Adam moment); step 1001 is step 1000 after one small update, with one NaN and one Inf
in the embedding. Seeded, so the pictures are reproducible.

    /usr/bin/python3 scripts/make_checkpoint_pair.py OUT_DIR
"""
import os
import sys

import h5py
import numpy as np


def write(path, tensors):
    with h5py.File(path + ".tmp", "w") as f:
        for name, value in tensors.items():
            f.create_dataset(name, data=value)
    os.replace(path + ".tmp", path)


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(1000)
    x = np.linspace(-3, 3, 256)
    embed = (np.sin(x[:, None] * np.arange(1, 129)[None, :] / 16) + 0.1 * rng.standard_normal((256, 128)))
    base = {
        "model/embed/weight": embed.astype(np.float32),
        "model/layers/0/attn/qkv/weight": (0.02 * rng.standard_normal((3, 64, 128))).astype(np.float32),
        "model/layers/0/attn/qkv/bias": (0.01 * rng.standard_normal(192)).astype(np.float16),
        "optimizer/state/0/exp_avg": (1e-4 * rng.standard_normal((256, 128))).astype(np.float32),
    }
    write(os.path.join(out, "step1000.h5"), base)
    step = {k: (v + (1e-3 * rng.standard_normal(v.shape)).astype(v.dtype) * np.abs(v)).astype(v.dtype)
            for k, v in base.items()}
    step["model/embed/weight"][40, 17] = np.nan
    step["model/embed/weight"][200, 99] = np.inf
    write(os.path.join(out, "step1001.h5"), step)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")

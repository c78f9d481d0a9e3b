#!/usr/bin/env python3
"""Writes a checkpoint-like HDF5 file for the big-tensor measurements (docs/GUI.md, "Big tensors").

Mirrors the file of issue 15: nested groups, thousands of small optimizer groups, a float32
[rows, cols] embedding (512 MiB at the default 32768 x 4096), fp16 data, strings, a compound
dataset, soft links, the [cols] gamma and [rows] rstd RmsNormGrad needs beside the embedding,
and a case binding them (soft links) for `opscope --case`.

    /usr/bin/python3 scripts/make_big_checkpoint.py OUT.h5 [--rows 32768] [--cols 4096] [--groups 3000]

The embedding is written in row blocks, so this script never holds it whole. Values are
deterministic (a seeded generator), small and well conditioned, with one NaN and one +Inf far
from the origin (at rows/2+1 and rows-3) so a viewer that loses extremes is caught.
"""
import argparse
import sys

import h5py
import numpy as np


def write_embedding(f, path, rows, cols, rng):
    d = f.create_dataset(path, shape=(rows, cols), dtype="float32", chunks=(min(rows, 256), cols))
    rstd = np.empty(rows, dtype="float32")
    block = 1024
    for r in range(0, rows, block):
        n = min(block, rows - r)
        x = rng.standard_normal((n, cols), dtype=np.float32) * np.float32(0.02)
        d[r:r + n] = x
        rstd[r:r + n] = 1.0 / np.sqrt(np.mean(x.astype("float64") ** 2, axis=1) + 1e-6)
    d[rows // 2 + 1, cols // 3] = np.nan
    d[rows - 3, cols - 5] = np.inf
    d.attrs["description"] = "token embedding"
    return rstd


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--rows", type=int, default=32768)
    p.add_argument("--cols", type=int, default=4096)
    p.add_argument("--groups", type=int, default=3000)
    a = p.parse_args()
    rng = np.random.default_rng(15)
    with h5py.File(a.out, "w") as f:
        f.attrs["framework"] = "synthetic checkpoint (opscope scripts/make_big_checkpoint.py)"
        rstd = write_embedding(f, "model/embed_tokens/weight", a.rows, a.cols, rng)
        f["model/norm/rstd"] = rstd  # 1/rms of each embedding row: RmsNormGrad's rstd
        f["model/norm/weight"] = (1.0 + 0.1 * rng.standard_normal(a.cols)).astype("float32")
        f["model/layers/0/mlp/up_proj/weight"] = rng.standard_normal((256, 128)).astype("float16")
        f["model/layers/0/self_attn/q_proj/bias"] = rng.standard_normal(128).astype("float16")
        f["model/layers/1/mlp/down_proj/weight"] = rng.standard_normal((128, 256)).astype("float16")
        opt = f.create_group("optimizer/state")
        for i in range(a.groups):
            g = opt.create_group(str(i))
            g["step"] = np.int64(i)
            g["exp_avg"] = rng.standard_normal(4).astype("float32")
            g.attrs["param"] = "param_%d" % i
        f["meta/vocab"] = np.array([b"<pad>", b"<s>", b"</s>", b"hello"], dtype=h5py.string_dtype())
        f["meta/config"] = "{\"hidden_size\": %d}" % a.cols
        pair = np.dtype([("lr", "f8"), ("epoch", "i4")])
        f["meta/schedule"] = np.array([(1e-3, 0), (5e-4, 1)], dtype=pair)
        f["links/embedding"] = h5py.SoftLink("/model/embed_tokens/weight")
        # A case binding the embedding as dy and x of RmsNormGrad through soft links (nothing
        # copied), so `opscope --screenshot FILE --case /cases/embedding_rms_norm_grad` shows it.
        case = f.create_group("cases/embedding_rms_norm_grad")
        case.attrs["op"] = "aclnnRmsNormGrad"
        case.attrs["description"] = "the [%d, %d] embedding as dy and x" % (a.rows, a.cols)
        for name, target in (("dy", "model/embed_tokens/weight"), ("x", "model/embed_tokens/weight"),
                             ("rstd", "model/norm/rstd"), ("gamma", "model/norm/weight")):
            case["inputs/" + name] = h5py.SoftLink("/" + target)
    return 0


if __name__ == "__main__":
    sys.exit(main())

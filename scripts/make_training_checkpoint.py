#!/usr/bin/python3
"""A training checkpoint as torch.save writes it, for the debugger's tensor-file picture
(docs/GUI.md): {"model": state_dict, "optimizer": {"state": ..., "param_groups": ...}, "step"},
305 MiB, its [32768, 2048] float32 embedding (256 MiB) big enough to be streamed in row bands,
one NaN in an MLP weight. Seeded, so the picture is reproducible. Needs PyTorch (Debian's
python3-torch); the build and the tests do not.

    /usr/bin/python3 scripts/make_training_checkpoint.py OUT.pt
"""
import os
import sys

import torch


def main(out):
    torch.manual_seed(0)
    model = {
        "embed_tokens.weight": torch.randn(32768, 2048) * 0.02,
        "layers.0.self_attn.q_proj.weight": torch.randn(1024, 2048) * 0.02,
        "layers.0.self_attn.k_proj.weight": torch.randn(1024, 2048) * 0.02,
        "layers.0.mlp.up_proj.weight": torch.randn(4096, 2048) * 0.02,
        "layers.0.input_layernorm.weight": torch.ones(2048),
        "conv.weight": torch.randn(64, 32, 3, 3),
    }
    model["layers.0.mlp.up_proj.weight"][1234, 567] = float("nan")
    optimizer = {"state": {0: {"exp_avg": torch.zeros(32, 2048), "exp_avg_sq": torch.rand(32, 2048)}},
                 "param_groups": [{"lr": 1e-4}]}
    torch.save({"model": model, "optimizer": optimizer, "step": 1000}, out + ".tmp")
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main(sys.argv[1])

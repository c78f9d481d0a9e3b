#!/usr/bin/python3
"""Writes small msprobe-style dumps and reader fixtures under datasets/msprobe/.

msprobe (MindStudio probe) dumps each API call of a PyTorch step on the NPU as dump.json,
stack.json and one torch.save file per tensor (docs/MSPROBE.md). With no NPU here, PyTorch on
the CPU plays the device: gradients are computed in float64 from the stored (rounded) inputs
and rounded once to the call's dtype, i.e. a perfect device, except where a fixture says
otherwise. The device runs torch_npu's defaults on Atlas A2: a float32 convolution multiplies HF32
operands (torch_npu.npu.conv.allow_hf32 = True), see hf32(). Layout:

    dump_l1/step0/rank0/   L1: conv1d/2d/3d, conv_transpose2d, group_norm, npu_rms_norm,
                           grid_sample; positional and keyword arguments, defaults, fp32/fp16/
                           bf16, padding='same'/'valid'; a statistics-only entry, unrelated APIs
                           (relu, linear, add), a deliberately wrong device gradient
                           (Functional.conv2d.4: gradWeight), a truncated .pt
                           (Functional.conv2d.5), a missing file (Functional.group_norm.2) and a
                           5-D grid_sample
    dump_l1/step0/rank1/   one more rank (a group_norm), its tensors saved as torch_npu saves them
    dump_l0/step0/rank0/   L0: Conv2d and GroupNorm modules with parameters and parameters_grad
    dump_mix/step0/rank0/  mix: modules and the Functional calls they ran (construct.json), one
                           call at the top level, one module whose call was not dumped
    dump_aten/step0/rank0/ Aten backward ops (convolution_backward, native_group_norm_backward,
                           grid_sampler_2d_backward) as torch.ops.aten callers dump them: no
                           backward entry, the outputs are the gradients; output masks, fp16/bf16,
                           transposed, an unrelated Aten op, a mode out of range, a wrong gradient
    dump_npu_conv/step0/rank0/  torch_npu's npu_conv2d/3d, npu_convolution, npu_conv_transpose2d and
                           npu_convolution_transpose, every argument positional
    readers/               .pt (zip, legacy, saved on an NPU) and .npy/.npz files of every dtype (contiguous, strided views,
                           storage offsets, Fortran order, big-endian, format versions 1-3),
                           .safetensors checkpoints, and each tensor's values as raw C-order
                           little-endian bytes written by numpy
                           (manifest.txt: file key dtype shape bytes-file)

    /usr/bin/python3 datasets/msprobe/generate_msprobe_dumps.py            # the fixtures
    /usr/bin/python3 datasets/msprobe/generate_msprobe_dumps.py --only dump_aten   # one of them
    /usr/bin/python3 datasets/msprobe/generate_msprobe_dumps.py --bench N OUT
        # a dump of N calls for bench/README.md (not committed)
    /usr/bin/python3 datasets/msprobe/generate_msprobe_dumps.py --bench N OUT --scale 16
        # the same with 16 times the batch: tensors the import compresses

Seeded and reproducible. Building and testing never need PyTorch.
"""

import argparse
import contextlib
import enum
import json
import os
import pickle
import shutil
import struct
import sys
import types
import zipfile
from collections import OrderedDict

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
DT = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


def rng_for(name):
    g = torch.Generator()
    g.manual_seed(sum(ord(c) * (i + 1) for i, c in enumerate(name)) % (2 ** 31))
    return g


def randn(g, shape, dtype, scale=1.0):
    return (torch.randn(shape, generator=g, dtype=torch.float64) * scale).to(dtype)


class DumpWriter:
    """One rank folder: dump.json, stack.json, construct.json, dump_tensor_data/."""

    def __init__(self, folder, level):
        self.folder = folder
        self.data_dir = os.path.join(folder, "dump_tensor_data")
        os.makedirs(self.data_dir, exist_ok=True)
        self.level = level
        self.data = {}
        self.stacks = {}
        self.construct = {}  # node -> parent module's forward (mix level), as msprobe writes it

    def tensor(self, t, data_name, save=True):
        """msprobe's tensor record; the file is written unless save is False (statistics only)."""
        t = t.detach()
        f = t.double()
        rec = {"type": "torch.Tensor", "dtype": str(t.dtype), "shape": list(t.shape),
               "Max": f.max().item() if t.numel() else None, "Min": f.min().item() if t.numel() else None,
               "Mean": f.mean().item() if t.numel() else None, "Norm": f.norm().item() if t.numel() else None,
               "requires_grad": False}
        if save:
            rec["data_name"] = data_name
            torch.save(t.clone().contiguous(), os.path.join(self.data_dir, data_name))
        return rec

    @staticmethod
    def scalar(v):
        if v is None:
            return None
        if isinstance(v, (tuple, list)):
            return [DumpWriter.scalar(x) for x in v]
        return {"type": type(v).__name__, "value": v}

    def value(self, v, data_name, save):
        if isinstance(v, torch.Tensor):
            return self.tensor(v, data_name, save)
        return self.scalar(v)

    def api(self, name, args, kwargs, outputs, grad_outputs, grad_inputs, save=True, backward=True, parent=None):
        """An L1 call: name "Functional.conv2d.0"; grad_inputs follow the positional tensors. At
        the mix level, parent is the forward of the module that ran it ("Module.conv1.Conv2d.forward.0")."""
        fwd = name + ".forward"
        if self.level == "mix":
            self.construct[fwd] = parent
        self.data[fwd] = {
            "input_args": [self.value(a, f"{fwd}.input.{i}.pt", save) for i, a in enumerate(args)],
            "input_kwargs": {k: self.value(v, f"{fwd}.input.{k}.pt", save) for k, v in kwargs.items()},
            "output": [self.value(o, f"{fwd}.output.{i}.pt", save) for i, o in enumerate(outputs)],
        }
        self.stacks[fwd] = [f"File /work/train.py, line {100 + len(self.stacks)}, in forward, \n out = {name}(...)"]
        if backward:
            bwd = name + ".backward"
            self.data[bwd] = {
                "input": [self.value(g, f"{bwd}.input.{i}.pt", save) for i, g in enumerate(grad_outputs)],
                "output": [self.value(g, f"{bwd}.output.{i}.pt", save) for i, g in enumerate(grad_inputs)],
            }

    def module(self, prefix, n, args, params, outputs, grad_outputs, grad_inputs, param_grads):
        """An L0 module call: prefix "Module.conv1.Conv2d"."""
        fwd = f"{prefix}.forward.{n}"
        if self.level == "mix":
            self.construct[fwd] = None  # a module of the model's top level
        self.data[fwd] = {
            "input_args": [self.value(a, f"{fwd}.input.{i}.pt", True) for i, a in enumerate(args)],
            "input_kwargs": {},
            "output": [self.value(o, f"{fwd}.output.{i}.pt", True) for i, o in enumerate(outputs)],
            "parameters": {k: self.value(v, f"{fwd}.parameters.{k}.pt", True) for k, v in params.items()},
        }
        self.stacks[fwd] = [f"File /work/model.py, line {200 + len(self.stacks)}, in forward, \n x = self.{prefix.split('.')[1]}(x)"]
        grads = f"{prefix}.parameters_grad.{n}"
        self.data[grads] = {k: [self.tensor(v, f"{grads}.{k}.pt")] for k, v in param_grads.items()}
        bwd = f"{prefix}.backward.{n}"
        self.data[bwd] = {
            "input": [self.value(g, f"{bwd}.input.{i}.pt", True) for i, g in enumerate(grad_outputs)],
            "output": [self.value(g, f"{bwd}.output.{i}.pt", True) for i, g in enumerate(grad_inputs)],
        }

    def close(self):
        dump = {"task": "tensor", "level": self.level, "framework": "pytorch",
                "dump_data_dir": self.data_dir, "data": self.data}
        with open(os.path.join(self.folder, "dump.json"), "w") as f:
            json.dump(dump, f, indent=1)
        # stack.json as recent msprobe writes it: "index": [[names], [frames]].
        stacks = {str(i): [[k, k.replace(".forward", ".backward")], v] for i, (k, v) in enumerate(self.stacks.items())}
        with open(os.path.join(self.folder, "stack.json"), "w") as f:
            json.dump(stacks, f, indent=1)
        with open(os.path.join(self.folder, "construct.json"), "w") as f:
            json.dump(self.construct, f, indent=1)


def grads64(fn, tensors, grad_out):
    """Gradients of fn at the float64 values of `tensors` (None for a None), given grad_out."""
    leaves = [None if t is None else t.detach().double().requires_grad_(True) for t in tensors]
    out = fn(*leaves)
    if isinstance(out, tuple):
        out = out[0]
    gs = torch.autograd.grad(out, [l for l in leaves if l is not None], grad_out.double(), allow_unused=True)
    it = iter(gs)
    return [None if l is None else next(it) for l in leaves], out


def hf32(t):
    """A float32 tensor as an Atlas A2 cube multiplies it under torch_npu's default
    (torch_npu.npu.conv.allow_hf32 = True: cubeMathType USE_HF32): the low 12 mantissa bits
    rounded away, ties to even. Other dtypes reach the cube unchanged."""
    if t is None or t.dtype != torch.float32:
        return t
    b = t.contiguous().view(torch.int32).numpy().astype(np.int64)
    b = ((b + 0x7FF + ((b >> 12) & 1)) >> 12) << 12
    return torch.from_numpy(b.astype(np.uint32).view(np.int32)).view(torch.float32).reshape(t.shape)


def conv_grads(call, x, wt, b, gy):
    """The device's conv gradients: the cube multiplies the operands as hf32() leaves them (float32
    calls run in HF32 by default); gradBias sums gy as given (the vector unit)."""
    (gx, gw, _), y = grads64(call, [hf32(x), hf32(wt), b], hf32(gy))
    gb = None if b is None else gy.double().sum(dim=[0] + list(range(2, gy.dim())))
    return gx, gw, gb, y


def conv_call(w, name, dtype, x_shape, w_shape, bias, fn, args_before, kwargs, bias_positional=True,
              wrong_weight_grad=False, positional_params=()):
    """A conv-family call: fn(x, w, b, **params); args_before are positional params after bias."""
    g = rng_for(name)
    dt = DT[dtype]
    x = randn(g, x_shape, dt)
    wt = randn(g, w_shape, dt, 0.5)
    b = randn(g, (bias,), dt) if bias else None
    params = dict(kwargs)
    call = lambda xx, ww, bb: fn(xx, ww, bb, *positional_params, **params)
    with torch.no_grad():
        y64 = call(x.double(), wt.double(), None if b is None else b.double())
    gy = randn(g, y64.shape, dt)
    gx, gw, gb, y = conv_grads(call, x, wt, b, gy)
    gx, gw = gx.to(dt), gw.to(dt)
    if wrong_weight_grad:
        gw = gw.clone()
        gw.view(-1)[3] += 0.25 * (gw.abs().max() + 1)   # one element off: what a broken kernel does
    args = [x, wt]
    grads = [gx, gw]
    kw = {}
    if bias_positional:
        args.append(b)
        if b is not None:
            grads.append(gb.to(dt))
    else:
        kw["bias"] = b
    args += list(positional_params)
    kw.update(kwargs)
    return args, kw, [y.detach().to(dt)], [gy], grads


def group_norm_call(name, dtype, shape, groups, affine, eps, eps_positional):
    g = rng_for(name)
    dt = DT[dtype]
    C = shape[1]
    x = randn(g, shape, dt, 2.0) + 0.5
    w = randn(g, (C,), dt, 0.3).abs().add(0.5).to(dt) if affine else None
    b = randn(g, (C,), dt, 0.2) if affine else None
    call = lambda xx, ww, bb: F.group_norm(xx, groups, ww, bb, eps)
    with torch.no_grad():
        y = call(x.double(), None if w is None else w.double(), None if b is None else b.double())
    gy = randn(g, y.shape, dt)
    # The device's backward uses the statistics its forward saved: per (n, group) in float32,
    # held in the input's dtype (what the importer recomputes).
    N, HxW = shape[0], int(np.prod(shape[2:]))
    xg = x.double().reshape(N, groups, -1)
    mean = xg.mean(-1).float().to(dt).double()
    rstd = torch.rsqrt(xg.var(-1, unbiased=False) + eps).float().to(dt).double()
    gx, gw, gb = torch.ops.aten.native_group_norm_backward(
        gy.double(), x.double(), mean, rstd, None if w is None else w.double(), N, C, HxW, groups,
        [True, affine, affine])
    grads = [gx, gw, gb]
    args = [x, groups] + ([w, b] if affine else [])
    kwargs = {}
    if eps_positional:
        if not affine:
            args += [None, None]
        args.append(eps)
    elif eps != 1e-5:
        kwargs["eps"] = eps
    grad_list = [grads[0].to(dt)] + ([grads[1].to(dt), grads[2].to(dt)] if affine else [])
    return args, kwargs, [y.detach().to(dt)], [gy], grad_list


def rms_norm_call(name, dtype, shape, gamma_dims, eps=1e-6):
    g = rng_for(name)
    dt = DT[dtype]
    x = randn(g, shape, dt)
    gamma = randn(g, shape[-gamma_dims:], dt, 0.3).add(1.0).to(dt)
    dims = tuple(range(len(shape) - gamma_dims, len(shape)))

    def rms(xx, gg):
        r = torch.rsqrt(xx.pow(2).mean(dims, keepdim=True) + eps)
        return xx * r * gg

    with torch.no_grad():
        rstd = torch.rsqrt(x.double().pow(2).mean(dims, keepdim=True) + eps).float()
    gy = randn(g, shape, dt)
    (gx, gg), y = grads64(rms, [x, gamma], gy)
    return [x, gamma], {}, [y.detach().to(dt), rstd], [gy, None], [gx.to(dt), gg.to(dt)]


def grid_sample_call(name, dtype, in_shape, out_hw, kwargs, positional=()):
    g = rng_for(name)
    dt = DT[dtype]
    N = in_shape[0]
    x = randn(g, in_shape, dt)
    grid = (torch.rand((N,) + tuple(out_hw) + (len(in_shape) - 2,), generator=g, dtype=torch.float64) * 1.8 - 0.9).to(dt)
    call = lambda xx, gg: F.grid_sample(xx, gg, *positional, **kwargs)
    with torch.no_grad():
        y64 = call(x.double(), grid.double())
    gy = randn(g, y64.shape, dt)
    (gx, ggrid), y = grads64(call, [x, grid], gy)
    return [x, grid] + list(positional), dict(kwargs), [y.detach().to(dt)], [gy], [gx.to(dt), ggrid.to(dt)]


def write_l1(root):
    w = DumpWriter(os.path.join(root, "step0", "rank0"), "L1")
    # Convolutions: positional, keyword, defaults, padding strings, transposed, fp16/bf16.
    w.api("Functional.conv2d.0", *conv_call(w, "c0", "fp32", (2, 4, 7, 6), (6, 4, 3, 3), 6, F.conv2d, (),
                                             {}, positional_params=(1, 1)))
    w.api("Functional.conv2d.1", *conv_call(w, "c1", "fp32", (2, 4, 9, 8), (6, 2, 3, 2), 0, F.conv2d, (),
                                             {"stride": (2, 1), "padding": (1, 0), "dilation": (1, 2), "groups": 2}))
    w.api("Functional.conv2d.2", *conv_call(w, "c2", "fp32", (1, 3, 8, 7), (4, 3, 4, 3), 4, F.conv2d, (),
                                             {"padding": "same"}))
    w.api("Functional.conv1d.0", *conv_call(w, "c3", "fp16", (2, 3, 12), (5, 3, 3), 5, F.conv1d, (),
                                             {"padding": "valid"}))
    w.api("Torch.conv3d.0", *conv_call(w, "c4", "bf16", (1, 2, 5, 6, 5), (3, 2, 2, 3, 2), 3, torch.conv3d, (),
                                        {"stride": (1, 2, 1)}))
    w.api("Functional.conv_transpose2d.0", *conv_call(w, "c5", "fp32", (2, 4, 5, 4), (4, 3, 3, 3), 3,
                                                       F.conv_transpose2d, (), {},
                                                       positional_params=(2, 1, 1)))
    # Unrelated APIs, skipped silently.
    g = rng_for("unrelated")
    a = randn(g, (4, 5), torch.float32)
    w.api("Functional.relu.0", [a], {}, [a.relu()], [a], [a])
    lw = randn(g, (3, 5), torch.float32)
    w.api("Functional.linear.0", [a, lw], {}, [a @ lw.t()], [randn(g, (4, 3), torch.float32)], [a, lw])
    w.api("Tensor.add.0", [a, a], {}, [a + a], [a], [a, a])
    # GroupNorm: keyword eps, positional eps with no affine, bf16 through torch.group_norm.
    w.api("Functional.group_norm.0", *group_norm_call("g0", "fp32", (2, 6, 4, 3), 3, True, 1e-5, False))
    w.api("Functional.group_norm.1", *group_norm_call("g1", "fp16", (3, 4, 10), 2, False, 1e-6, True))
    w.api("Torch.group_norm.0", *group_norm_call("g2", "bf16", (2, 8, 3, 3), 4, True, 1e-5, False))
    # RmsNorm (torch_npu): fp32 with 1-D gamma, fp16 with 2-D gamma.
    w.api("NPU.npu_rms_norm.0", *rms_norm_call("r0", "fp32", (3, 4, 16), 1))
    w.api("NPU.npu_rms_norm.1", *rms_norm_call("r1", "fp16", (4, 3, 8), 2))
    # grid_sample: defaults; keyword mode/padding/align; positional; a 5-D one (skipped).
    w.api("Functional.grid_sample.0", *grid_sample_call("s0", "fp32", (2, 3, 6, 5), (4, 3), {"align_corners": False}))
    w.api("Functional.grid_sample.1", *grid_sample_call("s1", "fp32", (1, 2, 5, 7), (3, 4),
                                                        {"mode": "bicubic", "padding_mode": "border", "align_corners": True}))
    w.api("Functional.grid_sample.2", *grid_sample_call("s2", "fp16", (1, 2, 6, 6), (5, 5), {},
                                                        positional=("nearest", "reflection", False)))
    w.api("Functional.grid_sample.3", *grid_sample_call("s3", "fp32", (1, 2, 3, 4, 3), (2, 2, 2), {"align_corners": False}))
    # A statistics-only entry, a wrong device gradient, a truncated file, a missing file.
    w.api("Functional.conv2d.3", *conv_call(w, "c6", "fp32", (1, 2, 5, 5), (2, 2, 3, 3), 0, F.conv2d, (), {}),
          save=False)
    w.api("Functional.conv2d.4", *conv_call(w, "c7", "fp32", (2, 3, 6, 6), (4, 3, 3, 3), 4, F.conv2d, (),
                                             {"padding": 1}, wrong_weight_grad=True))
    w.api("Functional.conv2d.5", *conv_call(w, "c8", "fp32", (1, 2, 5, 5), (2, 2, 3, 3), 2, F.conv2d, (), {}))
    path = os.path.join(w.data_dir, "Functional.conv2d.5.forward.input.1.pt")
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[: len(data) // 2])
    w.api("Functional.group_norm.2", *group_norm_call("g3", "fp32", (2, 4, 5), 2, True, 1e-5, False))
    os.remove(os.path.join(w.data_dir, "Functional.group_norm.2.forward.input.0.pt"))
    w.close()

    # Rank 1's tensors are saved as on an NPU (torch_npu's _rebuild_npu_tensor), as a real dump's are.
    w1 = DumpWriter(os.path.join(root, "step0", "rank1"), "L1")
    with npu_style_save():
        w1.api("Functional.group_norm.0", *group_norm_call("g4", "fp32", (2, 4, 6), 2, True, 1e-5, False))
    w1.close()


def write_l0(root):
    w = DumpWriter(os.path.join(root, "step0", "rank0"), "L0")
    g = rng_for("l0")
    conv = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1).double()
    with torch.no_grad():
        conv.weight.copy_(randn(g, conv.weight.shape, torch.float64, 0.5))
        conv.bias.copy_(randn(g, conv.bias.shape, torch.float64))
    f = lambda t: t.detach().float()
    x, cw, cb = randn(g, (2, 3, 8, 7), torch.float32), f(conv.weight), f(conv.bias)
    with torch.no_grad():
        y_shape = conv(x.double()).shape
    gy = randn(g, y_shape, torch.float32)
    gx, gw, gb, y = conv_grads(lambda xx, ww, bb: F.conv2d(xx, ww, bb, stride=2, padding=1), x, cw, cb, gy)
    w.module("Module.conv1.Conv2d", 0, [x], {"weight": cw, "bias": cb}, [f(y)], [gy],
             [f(gx)], {"weight": f(gw), "bias": f(gb)})
    gn = torch.nn.GroupNorm(4, 8).double()
    with torch.no_grad():
        gn.weight.copy_(randn(g, (8,), torch.float64, 0.3).abs() + 0.5)
        gn.bias.copy_(randn(g, (8,), torch.float64, 0.2))
    x2 = (randn(g, (2, 8, 3, 4), torch.float32).double() * 2 + 0.5).requires_grad_(True)
    y2 = gn(x2)
    gy2 = randn(g, y2.shape, torch.float32).double()
    gx2, gw2, gb2 = torch.autograd.grad(y2, [x2, gn.weight, gn.bias], gy2)
    w.module("Module.gn.GroupNorm", 0, [f(x2)], {"weight": f(gn.weight), "bias": f(gn.bias)}, [f(y2)], [f(gy2)],
             [f(gx2)], {"weight": f(gw2), "bias": f(gb2)})
    r = randn(g, (2, 4), torch.float32)
    w.module("Module.act.ReLU", 0, [r], {}, [r.relu()], [r], [r], {})
    w.close()


def write_mix(root):
    """A mix-level dump: a Conv2d and a GroupNorm module and the Functional call each one's forward
    ran (construct.json names the module as the call's parent: one computation dumped twice), a
    Functional.conv2d at the top level, and a Conv2d module whose call was not dumped."""
    w = DumpWriter(os.path.join(root, "step0", "rank0"), "mix")

    def module_and_call(prefix, api, call, params):
        args, kwargs, outputs, grad_outputs, grads = call
        w.api(api, args, kwargs, outputs, grad_outputs, grads, parent=f"{prefix}.forward.0")
        w.module(prefix, 0, [args[0]], {k: args[i] for k, i in params.items()}, outputs, grad_outputs, [grads[0]],
                 {k: grads[j] for j, k in enumerate(params, start=1)})

    same = ((1, 1), (1, 1), (1, 1), 1)  # Conv2d's F.conv2d(input, weight, bias, stride, padding, dilation, groups)
    module_and_call("Module.conv1.Conv2d", "Functional.conv2d.0",
                    conv_call(w, "mix_c1", "fp32", (2, 3, 6, 6), (4, 3, 3, 3), 4, F.conv2d, (), {}, positional_params=same),
                    {"weight": 1, "bias": 2})
    module_and_call("Module.gn.GroupNorm", "Functional.group_norm.0",
                    group_norm_call("mix_gn", "fp32", (2, 4, 6, 6), 2, True, 1e-5, True), {"weight": 2, "bias": 3})
    w.api("Functional.conv2d.1",
          *conv_call(w, "mix_c2", "fp32", (2, 4, 6, 6), (4, 4, 1, 1), 0, F.conv2d, (), {}))
    args, _, outputs, grad_outputs, grads = conv_call(w, "mix_c3", "fp32", (2, 4, 5, 5), (2, 4, 3, 3), 2, F.conv2d,
                                                      (), {}, positional_params=same)
    w.module("Module.conv3.Conv2d", 0, [args[0]], {"weight": args[1], "bias": args[2]}, outputs, grad_outputs,
             [grads[0]], {"weight": grads[1], "bias": grads[2]})
    w.close()


def aten_conv_call(name, dtype, x_shape, w_shape, stride, padding, dilation, groups, mask, bias_sizes=True,
                   transposed=False, output_padding=None):
    """aten::convolution_backward as a custom autograd Function calls it: the device's gradients
    from HF32 operands (see conv_grads), rounded once; None where output_mask leaves one out."""
    g = rng_for(name)
    dt = DT[dtype]
    x = randn(g, x_shape, dt)
    wt = randn(g, w_shape, dt, 0.5)
    spatial = len(x_shape) - 2
    output_padding = output_padding or [0] * spatial
    cout = w_shape[1] * groups if transposed else w_shape[0]
    with torch.no_grad():
        y = torch.ops.aten.convolution(x.double(), wt.double(), None, stride, padding, dilation, transposed,
                                       output_padding, groups)
    gy = randn(g, y.shape, dt)
    gx, gw, _ = torch.ops.aten.convolution_backward(hf32(gy).double(), hf32(x).double(), hf32(wt).double(), [cout],
                                                     stride, padding, dilation, transposed, output_padding, groups,
                                                     [True, True, False])
    gb = gy.double().sum(dim=[0] + list(range(2, gy.dim())))
    outs = [t.to(dt) if m else None for t, m in zip((gx, gw, gb), mask)]
    args = [gy, x, wt, [cout] if bias_sizes else None, stride, padding, dilation, transposed, output_padding, groups,
            mask]
    return args, {}, outs


def aten_group_norm_call(name, dtype, shape, groups, affine, mask):
    """aten::native_group_norm_backward with the statistics the device's forward saved (float32,
    held in the input's dtype)."""
    g = rng_for(name)
    dt = DT[dtype]
    N, C, HxW = shape[0], shape[1], int(np.prod(shape[2:]))
    x = randn(g, shape, dt, 2.0) + 0.5
    w = randn(g, (C,), dt, 0.3).abs().add(0.5).to(dt) if affine else None
    xg = x.double().reshape(N, groups, -1)
    mean = xg.mean(-1).float().to(dt)
    rstd = torch.rsqrt(xg.var(-1, unbiased=False) + 1e-5).float().to(dt)
    gy = randn(g, shape, dt)
    grads = torch.ops.aten.native_group_norm_backward(gy.double(), x.double(), mean.double(), rstd.double(),
                                                      None if w is None else w.double(), N, C, HxW, groups,
                                                      [True, affine, affine])
    outs = [t.to(dt) if m and t is not None else None for t, m in zip(grads, mask)]
    return [gy, x, mean, rstd, w, N, C, HxW, groups, mask], {}, outs


def aten_grid_sampler_call(name, dtype, in_shape, out_hw, mode, padding_mode, align_corners, mask,
                           wrong_grid_grad=False):
    """aten::grid_sampler_2d_backward; the modes are PyTorch's enums (0 bilinear / zeros, ...)."""
    g = rng_for(name)
    dt = DT[dtype]
    N = in_shape[0]
    x = randn(g, in_shape, dt)
    grid = (torch.rand((N,) + tuple(out_hw) + (2,), generator=g, dtype=torch.float64) * 1.8 - 0.9).to(dt)
    gy = randn(g, (N, in_shape[1]) + tuple(out_hw), dt)
    gx, ggrid = torch.ops.aten.grid_sampler_2d_backward(gy.double(), x.double(), grid.double(), mode, padding_mode,
                                                        align_corners, [True, True])
    ggrid = ggrid.to(dt)
    if wrong_grid_grad:
        ggrid = ggrid.clone()
        ggrid.view(-1)[5] += 0.25 * (ggrid.abs().max() + 1)   # one element off
    outs = [gx.to(dt) if mask[0] else None, ggrid if mask[1] else None]
    return [gy, x, grid, mode, padding_mode, align_corners, mask], {}, outs


def write_aten(root):
    """Aten-level calls: the backward ops a custom autograd Function (or a compiled graph) calls
    through torch.ops.aten, which msprobe dumps as "Aten.<op>.default.<n>" with no backward entry:
    the call is the backward. Also an Aten op OpScope does not run (skipped silently), one whose
    interpolation mode is out of range, and one deliberately wrong grid gradient."""
    w = DumpWriter(os.path.join(root, "step0", "rank0"), "L1")

    def aten(name, call):
        args, kwargs, outs = call
        w.api(name, args, kwargs, outs, [], [], backward=False)

    aten("Aten.convolution_backward.default.0",
         aten_conv_call("a0", "fp32", (2, 4, 7, 6), (6, 4, 3, 3), [1, 1], [1, 1], [1, 1], 1, [True, True, True]))
    aten("Aten.convolution_backward.default.1",
         aten_conv_call("a1", "fp16", (2, 4, 9, 8), (6, 2, 3, 2), [2, 1], [1, 0], [1, 2], 2, [False, True, False],
                        bias_sizes=False))
    aten("Aten.convolution_backward.default.2",
         aten_conv_call("a2", "fp32", (2, 4, 5, 4), (4, 3, 3, 3), [2, 2], [1, 1], [1, 1], 1, [True, True, True],
                        transposed=True, output_padding=[1, 1]))
    aten("Aten.convolution_backward.default.3",
         aten_conv_call("a3", "bf16", (2, 3, 12), (5, 3, 3), [1], [2], [2], 1, [True, True, False]))
    aten("Aten.native_group_norm_backward.default.0",
         aten_group_norm_call("an0", "fp32", (2, 6, 4, 3), 3, True, [True, True, True]))
    aten("Aten.native_group_norm_backward.default.1",
         aten_group_norm_call("an1", "bf16", (3, 4, 10), 2, False, [True, False, False]))
    aten("Aten.grid_sampler_2d_backward.default.0",
         aten_grid_sampler_call("as0", "fp32", (2, 3, 6, 5), (4, 3), 0, 0, False, [True, True]))
    aten("Aten.grid_sampler_2d_backward.default.1",
         aten_grid_sampler_call("as1", "fp32", (1, 2, 5, 7), (3, 4), 2, 1, True, [False, True],
                                wrong_grid_grad=True))
    aten("Aten.grid_sampler_2d_backward.default.2",
         aten_grid_sampler_call("as2", "fp32", (1, 2, 4, 4), (2, 2), 7, 0, False, [True, True]))
    r = randn(rng_for("aten_relu"), (2, 4), torch.float32)
    w.api("Aten.threshold_backward.default.0", [r, r, 0.0], {}, [r.clamp(min=0)], [], [], backward=False)
    w.close()


def write_npu_conv(root):
    """torch_npu's own convolutions at L1, as "NPU.npu_conv2d.0": every argument positional (torch_npu
    gives them no defaults); the transposed ones take (padding, output_padding, stride, dilation,
    groups) in that order."""
    w = DumpWriter(os.path.join(root, "step0", "rank0"), "L1")

    def transposed(dims):
        conv = F.conv_transpose2d if dims == 2 else F.conv_transpose3d
        return lambda x, wt, b, pad, opad, st, dil, gr: conv(x, wt, b, st, pad, opad, gr, dil)

    w.api("NPU.npu_conv2d.0", *conv_call(w, "n0", "fp32", (2, 4, 9, 8), (6, 4, 3, 3), 6, F.conv2d, (), {},
                                         positional_params=([2, 2], [1, 1], [1, 1], 1)))
    w.api("NPU.npu_convolution.0", *conv_call(w, "n1", "fp16", (2, 4, 7, 6), (6, 2, 3, 2), 0, F.conv2d, (), {},
                                              positional_params=([1, 1], [1, 0], [2, 1], 2)))
    w.api("NPU.npu_conv3d.0", *conv_call(w, "n2", "bf16", (1, 2, 5, 6, 5), (3, 2, 2, 3, 2), 3, F.conv3d, (), {},
                                         positional_params=([1, 2, 1], [0, 1, 0], [1, 1, 1], 1)))
    w.api("NPU.npu_conv_transpose2d.0", *conv_call(w, "n3", "fp32", (2, 4, 5, 4), (4, 3, 3, 3), 3, transposed(2), (),
                                                   {}, positional_params=([1, 1], [1, 0], [2, 2], [1, 1], 1)))
    w.api("NPU.npu_convolution_transpose.0",
          *conv_call(w, "n4", "fp32", (1, 4, 3, 4, 3), (4, 1, 2, 2, 2), 2, transposed(3), (), {},
                     positional_params=([0, 0, 0], [0, 1, 0], [1, 2, 1], [1, 1, 1], 2)))
    w.close()


# ---- reader fixtures ----------------------------------------------------------------------

def raw_bytes(t):
    """Values in C order, little-endian, as numpy writes them (bfloat16 as its 16 bits)."""
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().astype("<i2").tobytes()
    return t.numpy().astype(t.numpy().dtype.newbyteorder("<")).tobytes()


SAFETENSORS_DTYPES = {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
                      torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
                      torch.uint8: "U8", torch.bool: "BOOL"}


def save_safetensors(path, tensors, metadata=None):
    """A .safetensors file as Hugging Face's format describes it (the safetensors package is not
    a Debian package): an 8-byte little-endian header length, the JSON header padded with spaces
    to 8 bytes, then each tensor's bytes (little-endian, C order) one after another."""
    header, data = {}, b""
    if metadata:
        header["__metadata__"] = metadata
    for name, t in tensors.items():
        b = raw_bytes(t)
        header[name] = {"dtype": SAFETENSORS_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [len(data), len(data) + len(b)]}
        data += b
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def write_safetensors_readers(root, base, record):
    """A checkpoint of several dtypes (a scalar and an empty tensor among them), a file of one
    tensor, and damaged ones."""
    model = {"embed.weight": base[:2].float(), "norm.weight": base[0, 0].to(torch.bfloat16),
             "head.bias": base[1, 1].half(), "step": torch.tensor(7, dtype=torch.int64),
             "mask": base[3] > 0, "ids": (base[2] * 9).to(torch.int8), "pixels": (base[2].abs() * 40).to(torch.uint8),
             "counts": (base[3] * 1000).to(torch.int16), "empty": base[:, 0:0].double()}
    save_safetensors(os.path.join(root, "model.safetensors"), model, {"format": "pt"})
    for key, t in model.items():
        record("model.safetensors", key, str(t.dtype).replace("torch.", ""), list(t.shape), raw_bytes(t))
    save_safetensors(os.path.join(root, "single.safetensors"), {"x": base[0].float()})
    record("single.safetensors", None, "float32", [6, 5], raw_bytes(base[0].float()))
    with open(os.path.join(root, "single.safetensors"), "rb") as f:
        single = f.read()
    with open(os.path.join(root, "bad_truncated.safetensors"), "wb") as f:
        f.write(single[:-8])
    with open(os.path.join(root, "bad_header.safetensors"), "wb") as f:  # claims a 1 TB header
        f.write(struct.pack("<Q", 1 << 40) + single[8:])
    # A checkpoint sharded over two files, as transformers' save_pretrained writes a large one.
    shards = {"sharded-00001-of-00002.safetensors": {"layers.0.weight": base[0].float(), "layers.0.norm": base[1, 0].half()},
              "sharded-00002-of-00002.safetensors": {"layers.1.weight": base[2].to(torch.bfloat16)}}
    weight_map = {}
    for shard, tensors in shards.items():
        save_safetensors(os.path.join(root, shard), tensors, {"format": "pt"})
        for key, t in tensors.items():
            weight_map[key] = shard
            record("sharded.safetensors.index.json", key, str(t.dtype).replace("torch.", ""), list(t.shape),
                   raw_bytes(t))
    with open(os.path.join(root, "sharded.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f, indent=2)
    with open(os.path.join(root, "bad_escape.safetensors.index.json"), "w") as f:  # a shard outside
        json.dump({"weight_map": {"x": "../readers/single.safetensors"}}, f)


@contextlib.contextmanager
def npu_style_save():
    """torch.save as it runs with torch_npu on an Ascend NPU, where msprobe dumps every tensor:
    torch_npu's Tensor.__reduce_ex__ pickles torch_npu.utils.storage._rebuild_npu_tensor(storage,
    offset, size, stride, requires_grad, hooks, npu format) over the tensor's .cpu() copy, the
    format a torch_npu.npu._format.Format (an IntEnum). With no NPU here, stand-in modules of those
    names let PyTorch's own pickler write the same opcodes for a CPU tensor."""
    def _rebuild_npu_tensor(storage, storage_offset, size, stride, requires_grad, backward_hooks, npu_format):
        return torch._utils._rebuild_tensor(storage, storage_offset, size, stride)

    class Format(enum.IntEnum):
        ND = 2
        FRACTAL_NZ = 29

    modules = {name: types.ModuleType(name) for name in
               ("torch_npu", "torch_npu.utils", "torch_npu.utils.storage", "torch_npu.npu", "torch_npu.npu._format")}
    _rebuild_npu_tensor.__module__, _rebuild_npu_tensor.__qualname__ = "torch_npu.utils.storage", "_rebuild_npu_tensor"
    modules["torch_npu.utils.storage"]._rebuild_npu_tensor = _rebuild_npu_tensor
    Format.__module__, Format.__qualname__ = "torch_npu.npu._format", "Format"
    modules["torch_npu.npu._format"].Format = Format

    def reduce_ex(self, proto):
        fmt = Format.FRACTAL_NZ if self.dim() >= 2 else Format.ND
        return _rebuild_npu_tensor, (self.storage(), self.storage_offset(), tuple(self.size()), self.stride(),
                                     self.requires_grad, OrderedDict(), fmt)

    saved = torch.Tensor.__reduce_ex__
    sys.modules.update(modules)
    torch.Tensor.__reduce_ex__ = reduce_ex
    try:
        yield
    finally:
        torch.Tensor.__reduce_ex__ = saved
        for name in modules:
            del sys.modules[name]


@contextlib.contextmanager
def torch2_tensor_state_save():
    """torch.save as PyTorch 2.x writes a tensor that carries Python attributes (Megatron's
    tensor.sequence_parallel = True, ...): torch._tensor._rebuild_from_type_v2(rebuild, torch.Tensor,
    its arguments, the attributes). PyTorch 1.13 drops such attributes; its own pickler writes the
    2.x call when Tensor.__reduce_ex__ returns it."""
    def reduce_ex(self, proto):
        if not self.__dict__:  # no attributes: the plain rebuild, as 2.x writes it
            return self._reduce_ex_internal(proto)
        func, args = self._reduce_ex_internal(proto)
        return torch._tensor._rebuild_from_type_v2, (func, torch.Tensor, args, dict(self.__dict__))

    saved = torch.Tensor.__reduce_ex__
    torch.Tensor.__reduce_ex__ = reduce_ex
    try:
        yield
    finally:
        torch.Tensor.__reduce_ex__ = saved


def write_readers(root):
    os.makedirs(root, exist_ok=True)
    lines = []
    g = torch.Generator().manual_seed(7)

    def record(file, key, dtype, shape, data):
        name = (file.replace(".", "_") + ("_" + key if key else "")).replace("/", "_") + ".bin"
        with open(os.path.join(root, name), "wb") as f:
            f.write(data)
        lines.append(f"{file} {key or '-'} {dtype} {','.join(map(str, shape)) or '-'} {name}")

    base = torch.randn((4, 6, 5), generator=g, dtype=torch.float64) * 3
    torch_dtypes = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
                    "float64": torch.float64, "int64": torch.int64, "int32": torch.int32, "bool": torch.bool}
    for name, dt in torch_dtypes.items():
        full = (base > 0) if dt == torch.bool else base.to(dt)
        views = {"contiguous": full,
                 "strided": full[1:, ::2, 1:4].transpose(0, 2),      # offset, steps, permuted
                 "scalar": full[2, 3, 1],                              # rank 0 with an offset
                 "empty": full[:, 0:0]}
        for vname, v in views.items():
            file = f"{name}_{vname}.pt"
            torch.save(v, os.path.join(root, file))
            record(file, None, name, list(v.shape), raw_bytes(v))
            if vname in ("contiguous", "scalar"):  # msprobe saves tensor.clone().contiguous()
                file = f"npu_{name}_{vname}.pt"
                with npu_style_save():
                    torch.save(v.clone().contiguous(), os.path.join(root, file))
                record(file, None, name, list(v.shape), raw_bytes(v))
            # The legacy layout (_use_new_zipfile_serialization=False, and every file before 1.6).
            file = f"legacy_{name}_{vname}.pt"
            torch.save(v, os.path.join(root, file), _use_new_zipfile_serialization=False)
            record(file, None, name, list(v.shape), raw_bytes(v))
    torch.save({"weight": base[:2].float(), "bias": base[0, 0].half()}, os.path.join(root, "dict.pt"))
    record("dict.pt", "weight", "float32", [2, 6, 5], raw_bytes(base[:2].float()))
    record("dict.pt", "bias", "float16", [5], raw_bytes(base[0, 0].half()))
    # A training checkpoint: the state dict nested in a dict beside the optimizer's state.
    conv, bn, avg = base[:2, :3].float(), base[0, 0].half(), base[1, :2].float()
    torch.save({"model": {"conv.weight": conv, "bn.bias": bn},
                "optimizer": {"state": {0: {"step": torch.tensor(3.0), "exp_avg": avg}},
                              "param_groups": [{"lr": 0.1, "params": [0]}]},
                "epoch": 3}, os.path.join(root, "checkpoint.pth"))
    for key, t in {"model/conv.weight": conv, "model/bn.bias": bn, "optimizer/state/0/step": torch.tensor(3.0),
                   "optimizer/state/0/exp_avg": avg}.items():
        record("checkpoint.pth", key, str(t.dtype).replace("torch.", ""), list(t.shape), raw_bytes(t))
    # Tensors with Python attributes, as PyTorch 2.x saves them.
    marked = base[1].float()
    marked.sequence_parallel = True
    with torch2_tensor_state_save():
        torch.save({"layer.weight": marked, "layer.bias": base[0, 0].half()}, os.path.join(root, "attributes.pt"))
    record("attributes.pt", "layer.weight", "float32", [6, 5], raw_bytes(marked))
    record("attributes.pt", "layer.bias", "float16", [5], raw_bytes(base[0, 0].half()))
    # The same in the legacy layout, with two views of one storage (tied weights) and a protocol-4
    # pickle, whose FRAME opcodes the header must read through.
    flat = base.float().reshape(-1)
    tied = {"model": {"embed.weight": flat[:60].view(12, 5), "head.weight": flat[:60].view(12, 5).t(),
                      "bn.bias": bn},
            "optimizer": {"state": {0: {"step": torch.tensor(3.0), "exp_avg": avg}}}, "epoch": 3}
    torch.save(tied, os.path.join(root, "legacy_checkpoint.pth"), _use_new_zipfile_serialization=False,
               pickle_protocol=4)
    for key, t in {"model/embed.weight": tied["model"]["embed.weight"], "model/head.weight": tied["model"]["head.weight"],
                   "model/bn.bias": bn, "optimizer/state/0/exp_avg": avg}.items():
        record("legacy_checkpoint.pth", key, str(t.dtype).replace("torch.", ""), list(t.shape), raw_bytes(t))
    # Containers that hold themselves (pickle's memo allows it): each is walked once.
    loop = [base[0, 0].float()]
    loop.append(loop)
    holder = {"a": loop}
    holder["self"] = holder
    torch.save(holder, os.path.join(root, "cycle.pt"))
    record("cycle.pt", "a/0", "float32", [5], raw_bytes(base[0, 0].float()))

    arr = base.numpy()
    np_dtypes = {"float16": np.float16, "float32": np.float32, "float64": np.float64, "int64": np.int64,
                 "int8": np.int8, "uint16": np.uint16, "bool": np.bool_}
    for name, dt in np_dtypes.items():
        a = (arr > 0) if dt is np.bool_ else (arr * 7).astype(dt)
        variants = {"c": a, "fortran": np.asfortranarray(a), "big": a.astype(a.dtype.newbyteorder(">"))}
        for vname, v in variants.items():
            file = f"{name}_{vname}.npy"
            np.save(os.path.join(root, file), v)
            record(file, None, name, list(v.shape), np.ascontiguousarray(v).astype(a.dtype.newbyteorder("<")).tobytes())
    for version in ((2, 0), (3, 0)):
        file = f"float32_v{version[0]}.npy"
        a = arr[:2].astype(np.float32)
        with open(os.path.join(root, file), "wb") as f:
            np.lib.format.write_array(f, a, version=version)
        record(file, None, "float32", list(a.shape), a.astype("<f4").tobytes())
    np.save(os.path.join(root, "scalar.npy"), np.float32(2.5))
    record("scalar.npy", None, "float32", [], np.float32(2.5).astype("<f4").tobytes())
    np.savez(os.path.join(root, "pair.npz"), x=arr[0].astype(np.float32), m=(arr[1] > 0))
    record("pair.npz", "x", "float32", [6, 5], arr[0].astype("<f4").tobytes())
    record("pair.npz", "m", "bool", [6, 5], (arr[1] > 0).tobytes())
    np.savez_compressed(os.path.join(root, "packed.npz"), y=arr.astype(np.float64))
    record("packed.npz", "y", "float64", [4, 6, 5], arr.astype("<f8").tobytes())
    write_safetensors_readers(root, base, record)
    # Damaged files for the error tests.
    with open(os.path.join(root, "float32_contiguous.pt"), "rb") as f:
        pt = f.read()
    with open(os.path.join(root, "bad_truncated.pt"), "wb") as f:
        f.write(pt[: len(pt) - 200])
    with open(os.path.join(root, "bad_not_zip.pt"), "wb") as f:
        f.write(b"\x80\x02this is not a zip archive")
    with open(os.path.join(root, "float32_c.npy"), "rb") as f:
        npy = f.read()
    with open(os.path.join(root, "bad_short.npy"), "wb") as f:
        f.write(npy[:-8])
    with open(os.path.join(root, "bad_header.npy"), "wb") as f:
        f.write(npy[:10] + npy[10:].replace(b"'shape': (", b"'shape': (x", 1))
    # A .pt whose pickle would run a command: the reader must refuse the call, not make it.
    class RunsACommand:
        def __reduce__(self):
            return (os.system, ("echo this must never run",))
    with zipfile.ZipFile(os.path.join(root, "bad_code.pt"), "w") as z:
        z.writestr(zipfile.ZipInfo("bad_code/data.pkl", date_time=(1980, 1, 1, 0, 0, 0)),
                   pickle.dumps(RunsACommand(), protocol=2))
    with open(os.path.join(root, "manifest.txt"), "w") as f:
        f.write("# file key dtype shape bytes: each tensor's values as C-order little-endian bytes (numpy)\n")
        f.write("\n".join(lines) + "\n")


def write_bench(count, out, scale=1):
    """A dump of `count` calls (the four operators in turn) for measuring import and run; `scale`
    multiplies the batch (and the RmsNorm rows), so that scale 16 gives layer-sized tensors of
    32-150 KiB, most above the 64 KiB from which the import compresses them."""
    w = DumpWriter(os.path.join(out, "step0", "rank0"), "L1")
    n = 2 * scale
    makers = [
        lambda i: ("Functional.conv2d", conv_call(w, f"b{i}", "fp32", (n, 8, 12, 12), (8, 8, 3, 3), 8, F.conv2d, (),
                                                   {"padding": 1})),
        lambda i: ("Functional.group_norm", group_norm_call(f"b{i}", "fp32", (n, 16, 8, 8), 4, True, 1e-5, False)),
        lambda i: ("NPU.npu_rms_norm", rms_norm_call(f"b{i}", "fp32", (8 * scale, 64), 1)),
        lambda i: ("Functional.grid_sample", grid_sample_call(f"b{i}", "fp32", (n, 4, 8, 8), (6, 6), {"align_corners": False})),
    ]
    for i in range(count):
        api, call = makers[i % 4](i)
        w.api(f"{api}.{i // 4}", *call)
    w.close()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", nargs=2, metavar=("N", "OUT"), help="write a dump of N calls to OUT instead")
    p.add_argument("--scale", type=int, default=1, help="with --bench: multiply the batch of every call")
    p.add_argument("--only", nargs="+", metavar="FOLDER", help="write only these fixtures (dump_aten, readers, ...)")
    a = p.parse_args()
    torch.manual_seed(0)
    if a.bench:
        write_bench(int(a.bench[0]), a.bench[1], a.scale)
        return
    writers = {"dump_l1": write_l1, "dump_l0": write_l0, "dump_mix": write_mix, "dump_aten": write_aten,
               "dump_npu_conv": write_npu_conv,
               "readers": write_readers}
    for sub, write in writers.items():
        if a.only and sub not in a.only:
            continue
        shutil.rmtree(os.path.join(HERE, sub), ignore_errors=True)
        write(os.path.join(HERE, sub))


if __name__ == "__main__":
    sys.exit(main())

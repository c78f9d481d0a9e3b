#!/usr/bin/python3
"""Writes the bundled case files: datasets/<operator>.h5, one per aclnn operator.

Every case stores its inputs in the case's dtype (float32, float16 or bfloat16), and the
outputs PyTorch computes in float64 from exactly those stored (rounded) values as
`expected/`. Statistics a backward operator takes from its forward pass (GroupNorm's mean and
rstd, RmsNorm's rstd) come from the float64 forward pass over the rounded inputs and are then
stored in the dtype the operator takes them in (cascaded, as the CANN standard asks for
backward norm operators). The layout is datasets/FORMAT.md, "Case files".

Run with Debian's Python, which has python3-torch and python3-h5py:

    /usr/bin/python3 datasets/generate_datasets.py            # all four files
    /usr/bin/python3 datasets/generate_datasets.py --check    # regenerate in memory, compare

Seeded and reproducible: each case draws from its own generator seeded by its name, and no
timestamps are written, so the same torch version writes the same bytes. The files are
committed; building and testing never need PyTorch.
"""

import argparse
import hashlib
import os
import sys
import tempfile

import h5py
import numpy as np
import torch

FORMAT_VERSION = 1
GENERATOR = "datasets/generate_datasets.py"
DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


# ---- writing ------------------------------------------------------------------------------

def to_numpy(t):
    """A tensor as the numpy array stored in HDF5: bfloat16 as raw uint16 bits."""
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.numpy()


def write_tensor(group, name, t):
    data = to_numpy(t)
    # Compress only what is worth it; never record times, so the bytes are reproducible.
    kwargs = {"compression": "gzip", "compression_opts": 4, "shuffle": True} if data.nbytes > 16384 else {}
    ds = group.create_dataset(name, data=data, track_times=False, **kwargs)
    if t.dtype == torch.bfloat16:
        ds.attrs["opscope_dtype"] = "bfloat16"


def write_case(root, path, op, description, params, inputs, expected, expected_note):
    g = root.create_group(path, track_order=False)
    g.attrs["op"] = op
    g.attrs["description"] = description
    for name, value in params.items():
        if isinstance(value, (list, tuple)) and value and all(isinstance(v, bool) for v in value):
            g.attrs[name] = np.array(value, dtype=np.bool_)
        elif isinstance(value, (list, tuple)):
            g.attrs[name] = np.array(value, dtype=np.int64)
        elif isinstance(value, bool):
            g.attrs[name] = np.bool_(value)
        else:
            g.attrs[name] = np.int64(value)
    ins = g.create_group("inputs")
    for name, t in inputs.items():
        if t is not None:
            write_tensor(ins, name, t)
    exp = g.create_group("expected")
    exp.attrs["role"] = "reference"
    exp.attrs["description"] = expected_note
    for name, t in expected.items():
        if t is not None:
            write_tensor(exp, name, t.to(torch.float64))


def text(value):
    """Lists and bools as the CLI prints them: [true, false], not [True, False]."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(text(v) for v in value) + "]"
    return str(value)


def generator_for(name):
    """A torch generator seeded from the case's name (stable across runs and machines)."""
    seed = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little") & ((1 << 63) - 1)
    return torch.Generator().manual_seed(seed)


def rounded(t, dtype):
    """t stored in dtype and read back as float64: the exact values the case holds."""
    return t.to(dtype).to(torch.float64)


def randn(gen, shape, mean=0.0, std=1.0):
    return torch.randn(shape, generator=gen, dtype=torch.float64) * std + mean


def uniform(gen, shape, lo, hi):
    return torch.rand(shape, generator=gen, dtype=torch.float64) * (hi - lo) + lo


# ---- aclnnGroupNormBackward ---------------------------------------------------------------

def group_norm_cases():
    # (name, input shape, group, with gamma, outputMask, dtypes)
    table = [
        ("basic", (2, 8, 16), 2, True, [True, True, True], ["fp32", "fp16", "bf16"]),
        ("odd_sizes", (3, 6, 7), 3, True, [True, True, True], ["fp32", "fp16", "bf16"]),
        ("nchw_4d", (2, 4, 3, 5), 2, True, [True, True, True], ["fp32", "fp16", "bf16"]),
        ("group_eq_c", (2, 4, 6), 4, True, [True, True, True], ["fp32", "fp16"]),
        ("hxw_1", (5, 8, 1), 2, True, [True, True, True], ["fp32", "bf16"]),
        ("group_1", (2, 6, 9), 1, True, [True, True, True], ["fp32", "bf16"]),
        ("no_gamma", (2, 6, 10), 3, False, [True, True, True], ["fp32", "fp16"]),
        ("mask_input_beta", (2, 4, 12), 2, True, [True, False, True], ["fp32"]),
        ("mask_gamma_beta", (3, 8, 5), 4, True, [False, True, True], ["fp32", "bf16"]),
        ("larger", (4, 32, 64), 8, True, [True, True, True], ["fp32"]),
        ("larger", (2, 16, 49), 4, True, [True, True, True], ["fp16", "bf16"]),
    ]
    # Every group holds at least four elements. In a group of one or two the normalized values are
    # fixed (0, or -1 and 1), so the exact gradient is 0 (up to eps) and float32 rounding of the
    # cancelling terms becomes an unbounded relative error: a degenerate case, not a precision test.
    eps = 1e-5
    for name, shape, group, with_gamma, mask, dtypes in table:
        for dn in dtypes:
            dtype = DTYPES[dn]
            path = f"/group_norm_backward/{dn}/{name}"
            gen = generator_for(path)
            n, c = shape[0], shape[1]
            hxw = int(np.prod(shape[2:])) if len(shape) > 2 else 1
            x = rounded(randn(gen, shape, 0.5, 1.5), dtype)
            dy = rounded(randn(gen, shape), dtype)
            gamma = rounded(uniform(gen, (c,), 0.5, 1.5), dtype) if with_gamma else None
            # Forward in float64 over the stored x gives mean and rstd, stored in the case's dtype.
            _, mean, rstd = torch.ops.aten.native_group_norm(x, gamma, None, n, c, hxw, group, eps)
            mean, rstd = rounded(mean, dtype), rounded(rstd, dtype)
            # An absent gamma is a gamma of ones (torch 1.13's kernel fails on weight=None).
            ones = torch.ones(c, dtype=torch.float64)
            dx, dgamma, dbeta = torch.ops.aten.native_group_norm_backward(
                dy, x, mean, rstd, gamma if gamma is not None else ones, n, c, hxw, group, mask)
            params = {"N": n, "C": c, "HxW": hxw, "group": group, "outputMask": mask}
            yield path, "aclnnGroupNormBackward", \
                f"{dn} input {list(shape)}, group {group}" + ("" if with_gamma else ", gamma absent") + \
                f", outputMask {text(mask)}", params, \
                {"gradOut": dy.to(dtype), "input": x.to(dtype), "mean": mean.to(dtype), "rstd": rstd.to(dtype),
                 "gamma": gamma.to(dtype) if gamma is not None else None}, \
                {"gradInput": dx if mask[0] else None, "gradGammaOut": dgamma if mask[1] else None,
                 "gradBetaOut": dbeta if mask[2] else None}, \
                "PyTorch float64 aten::native_group_norm_backward of the stored inputs (mean and rstd from " \
                "aten::native_group_norm in float64, eps 1e-5, rounded to the case dtype)"


# ---- aclnnRmsNormGrad ---------------------------------------------------------------------

def rms_norm_grad_reference(dy, x, rstd, gamma):
    """The page's formulas in float64: rstd and gamma as given."""
    lead = x.dim() - gamma.dim()
    dims = tuple(range(lead, x.dim()))
    r = rstd.reshape(rstd.shape + (1,) * gamma.dim())
    xhat = x * r
    mean = (dy * gamma * xhat).mean(dim=dims, keepdim=True)
    dx = (dy * gamma - xhat * mean) * r
    dgamma = (dy * xhat).sum(dim=tuple(range(lead)))
    return dx, dgamma


def rms_norm_grad_cases():
    # (name, x shape, gamma rank, dtypes with the gamma dtype)
    table = [
        ("basic", (2, 3, 16), 1, [("fp32", "fp32"), ("fp16", "fp16"), ("bf16", "bf16")]),
        ("odd_sizes", (5, 33), 1, [("fp32", "fp32"), ("fp16", "fp16"), ("bf16", "bf16")]),
        ("gamma_2d", (3, 4, 8), 2, [("fp32", "fp32"), ("fp16", "fp16"), ("bf16", "bf16")]),
        ("gamma_fp32", (4, 24), 1, [("fp16", "fp32"), ("bf16", "fp32")]),
        ("one_row", (1, 64), 1, [("fp32", "fp32")]),
        ("larger", (8, 16, 128), 1, [("fp32", "fp32"), ("fp16", "fp16"), ("bf16", "fp32")]),
    ]
    eps = 1e-6
    for name, shape, gamma_rank, combos in table:
        for dn, gn in combos:
            dtype, gdtype = DTYPES[dn], DTYPES[gn]
            path = f"/rms_norm_grad/{dn}/{name}"
            gen = generator_for(path)
            gshape = shape[len(shape) - gamma_rank:]
            x = rounded(randn(gen, shape, 0.2, 1.0), dtype)
            dy = rounded(randn(gen, shape), dtype)
            gamma = rounded(uniform(gen, gshape, 0.5, 1.5), gdtype)
            dims = tuple(range(len(shape) - gamma_rank, len(shape)))
            # Forward in float64 over the stored x; rstd is float32 on every product.
            rstd = rounded(torch.rsqrt((x * x).mean(dim=dims) + eps), torch.float32)
            dx, dgamma = rms_norm_grad_reference(dy, x, rstd, gamma)
            # The formulas against autograd of the float64 forward (with the exact rstd).
            xa = x.clone().requires_grad_(True)
            ga = gamma.clone().requires_grad_(True)
            y = xa * torch.rsqrt((xa * xa).mean(dim=dims, keepdim=True) + eps) * ga
            y.backward(dy)
            exact_dx, _ = rms_norm_grad_reference(dy, x, torch.rsqrt((x * x).mean(dim=dims) + eps), gamma)
            assert torch.allclose(xa.grad, exact_dx, rtol=1e-10, atol=1e-12), path
            assert torch.allclose(ga.grad, dgamma, rtol=1e-6, atol=1e-6), path
            yield path, "aclnnRmsNormGrad", \
                f"{dn} x {list(shape)}, gamma {list(gshape)} {gn}, rstd float32 {list(rstd.shape)}", {}, \
                {"dy": dy.to(dtype), "x": x.to(dtype), "rstd": rstd.to(torch.float32), "gamma": gamma.to(gdtype)}, \
                {"dxOut": dx, "dgammaOut": dgamma}, \
                "PyTorch float64 from the stored inputs: dx = (dy*g - x*rstd*mean(dy*g*x*rstd))*rstd, " \
                "dgamma = sum(dy*x*rstd) (rstd from the float64 forward, eps 1e-6, stored as float32; " \
                "checked against autograd)"


# ---- aclnnGridSampler2DBackward -----------------------------------------------------------

def unnormalize(g, size, align_corners):
    return (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2


def normalize(ix, size, align_corners):
    return ix * 2 / (size - 1) - 1 if align_corners else (2 * ix + 1) / size - 1


def safe_grid(gen, n, ho, wo, hi, wi, align_corners, dtype, inside=False):
    """Sampling points whose unnormalized coordinates keep 0.1 away from integers and
    half-integers after rounding to dtype: no point sits where bilinear weights, nearest
    rounding, clipping or reflection switch, so float32 and float64 agree on every branch.
    Points reach up to two pixels outside the image unless `inside` (bicubic: a point whose four
    taps all clip to one border pixel has an exact gridGrad of 0, which float32 rounding of the
    cancelling tap weights turns into an unbounded relative error; taps still leave the image)."""
    coords = []
    for size in (wi, hi):  # grid[..., 0] is x (width), grid[..., 1] is y (height)
        lo, hi_ = (0, size - 1) if inside else (-2, size + 1)
        base = torch.randint(lo, hi_, (n, ho, wo), generator=gen).to(torch.float64)
        frac = uniform(gen, (n, ho, wo), 0.15, 0.35) + 0.5 * torch.randint(0, 2, (n, ho, wo), generator=gen)
        coords.append((base + frac, size))
    grid = torch.stack([normalize(ix, size, align_corners) for ix, size in coords], dim=-1)
    grid = rounded(grid, dtype)
    for k, (_, size) in enumerate(coords):
        ix = unnormalize(grid[..., k], size, align_corners)
        f = torch.remainder(ix, 0.5)
        assert bool(((f > 0.1) & (f < 0.4)).all()), "grid point too close to a branch after rounding"
    return grid


def grid_sampler_cases():
    interp = {0: "bilinear", 1: "nearest", 2: "bicubic"}
    pad = {0: "zeros", 1: "border", 2: "reflection"}
    small = [(2, 3, 5, 7, 4, 6)]
    cases = []
    for mode in (0, 1, 2):
        for padding in (0, 1, 2):
            for align in (False, True):
                cases.append((f"{interp[mode]}_{pad[padding]}_{'align' if align else 'noalign'}",
                              small[0], mode, padding, align, [True, True], "fp32"))
    cases += [
        ("odd_sizes_bilinear_border", (1, 1, 9, 3, 5, 7), 0, 1, False, [True, True], "fp32"),
        ("larger_bilinear_zeros", (2, 4, 16, 16, 8, 8), 0, 0, True, [True, True], "fp32"),
        ("mask_input_only", (2, 3, 6, 5, 3, 4), 0, 2, False, [True, False], "fp32"),
        ("mask_grid_only", (2, 3, 6, 5, 3, 4), 0, 0, False, [False, True], "fp32"),
    ]
    for dn in ("fp16", "bf16"):
        cases += [
            ("bilinear_zeros_noalign", (2, 3, 5, 7, 4, 6), 0, 0, False, [True, True], dn),
            ("bilinear_reflection_align", (2, 3, 6, 6, 5, 5), 0, 2, True, [True, True], dn),
            ("bilinear_border_noalign", (1, 2, 7, 9, 4, 3), 0, 1, False, [True, True], dn),
            ("nearest_border_align", (2, 3, 5, 7, 4, 6), 1, 1, True, [True, True], dn),
            ("bicubic_zeros_noalign", (1, 3, 6, 7, 4, 5), 2, 0, False, [True, True], dn),
        ]
    for name, (n, c, hi, wi, ho, wo), mode, padding, align, mask, dn in cases:
        dtype = DTYPES[dn]
        path = f"/grid_sampler2d_backward/{dn}/{name}"
        gen = generator_for(path)
        x = rounded(randn(gen, (n, c, hi, wi)), dtype)
        grid = safe_grid(gen, n, ho, wo, hi, wi, align, dtype, inside=(mode == 2))
        dy = rounded(randn(gen, (n, c, ho, wo)), dtype)
        dx, dgrid = torch.ops.aten.grid_sampler_2d_backward(dy, x, grid, mode, padding, align, mask)
        params = {"interpolationMode": mode, "paddingMode": padding, "alignCorners": bool(align), "outputMask": mask}
        yield path, "aclnnGridSampler2DBackward", \
            f"{dn} input {[n, c, hi, wi]}, output {[ho, wo]}, {interp[mode]}, {pad[padding]} padding, " \
            f"alignCorners {text(align)}, outputMask {text(mask)}", params, \
            {"gradOutput": dy.to(dtype), "input": x.to(dtype), "grid": grid.to(dtype)}, \
            {"inputGrad": dx if mask[0] else None, "gridGrad": dgrid if mask[1] else None}, \
            "PyTorch float64 aten::grid_sampler_2d_backward of the stored inputs"


# ---- aclnnConvolutionBackward -------------------------------------------------------------

def conv_out_size(size, k, stride, pad, dil, transposed, out_pad):
    if transposed:
        return (size - 1) * stride - 2 * pad + dil * (k - 1) + out_pad + 1
    return (size + 2 * pad - dil * (k - 1) - 1) // stride + 1


def convolution_cases():
    # (name, N, Cin, Cout, spatial, kernel, stride, padding, dilation, groups, transposed,
    #  outputPadding, outputMask, dtypes)
    table = [
        ("conv1d_basic", 2, 3, 4, (11,), (3,), (1,), (1,), (1,), 1, False, (0,), [True, True, True],
         ["fp32", "fp16", "bf16"]),
        ("conv2d_basic", 2, 4, 6, (8, 8), (3, 3), (1, 1), (1, 1), (1, 1), 1, False, (0, 0), [True, True, True],
         ["fp32", "fp16", "bf16"]),
        ("conv2d_stride2_odd", 1, 3, 5, (9, 7), (3, 2), (2, 2), (1, 0), (1, 1), 1, False, (0, 0), [True, True, True],
         ["fp32", "fp16", "bf16"]),
        ("conv2d_dilation2", 2, 2, 3, (10, 9), (3, 3), (1, 1), (2, 2), (2, 2), 1, False, (0, 0), [True, True, True],
         ["fp32"]),
        ("conv2d_groups2", 2, 4, 6, (7, 7), (3, 3), (1, 1), (1, 1), (1, 1), 2, False, (0, 0), [True, True, True],
         ["fp32", "fp16"]),
        ("conv2d_depthwise", 1, 4, 4, (6, 6), (3, 3), (1, 1), (1, 1), (1, 1), 4, False, (0, 0), [True, True, True],
         ["fp32", "bf16"]),
        ("conv2d_no_bias_grad", 2, 3, 4, (6, 5), (1, 1), (1, 1), (0, 0), (1, 1), 1, False, (0, 0), [True, True, False],
         ["fp32"]),
        ("conv2d_weight_only", 2, 3, 4, (6, 6), (3, 3), (2, 1), (1, 1), (1, 1), 1, False, (0, 0), [False, True, True],
         ["fp32"]),
        ("conv3d_basic", 1, 2, 3, (5, 6, 4), (3, 3, 2), (1, 2, 1), (1, 1, 0), (1, 1, 1), 1, False, (0, 0, 0),
         [True, True, True], ["fp32", "fp16"]),
        ("transposed2d_stride2", 2, 4, 3, (5, 4), (3, 3), (2, 2), (1, 1), (1, 1), 1, True, (1, 0), [True, True, True],
         ["fp32", "fp16", "bf16"]),
        ("transposed2d_groups2", 1, 4, 6, (4, 5), (2, 3), (1, 2), (0, 1), (1, 1), 2, True, (0, 1), [True, True, True],
         ["fp32"]),
        ("transposed1d_dilation", 2, 3, 2, (6,), (3,), (2,), (1,), (2,), 1, True, (1,), [True, True, True], ["fp32"]),
    ]
    for (name, n, cin, cout, spatial, kernel, stride, padding, dilation, groups, transposed, out_pad, mask,
         dtypes) in table:
        for dn in dtypes:
            dtype = DTYPES[dn]
            path = f"/convolution_backward/{dn}/{name}"
            gen = generator_for(path)
            if transposed:
                # input has Cin channels; weight [Cin, Cout/groups, k...]; output has Cout channels.
                wshape = (cin, cout // groups) + tuple(kernel)
            else:
                wshape = (cout, cin // groups) + tuple(kernel)
            x = rounded(randn(gen, (n, cin) + tuple(spatial)), dtype)
            w = rounded(randn(gen, wshape, 0.0, 0.5), dtype)
            out_spatial = tuple(conv_out_size(s, k, st, p, d, transposed, op) for s, k, st, p, d, op in
                                zip(spatial, kernel, stride, padding, dilation, out_pad))
            dy = rounded(randn(gen, (n, cout) + out_spatial), dtype)
            bias_sizes = [cout]
            gi, gw, gb = torch.ops.aten.convolution_backward(
                dy, x, w, bias_sizes, list(stride), list(padding), list(dilation), transposed, list(out_pad), groups,
                mask)
            params = {"biasSizes": bias_sizes, "stride": list(stride), "padding": list(padding),
                      "dilation": list(dilation), "transposed": bool(transposed), "outputPadding": list(out_pad),
                      "groups": groups, "outputMask": mask, "cubeMathType": 0}
            kind = ("transposed " if transposed else "") + f"{len(spatial)}d"
            yield path, "aclnnConvolutionBackward", \
                f"{dn} {kind} input {[n, cin] + list(spatial)}, weight {list(wshape)}, stride {list(stride)}, " \
                f"padding {list(padding)}, dilation {list(dilation)}, groups {groups}, outputMask {text(mask)}", params, \
                {"gradOutput": dy.to(dtype), "input": x.to(dtype), "weight": w.to(dtype)}, \
                {"gradInput": gi if mask[0] else None, "gradWeight": gw if mask[1] else None,
                 "gradBias": gb if mask[2] else None}, \
                "PyTorch float64 aten::convolution_backward of the stored inputs"


# ---- files --------------------------------------------------------------------------------

FILES = {
    "group_norm_backward.h5": group_norm_cases,
    "rms_norm_grad.h5": rms_norm_grad_cases,
    "grid_sampler2d_backward.h5": grid_sampler_cases,
    "convolution_backward.h5": convolution_cases,
}


def write_file(path, cases):
    """Builds the file beside its destination and renames it into place."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    os.close(fd)
    count = 0
    try:
        with h5py.File(tmp, "w", libver="earliest", track_order=False) as f:
            f.attrs["opscope_format"] = "cases"
            f.attrs["format_version"] = np.int64(FORMAT_VERSION)
            f.attrs["generator"] = GENERATOR
            f.attrs["torch_version"] = torch.__version__.split("+")[0]
            for case in cases():
                write_case(f, *case)
                count += 1
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return count


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)),
                        help="directory for the .h5 files (default: beside this script)")
    parser.add_argument("--only", choices=sorted(FILES), action="append", help="write only this file")
    parser.add_argument("--check", action="store_true",
                        help="regenerate into a temporary directory and report whether the files differ")
    args = parser.parse_args()
    torch.set_num_threads(1)  # reductions in a fixed order: the same bytes on every machine
    names = args.only or sorted(FILES)
    if args.check:
        with tempfile.TemporaryDirectory() as tmpdir:
            differ = []
            for name in names:
                write_file(os.path.join(tmpdir, name), FILES[name])
                with open(os.path.join(tmpdir, name), "rb") as a, open(os.path.join(args.out, name), "rb") as b:
                    if a.read() != b.read():
                        differ.append(name)
            for name in differ:
                print(f"{name}: differs from a fresh generation", file=sys.stderr)
            print("all files reproduce" if not differ else f"{len(differ)} file(s) differ")
            return 1 if differ else 0
    total = 0
    for name in names:
        path = os.path.join(args.out, name)
        count = write_file(path, FILES[name])
        total += os.path.getsize(path)
        print(f"{path}: {count} cases, {os.path.getsize(path) / 1024:.0f} KiB")
    print(f"total {total / 1024:.0f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

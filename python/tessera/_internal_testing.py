"""The helpers Triton's own test files import from `triton._internal_testing`,
for running them on Tessera with their imports changed: dtype lists, what
the current target is, random inputs, and moving arrays to and from torch
(unsigned and float8 ones through `reinterpret`). Needs numpy, pytest and
torch.
"""

import os
import re

import numpy as np
import pytest
import torch
from numpy.random import RandomState

import tessera.language as tl
from tessera import knobs
from tessera.runtime.driver import driver
from tessera.runtime.jit import TensorWrapper, reinterpret, type_canonicalisation_dict

int_dtypes = ["int8", "int16", "int32", "int64"]
uint_dtypes = ["uint8", "uint16", "uint32", "uint64"]
integral_dtypes = int_dtypes + uint_dtypes
float_dtypes = ["float16", "float32", "float64"]
float_dtypes_with_bfloat16 = float_dtypes + ["bfloat16"]
dtypes = integral_dtypes + float_dtypes
dtypes_with_bfloat16 = dtypes + ["bfloat16"]
torch_float8_dtypes = ["float8_e4m3fn", "float8_e5m2"]
torch_dtypes = ["bool"] + int_dtypes + ["uint8"] + float_dtypes + ["bfloat16"]
tma_dtypes = sorted(set(dtypes_with_bfloat16) - {"int64", "uint64", "float64"})


def is_interpreter():
    """Whether kernels run on the host interpreter (knobs.runtime.interpret:
    TESSERA_INTERPRET, else TRITON_INTERPRET as in Triton)."""
    return knobs.runtime.interpret


def get_current_target():
    return None if is_interpreter() else driver.active.get_current_target()


def _backend_is(name):
    target = get_current_target()
    return target is not None and target.backend == name


def _capability_major():
    return torch.cuda.get_device_capability()[0] if torch.cuda.is_available() else 0


def is_cuda():
    return _backend_is("cuda")


def is_ampere_or_newer():
    return is_cuda() and _capability_major() >= 8


def is_hopper_or_newer():
    return is_cuda() and _capability_major() >= 9


def is_hopper():
    return is_cuda() and _capability_major() == 9


def is_blackwell():
    return is_cuda() and _capability_major() == 10


def is_sm12x():
    return is_cuda() and _capability_major() == 12


def is_hip():
    return _backend_is("hip")


def _hip_arch_matches(pattern):
    target = get_current_target()
    return target is not None and target.backend == "hip" and re.fullmatch(pattern, target.arch)


def is_hip_cdna2():
    return bool(_hip_arch_matches("gfx90a"))


def is_hip_cdna3():
    return bool(_hip_arch_matches("gfx942"))


def is_hip_cdna4():
    return bool(_hip_arch_matches("gfx950"))


def is_hip_rdna3():
    return bool(_hip_arch_matches("gfx11.*"))


def is_hip_rdna4():
    return bool(_hip_arch_matches("gfx12.*"))


def is_hip_gfx1250():
    return bool(_hip_arch_matches("gfx1250.*"))


def is_hip_cdna():
    return is_hip_cdna2() or is_hip_cdna3() or is_hip_cdna4()


def is_hip_rdna():
    return is_hip_rdna3() or is_hip_rdna4()


def get_hip_lds_size():
    return 163840 if is_hip_cdna4() else 65536


def is_xpu():
    return _backend_is("xpu")


def get_arch():
    target = get_current_target()
    return "" if target is None else str(target.arch)


def numpy_random(shape, dtype_str, rs=None, low=None, high=None):
    """Random values of a dtype named as numpy names it (bfloat16 as float32
    with a bfloat16's bits, float8 as small int8 codes), never 0 for
    integers; the same for the same RandomState (seed 17 by default)."""
    if isinstance(shape, int):
        shape = (shape,)
    if rs is None:
        rs = RandomState(seed=17)
    if dtype_str in integral_dtypes:
        info = np.iinfo(getattr(np, dtype_str))
        low = info.min if low is None else max(low, info.min)
        high = info.max if high is None else min(high, info.max)
        x = rs.randint(low, high, shape, dtype=getattr(np, dtype_str))
        x[x == 0] = 1  # so that tests of division do not divide by zero
        return x
    if dtype_str and "float8" in dtype_str:
        return rs.randint(20, 40, shape, dtype=np.int8)
    if dtype_str in float_dtypes:
        return rs.normal(0, 1, shape).astype(dtype_str)
    if dtype_str == "bfloat16":
        bits = rs.normal(0, 1, shape).astype("float32").view("uint32")
        return (bits & np.uint32(0xFFFF0000)).view("float32")
    if dtype_str in ("bool", "int1", "bool_"):
        return rs.normal(0, 1, shape) > 0.0
    raise RuntimeError(f"unknown dtype {dtype_str}")


def to_triton(x, device, dst_type=None):
    """A numpy array as a torch tensor on `device`; unsigned and float8 ones
    (which torch lacks or stores as integers) reinterpreted, float32 made
    bfloat16 where `dst_type` says so."""
    name = x.dtype.name
    if name in uint_dtypes:
        signed = x.astype(getattr(np, name[1:]))
        return reinterpret(torch.tensor(signed, device=device), getattr(tl, name))
    if dst_type and "float8" in dst_type:
        return reinterpret(torch.tensor(x, device=device), getattr(tl, dst_type))
    if name == "float32" and dst_type == "bfloat16":
        return torch.tensor(x, device=device).bfloat16()
    return torch.tensor(x, device=device)


def str_to_triton_dtype(name):
    return tl.str_to_ty(type_canonicalisation_dict[name], None)


def torch_dtype_name(dtype):
    """"int64" for torch.int64 or tl.int64."""
    if isinstance(dtype, tl.dtype):
        return dtype.name
    if isinstance(dtype, torch.dtype):
        return re.match(r"^torch\.(\w+)$", str(dtype)).group(1)
    raise TypeError(f"not a tessera or torch dtype: {type(dtype)}")


def to_numpy(x):
    if isinstance(x, TensorWrapper):
        return x.base.cpu().numpy().astype(getattr(np, torch_dtype_name(x.dtype)))
    if isinstance(x, torch.Tensor):
        if x.dtype is torch.bfloat16:
            return x.cpu().float().numpy()
        return x.cpu().numpy()
    raise ValueError(f"not a tensor kernels take: {x}")


def supports_tma(byval_only=False):
    """Whether descriptors are copied by TMA: on Hopper and later (Tessera's
    tensor maps go to kernels by value), and on the interpreter."""
    if is_interpreter():
        return True
    return is_cuda() and _capability_major() >= 9


def supports_ws():
    return is_interpreter() or (is_cuda() and _capability_major() >= 9)


def tma_skip_msg(byval_only=False):
    return "requires TMA (NVIDIA Hopper or later)"


requires_tma = pytest.mark.skipif(not supports_tma(), reason=tma_skip_msg())


def default_alloc_fn(size, align, _):
    return torch.empty(size, dtype=torch.int8, device="cuda")


def _fresh_knobs_impl(skipped_attr=None):
    """(fresh, reset) for Triton's `fresh_knobs` fixtures: `fresh()` puts in
    place of each knob group (but those named in `skipped_attr`) a copy at
    its defaults, with the groups' environment variables unset, and returns
    `knobs`; `reset()` puts the groups and the variables back."""
    skipped = set(skipped_attr or ())
    groups = {name: group for name, group in vars(knobs).items()
              if isinstance(group, knobs._Group) and name not in skipped}
    saved = {}

    def fresh():
        for name, group in groups.items():
            for knob in (getattr(type(group), n) for n in group._names()):
                for variable in filter(None, (knob.variable, knob.fallback)):
                    saved.setdefault(variable, os.environ.pop(variable, None))
            setattr(knobs, name, type(group)())
        return knobs

    def reset():
        for name, group in groups.items():
            setattr(knobs, name, group)
        knobs._restore_environment(saved)
        saved.clear()

    return fresh, reset


def unwrap_tensor(t):
    return t.base if isinstance(t, TensorWrapper) else t


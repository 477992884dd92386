"""tessera.language: the kernel language, with the names of triton.language."""

from . import math
from .core import (CompilationError, bfloat16, block_type, const, constexpr, dtype, float8_e4m3,
                   float8_e5m2, float8e4b8, float8e4b15, float8e4nv, float8e5, float8e5b16,
                   float16, float32, float64, int1, int8, int16, int32, int64, pi32_t,
                   pointer_type, str_to_ty, tensor, uint8, uint16, uint32, uint64, void)
from .standard import (abs, arange, argmax, argmin, associative_scan, assume, atomic_add,
                       atomic_and, atomic_cas, atomic_max, atomic_min, atomic_or, atomic_xchg,
                       atomic_xor, broadcast, broadcast_to, cast, cat, cdiv, ceil, clamp, condition, cos,
                       cumprod, cumsum, debug_barrier, device_assert, device_print, div_rn, dot,
                       erf, exp, exp2, expand_dims, fdiv, flip, floor, fma, full, full_like, gather,
                       histogram,
                       inline_asm_elementwise, interleave, join, load, log, log2, map_elementwise, max,
                       max_constancy, max_contiguous,
                       maximum, min, minimum, multiple_of, num_programs, permute, program_id,
                       PropagateNan, range, ravel, reduce, reshape, rsqrt, sigmoid, sin, softmax,
                       sort, split, sqrt, sqrt_rn, squeeze, static_assert, static_print, static_range, store, sum,
                       swizzle2d, topk, trans, umulhi, unsqueeze, view, where, xor_sum, zeros, zeros_like)

from .scaled import dot_scaled
from .descriptor import (advance, block_pointer, load_tensor_descriptor,
                         make_block_ptr, make_tensor_descriptor, store_tensor_descriptor,
                         tensor_descriptor)

bool = int1

# Random numbers are @jit functions; they need the rest of the language first.
from .random import (pair_uniform_to_normal, philox, rand, rand4x, randint, randint4x,  # noqa: E402
                     randn, randn4x, uint_to_uniform_float)
from . import extra  # noqa: E402

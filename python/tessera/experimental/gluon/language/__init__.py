"""tessera.experimental.gluon.language (`gl`): the explicit level's
language, with the names of triton.experimental.gluon.language.

Tensors carry layouts. Constructors take one; every other operation derives
its result's layout from its operands, as Gluon does, and operands in
different layouts are an error naming both (convert_layout moves data).
"""

from ....language import math  # noqa: F401
from ....language.core import (bfloat16, block_type, constexpr, dtype, float8e4b8, float8e4b15,
                               float8e4nv, float8e5, float8e5b16, float16, float32, float64,
                               int1, int8, int16, int32, int64, pointer_type, tensor, uint8,
                               uint16, uint32, uint64, void)
from ....language.standard import (abs, associative_scan, atomic_add, atomic_and, atomic_cas,
                                   atomic_max, atomic_min, atomic_or, atomic_xchg, atomic_xor,
                                   broadcast, cast, cdiv, ceil, clamp, cos, cumprod, cumsum,
                                   device_assert, device_print, div_rn, erf, exp, exp2,
                                   expand_dims, fdiv, floor, fma, inline_asm_elementwise, load,
                                   log, log2, map_elementwise, max, max_constancy, max_contiguous,
                                   maximum, min, minimum, multiple_of, num_programs, permute,
                                   program_id, reduce, reshape, rsqrt, sigmoid, sin, sqrt,
                                   sqrt_rn, static_assert, static_print, static_range, store, sum,
                                   trans, umulhi, where, xor_sum)
from ._core import (allocate_shared_memory, arange, bank_conflicts, convert_layout,
                    distributed_type, dot_fma, full, full_like, num_ctas, num_warps,
                    set_auto_layout, shared_memory_descriptor, thread_barrier, to_linear_layout,
                    zeros, zeros_like)
from ._layouts import (AutoLayout, BlockedLayout, CoalescedLayout, DistributedLayout,
                       DistributedLinearLayout, DotOperandLayout, NVMMADistributedLayout,
                       NVMMASharedLayout, PaddedSharedLayout, SharedLayout, SharedLinearLayout,
                       SliceLayout, SwizzledSharedLayout)
from ....language.standard import range  # noqa: E402  (gl.range, as tl.range)

bool = int1

from . import amd, nvidia  # noqa: E402

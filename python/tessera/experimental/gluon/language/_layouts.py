"""Layouts as Python values, with the names and arguments of Gluon's.

Each layout is an immutable value that compares by its fields and maps
onto one of Tessera's layout attributes (`_to_ir()` gives its text), whose
linear form is what the compiler works with. Arguments are checked here as
Gluon checks them; what depends on the target (threads per warp multiplying
to its warp size) is checked when the kernel is compiled for it.
"""

from __future__ import annotations

import re

from ....language.core import CompilationError, _unwrap

__all__ = ["AutoLayout", "BlockedLayout", "CoalescedLayout", "DistributedLayout",
           "DistributedLinearLayout", "DotOperandLayout", "NVMMADistributedLayout",
           "NVMMASharedLayout", "PaddedSharedLayout", "SharedLayout", "SharedLinearLayout",
           "SliceLayout", "SwizzledSharedLayout"]


def _ints(value, what):
    value = _unwrap(value)
    try:
        result = [int(_unwrap(v)) for v in value]
    except TypeError:
        raise CompilationError(f"{what} must be a list of integers, got {value!r}") from None
    return result


def _list(values):
    return "[" + ", ".join(str(v) for v in values) + "]"


def _bases(values, what):
    return [_ints(b, what) for b in _unwrap(values)]


# Layouts by their IR text: those made in Python, and those the compiler
# derived (a reduction's slice, a permuted blocked layout).
_BY_IR = {}


class _Layout:
    """Equality, hashing and repr from the fields, as Gluon's frozen
    dataclasses have them."""

    _fields = ()

    def _key(self):
        return tuple((f, _freeze(getattr(self, f))) for f in self._fields)

    def __eq__(self, other):
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self):
        return hash((type(self).__name__, self._key()))

    def __repr__(self):
        args = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
        return f"{type(self).__name__}({args})"

    def _to_ir(self):
        text = self._ir()
        _BY_IR.setdefault(text, self)
        return text


def _freeze(value):
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


class DistributedLayout(_Layout):
    """A layout of a tensor in the registers of a block's threads."""


class SharedLayout(_Layout):
    """A layout of a buffer in shared memory."""


class AutoLayout(DistributedLayout):
    """A layout the compiler takes from the tensor's uses (or
    `set_auto_layout`)."""

    def _ir(self):
        return ""

    def _to_ir(self):
        return ""


class CoalescedLayout(DistributedLayout):
    """A layout the compiler chooses for the target: the blocked layout that
    coalesces the loads and stores the tensor reaches, and what follows from
    it through the ops between (a slice through expand_dims, and so on)."""

    @property
    def rank(self):
        raise ValueError("CoalescedLayout has no rank")

    def _ir(self):
        return "#tile.coalesced"


class BlockedLayout(DistributedLayout):
    """Each thread holds size_per_thread consecutive elements; threads of a
    warp, then warps, tile that block, along `order` (fastest first)."""

    _fields = ("size_per_thread", "threads_per_warp", "warps_per_cta", "order", "cga_layout")

    def __init__(self, size_per_thread, threads_per_warp, warps_per_cta, order,
                 cga_layout=None):
        self.size_per_thread = _ints(size_per_thread, "size_per_thread")
        self.threads_per_warp = _ints(threads_per_warp, "threads_per_warp")
        self.warps_per_cta = _ints(warps_per_cta, "warps_per_cta")
        self.order = _ints(order, "order")
        self.cga_layout = _unwrap(cga_layout) or []
        rank = len(self.size_per_thread)
        if not (len(self.threads_per_warp) == len(self.warps_per_cta) == len(self.order)
                == rank):
            raise CompilationError(
                "BlockedLayout's size_per_thread, threads_per_warp, warps_per_cta and order "
                f"must have one entry per dimension, got {self!r}")
        if sorted(self.order) != list(range(rank)):
            raise CompilationError(f"BlockedLayout's order must be a permutation of 0..{rank - 1}, "
                                   f"got {self.order}")
        for name in ("size_per_thread", "threads_per_warp", "warps_per_cta"):
            for v in getattr(self, name):
                if v <= 0 or v & (v - 1):
                    raise CompilationError(
                        f"BlockedLayout's {name} must hold powers of two, got {getattr(self, name)}")
        if self.cga_layout:
            raise CompilationError("BlockedLayout: cga_layout (several CTAs) is not supported")

    @property
    def rank(self):
        return len(self.order)

    def _ir(self):
        return (f"#tile.blocked<{{sizePerThread = {_list(self.size_per_thread)}, "
                f"threadsPerWarp = {_list(self.threads_per_warp)}, "
                f"warpsPerCTA = {_list(self.warps_per_cta)}, order = {_list(self.order)}}}>")


class SliceLayout(DistributedLayout):
    """`parent` with dimension `dim` removed: a reduction's result, the
    operand of expand_dims."""

    _fields = ("dim", "parent")

    def __init__(self, dim, parent):
        self.dim = int(_unwrap(dim))
        self.parent = _unwrap(parent)
        if not isinstance(self.parent, DistributedLayout):
            raise CompilationError(f"SliceLayout's parent must be a distributed layout, "
                                   f"got {self.parent!r}")
        if self.parent.rank is not None and not 0 <= self.dim < self.parent.rank:
            raise CompilationError(f"SliceLayout's dim {self.dim} is out of range for a parent "
                                   f"of rank {self.parent.rank}")

    @property
    def rank(self):
        return self.parent.rank - 1

    def _ir(self):
        return f"#tile.slice<{{dim = {self.dim}, parent = {self.parent._to_ir()}}}>"


class DistributedLinearLayout(DistributedLayout):
    """A layout given by the tensor coordinates of each bit of the register,
    lane, warp and block indices."""

    _fields = ("reg_bases", "lane_bases", "warp_bases", "block_bases", "shape")

    def __init__(self, reg_bases, lane_bases, warp_bases, block_bases, shape):
        self.reg_bases = _bases(reg_bases, "reg_bases")
        self.lane_bases = _bases(lane_bases, "lane_bases")
        self.warp_bases = _bases(warp_bases, "warp_bases")
        self.block_bases = _bases(block_bases, "block_bases")
        self.shape = _ints(shape, "shape")
        for name in ("reg_bases", "lane_bases", "warp_bases", "block_bases"):
            for basis in getattr(self, name):
                if len(basis) != len(self.shape):
                    raise CompilationError(f"DistributedLinearLayout: every basis of {name} needs "
                                           f"one value per dimension of shape {self.shape}")
        if self.block_bases:
            raise CompilationError("DistributedLinearLayout: block_bases (several CTAs) are not "
                                   "supported")

    @property
    def rank(self):
        return len(self.shape)

    def _ir(self):
        def group(bases):
            return "[" + ", ".join(_list(b) for b in bases) + "]"
        return (f"#tile.linear<{{register = {group(self.reg_bases)}, "
                f"lane = {group(self.lane_bases)}, warp = {group(self.warp_bases)}, "
                f"block = []}}>")


class DotOperandLayout(DistributedLayout):
    """Operand `operand_index` (0: A, 1: B) of a dot whose result has layout
    `parent`; `k_width` consecutive K elements a thread holds."""

    _fields = ("operand_index", "parent", "k_width")

    def __init__(self, operand_index, parent, k_width):
        self.operand_index = int(_unwrap(operand_index))
        self.parent = _unwrap(parent)
        self.k_width = int(_unwrap(k_width))
        if self.operand_index not in (0, 1):
            raise CompilationError(f"DotOperandLayout's operand_index must be 0 or 1, "
                                   f"got {self.operand_index}")
        if not isinstance(self.parent, DistributedLayout):
            raise CompilationError(f"DotOperandLayout's parent must be a distributed layout, "
                                   f"got {self.parent!r}")

    @property
    def rank(self):
        return self.parent.rank

    def _ir(self):
        return (f"#tile.dot_operand<{{opIdx = {self.operand_index}, "
                f"parent = {self.parent._to_ir()}, kWidth = {self.k_width}}}>")


class NVMMADistributedLayout(DistributedLayout):
    """The accumulator of NVIDIA's tensor cores: version [2, 0] mma.sync
    (instr_shape [16, 8]), [3, 0] wgmma (instr_shape [16, N, K])."""

    _fields = ("version", "warps_per_cta", "instr_shape", "cga_layout")

    def __init__(self, version, warps_per_cta, instr_shape, cga_layout=None):
        self.version = _ints(version, "version")
        self.warps_per_cta = _ints(warps_per_cta, "warps_per_cta")
        self.instr_shape = _ints(instr_shape, "instr_shape")
        self.cga_layout = _unwrap(cga_layout) or []
        if self.version[0] not in (2, 3):
            raise CompilationError(f"NVMMADistributedLayout's version must be [2, 0] or [3, 0], "
                                   f"got {self.version}")
        if self.version[0] == 2 and self.instr_shape[-2:] != [16, 8]:
            raise CompilationError("NVMMADistributedLayout version 2 needs instr_shape [16, 8], "
                                   f"got {self.instr_shape}")
        if self.cga_layout:
            raise CompilationError("NVMMADistributedLayout: cga_layout is not supported")

    @property
    def rank(self):
        return len(self.warps_per_cta)

    def _ir(self):
        return (f"#tile_nvidia.mma<{{version = {self.version[0]}, "
                f"warpsPerCTA = {_list(self.warps_per_cta)}, "
                f"instrShape = {_list(self.instr_shape)}}}>")


class SwizzledSharedLayout(SharedLayout):
    """Rows (along order[1]) whose groups of `vec` elements are XORed with
    (row / per_phase) % max_phase."""

    _fields = ("vec", "per_phase", "max_phase", "order", "cga_layout")

    def __init__(self, vec, per_phase, max_phase, order, cga_layout=None):
        self.vec = int(_unwrap(vec))
        self.per_phase = int(_unwrap(per_phase))
        self.max_phase = int(_unwrap(max_phase))
        self.order = _ints(order, "order")
        self.cga_layout = _unwrap(cga_layout) or []
        if sorted(self.order) != list(range(len(self.order))):
            raise CompilationError(f"SwizzledSharedLayout's order must be a permutation, "
                                   f"got {self.order}")
        if self.cga_layout:
            raise CompilationError("SwizzledSharedLayout: cga_layout is not supported")

    @property
    def rank(self):
        return len(self.order)

    def _ir(self):
        return (f"#tile.swizzled_shared<{{vec = {self.vec}, perPhase = {self.per_phase}, "
                f"maxPhase = {self.max_phase}, order = {_list(self.order)}}}>")


class NVMMASharedLayout(SharedLayout):
    """The 32/64/128-byte swizzles that wgmma and TMA read (0: none)."""

    _fields = ("swizzle_byte_width", "element_bitwidth", "rank", "transposed", "fp4_padded",
               "cga_layout")

    def __init__(self, swizzle_byte_width, element_bitwidth, rank=2, transposed=False,
                 fp4_padded=False, cga_layout=None):
        self.swizzle_byte_width = int(_unwrap(swizzle_byte_width))
        self.element_bitwidth = int(_unwrap(element_bitwidth))
        self.rank = int(_unwrap(rank))
        self.transposed = bool(_unwrap(transposed))
        self.fp4_padded = bool(_unwrap(fp4_padded))
        self.cga_layout = _unwrap(cga_layout) or []
        if self.swizzle_byte_width not in (0, 32, 64, 128):
            raise CompilationError("NVMMASharedLayout's swizzle_byte_width must be 0, 32, 64 or "
                                   f"128, got {self.swizzle_byte_width}")
        if self.element_bitwidth not in (8, 16, 32, 64):
            raise CompilationError("NVMMASharedLayout's element_bitwidth must be 8, 16, 32 or 64, "
                                   f"got {self.element_bitwidth}")
        if self.fp4_padded or self.cga_layout:
            raise CompilationError("NVMMASharedLayout: fp4_padded and cga_layout are not supported")

    @staticmethod
    def get_default_for(block_shape, dtype, transposed=False, fp4_padded=False,
                        cga_layout=None):
        """The widest swizzle a row of the block's contiguous dimension
        fills, as Gluon chooses it."""
        shape = _ints(block_shape, "block_shape")
        bits = _unwrap(dtype).primitive_bitwidth
        contiguous = shape[0] if _unwrap(transposed) else shape[-1]
        row_bytes = contiguous * bits // 8
        width = next((w for w in (128, 64, 32) if row_bytes >= w), 0)
        return NVMMASharedLayout(width, bits, len(shape), transposed, fp4_padded, cga_layout)

    def _ir(self):
        return (f"#tile.nvmma_shared<{{swizzlingByteWidth = {self.swizzle_byte_width}, "
                f"transposed = {str(self.transposed).lower()}, "
                f"elementBitWidth = {self.element_bitwidth}}}>")


class PaddedSharedLayout(SharedLayout):
    """A buffer laid out by offset bases, as SharedLinearLayout, with
    `padding` empty elements after every `interval` elements for each
    [interval, padding] pair: the element at offset o sits at
    o + sum((o // interval) * padding). Padding moves rows apart in the
    banks without a swizzle."""

    _fields = ("interval_padding_pairs", "offset_bases", "cga_layout", "shape")

    def __init__(self, interval_padding_pairs, offset_bases, cga_layout=None, shape=None,
                 block_bases=None):
        # block_bases: the name Gluon's earlier releases give cga_layout.
        self.interval_padding_pairs = [_ints(p, "interval_padding_pairs")
                                       for p in _unwrap(interval_padding_pairs)]
        self.offset_bases = _bases(offset_bases, "offset_bases")
        self.cga_layout = _unwrap(cga_layout) or _unwrap(block_bases) or []
        self.shape = _ints(shape, "shape") if _unwrap(shape) is not None else self._extent()
        pairs = self.interval_padding_pairs
        if not pairs:
            raise CompilationError("PaddedSharedLayout interval_padding_pairs must have at least "
                                   "one interval-padding pair")
        if any(len(p) != 2 for p in pairs):
            raise CompilationError("PaddedSharedLayout interval_padding_pairs must be pairs "
                                   f"[interval, padding], got {pairs}")
        intervals = [p[0] for p in pairs]
        if len(set(intervals)) != len(intervals):
            raise CompilationError(f"PaddedSharedLayout interval values must be unique, got "
                                   f"{intervals}")
        for i, what in ((0, "interval"), (1, "padding")):
            if any(p[i] <= 0 or p[i] & (p[i] - 1) for p in pairs):
                raise CompilationError(f"PaddedSharedLayout {what} values must all be power of "
                                       f"two, got {pairs}")
        if self.cga_layout:
            raise CompilationError("PaddedSharedLayout: cga_layout (several CTAs) is not "
                                   "supported")
        rank = len(self.shape)
        for basis in self.offset_bases:
            moved = [v for v in basis if v]
            if len(basis) != rank:
                raise CompilationError(f"PaddedSharedLayout's offset bases need {rank} values "
                                       f"each (the shape {self.shape}), got {basis}")
            if len(moved) != 1 or moved[0] < 0 or moved[0] & (moved[0] - 1):
                raise CompilationError("PaddedSharedLayout's offset bases must each move one "
                                       f"dimension by a power of two, got {basis}")
        if self._extent() != self.shape:
            raise CompilationError(f"PaddedSharedLayout's offset bases lay out "
                                   f"{self._extent()} elements, not the shape {self.shape}")

    def _extent(self):
        bases = self.offset_bases
        rank = len(bases[0]) if bases else 0
        return [sum(b[d] for b in bases) + 1 for d in range(rank)]

    @staticmethod
    def with_identity_for(interval_padding_pairs, shape, order, cga_layout=None):
        """Padding over a row-major-like layout: offsets run along `order`
        (its first dimension fastest)."""
        shape = _ints(shape, "shape")
        order = _ints(order, "order")
        if sorted(order) != list(range(len(shape))):
            raise CompilationError(f"PaddedSharedLayout.with_identity_for's order must be a "
                                   f"permutation of the dimensions of {shape}, got {order}")
        if any(d <= 0 or d & (d - 1) for d in shape):
            raise CompilationError(f"PaddedSharedLayout.with_identity_for needs a shape of "
                                   f"powers of two, got {shape}")
        bases = []
        for dim in order:
            for bit in range(shape[dim].bit_length() - 1):
                basis = [0] * len(shape)
                basis[dim] = 1 << bit
                bases.append(basis)
        return PaddedSharedLayout(interval_padding_pairs, bases, cga_layout, shape)

    @property
    def rank(self):
        return len(self.shape)

    def _ir(self):
        pairs = ", ".join(f"{i}:+{p}" for i, p in self.interval_padding_pairs)
        bases = "[" + ", ".join(_list(b) for b in self.offset_bases) + "]"
        return f"#tile.padded_shared<[{pairs}] {{offset = {bases}}}>"


class SharedLinearLayout(SharedLayout):
    """A buffer's layout by the tensor coordinates of each bit of the
    element offset (every element at an offset of its own)."""

    _fields = ("offset_bases", "block_bases", "alignment")

    def __init__(self, offset_bases, block_bases=(), alignment=16):
        self.offset_bases = _bases(offset_bases, "offset_bases")
        self.block_bases = _bases(block_bases, "block_bases")
        self.alignment = int(_unwrap(alignment))
        if self.block_bases:
            raise CompilationError("SharedLinearLayout: block_bases (several CTAs) are not "
                                   "supported")
        if self.alignment <= 0 or self.alignment & (self.alignment - 1):
            raise CompilationError(f"SharedLinearLayout's alignment must be a power of two, "
                                   f"got {self.alignment}")

    @property
    def rank(self):
        return len(self.offset_bases[0]) if self.offset_bases else 0

    def _ir(self):
        bases = "[" + ", ".join(_list(b) for b in self.offset_bases) + "]"
        return f"#tile.shared_linear<{{offset = {bases}, alignment = {self.alignment}}}>"


_INTS = r"\[([-0-9, ]*)\]"


def _int_list(text):
    return [int(v) for v in text.split(",") if v.strip()]


def _from_ir(text):
    """The layout object an IR layout attribute stands for."""
    known = _BY_IR.get(text)
    if known is not None:
        return known
    layout = None
    if text == "#tile.coalesced":
        layout = CoalescedLayout()
    m = re.fullmatch(r"#tile\.blocked<\{sizePerThread = " + _INTS + r", threadsPerWarp = " + _INTS
                     + r", warpsPerCTA = " + _INTS + r", order = " + _INTS + r"\}>", text)
    if m:
        layout = BlockedLayout(*(_int_list(g) for g in m.groups()))
    m = re.fullmatch(r"#tile\.slice<\{dim = (\d+), parent = (.*)\}>", text)
    if m:
        layout = SliceLayout(int(m.group(1)), _from_ir(m.group(2)))
    m = re.fullmatch(r"#tile\.dot_operand<\{opIdx = (\d), parent = (.*), kWidth = (\d+)\}>", text)
    if m:
        layout = DotOperandLayout(int(m.group(1)), _from_ir(m.group(2)), int(m.group(3)))
    m = re.fullmatch(r"#tile\.swizzled_shared<\{vec = (\d+), perPhase = (\d+), maxPhase = (\d+), "
                     r"order = " + _INTS + r"\}>", text)
    if m:
        layout = SwizzledSharedLayout(int(m.group(1)), int(m.group(2)), int(m.group(3)),
                                      _int_list(m.group(4)))
    m = re.fullmatch(r"#tile\.nvmma_shared<\{swizzlingByteWidth = (\d+), transposed = (\w+), "
                     r"elementBitWidth = (\d+)\}>", text)
    if m:
        layout = NVMMASharedLayout(int(m.group(1)), int(m.group(3)),
                                   transposed=m.group(2) == "true")
    m = re.fullmatch(r"#tile\.shared_linear<\{offset = \[(.*)\], alignment = (\d+)\}>", text)
    if m:
        bases = [_int_list(b) for b in re.findall(r"\[([-0-9, ]*)\]", m.group(1))]
        layout = SharedLinearLayout(bases, alignment=int(m.group(2)))
    m = re.fullmatch(r"#tile\.padded_shared<\[(.*?)\] \{offset = \[(.*)\]\}>", text)
    if m:
        pairs = [[int(i), int(p)] for i, p in re.findall(r"(\d+):\+(\d+)", m.group(1))]
        bases = [_int_list(b) for b in re.findall(r"\[([-0-9, ]*)\]", m.group(2))]
        layout = PaddedSharedLayout(pairs, bases)
    if layout is None:
        layout = _CompilerLayout(text)
    _BY_IR[text] = layout
    return layout


class _CompilerLayout(DistributedLayout):
    """A layout the compiler derived that has no Python spelling of its own
    (a linear form): it can be passed back where a layout is taken."""

    _fields = ("text",)

    def __init__(self, text):
        self.text = text

    @property
    def rank(self):
        """The values of a linear form's first basis; None where unknown."""
        m = re.search(r"\[\[([-0-9, ]*)\]", self.text)
        return len(_int_list(m.group(1))) if m else None

    def _ir(self):
        return self.text

"""@tessera.jit: kernels specialised on their arguments, compiled once per
specialisation, and launched with `kernel[grid](*args)`.

Kernels run on the GPU when given GPU memory (torch CUDA or ROCm tensors, or
any object with `__cuda_array_interface__`), compiled for the device's
architecture; on host memory (numpy arrays, torch CPU tensors) they run in
the host interpreter, or on the GPU with TESSERA_DEVICE=gpu (see gpu.py).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import itertools
import linecache
import numbers
import os
import textwrap
import warnings

from .. import _tessera, knobs
from . import gpu
from ..language import core, descriptor
from ..language.core import CompilationError, constexpr
from ..tools.tensor_descriptor import TensorDescriptor
from .errors import InterpretedCompilationError, InterpreterError, OutOfResources

_NUMPY_DTYPES = {
    "float16": "float16", "float32": "float32", "float64": "float64",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "bool": "int1",
}
_TORCH_DTYPES = {
    "torch.float16": "float16", "torch.bfloat16": "bfloat16", "torch.float32": "float32",
    "torch.float64": "float64", "torch.int8": "int8", "torch.int16": "int16",
    "torch.int32": "int32", "torch.int64": "int64", "torch.uint8": "uint8", "torch.uint16": "uint16",
    "torch.uint32": "uint32", "torch.uint64": "uint64", "torch.bool": "int1",
    "torch.float8_e4m3fn": "float8e4nv", "torch.float8_e5m2": "float8e5",
    "torch.float8_e4m3fnuz": "float8e4b8", "torch.float8_e5m2fnuz": "float8e5b16",
}


# Triton's canonical type strings of the names types go by (numpy's, torch's,
# C's), for tl.str_to_ty; booleans are unsigned.
type_canonicalisation_dict = {
    "bool": "u1", "int1": "u1", "uint1": "u1", "i1": "u1",
    "float8e4nv": "fp8e4nv", "float8_e4m3fn": "fp8e4nv", "float8e5": "fp8e5",
    "float8_e5m2": "fp8e5", "float8e4b15": "fp8e4b15", "float8e4b8": "fp8e4b8",
    "float8_e4m3fnuz": "fp8e4b8", "float8e5b16": "fp8e5b16", "float8_e5m2fnuz": "fp8e5b16",
    "half": "fp16", "float16": "fp16", "bfloat16": "bf16",
    "float": "fp32", "float32": "fp32", "double": "fp64", "float64": "fp64",
    "int8": "i8", "int16": "i16", "int": "i32", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64", "void": "void",
}


class _Pointer:
    """A tensor argument: its element dtype, address and the memory it spans."""

    def __init__(self, dtype, address, base, nbytes, on_host, device=0, writable=True):
        self.dtype, self.address, self.base, self.nbytes, self.on_host = (
            dtype, address, base, nbytes, on_host)
        self.device, self.writable = device, writable


@functools.cache
def _numpy_byte_bounds():
    """numpy's byte_bounds, found once (a failed import costs microseconds
    on every launch)."""
    try:
        from numpy.lib.array_utils import byte_bounds  # numpy >= 2
    except ImportError:
        from numpy import byte_bounds
    return byte_bounds


def _byte_bounds(array):
    """The first and one-past-last byte addresses an array can reach."""
    return _numpy_byte_bounds()(array)


def _location(value):
    """Where an array-like argument lives (something with `on_host` and
    `device`, as a pointer has), or None for other values; for torch
    tensors without making the pointer."""
    if isinstance(value, TensorDescriptor):
        value = value.base
    if hasattr(value, "data_ptr") and hasattr(value, "device"):  # torch
        on_host = value.device.type == "cpu"
        return _Location(on_host, 0 if on_host else value.device.index)
    return _as_pointer(value)


class _Location:
    __slots__ = ("on_host", "device")

    def __init__(self, on_host, device):
        self.on_host, self.device = on_host, device


class TensorWrapper:
    """A tensor (torch's, or a numpy array) that kernels see as elements of
    another type, `dtype` (a tessera.language dtype): unsigned or float8
    views of what torch stores as signed or 8-bit integers. Made by
    `reinterpret`; it forwards what code reads of a tensor to `base`."""

    def __init__(self, base, dtype):
        self.base = base
        self.dtype = dtype
        self.shape = base.shape
        self.device = getattr(base, "device", "cpu")

    def data_ptr(self):
        if hasattr(self.base, "data_ptr"):
            return self.base.data_ptr()
        return self.base.__array_interface__["data"][0]

    def stride(self, *args):
        if hasattr(self.base, "stride"):
            return self.base.stride(*args)
        strides = tuple(s // self.base.itemsize for s in self.base.strides)
        return strides[args[0]] if args else strides

    def element_size(self):
        return self.base.element_size() if hasattr(self.base, "element_size") \
            else self.base.itemsize

    def numel(self):
        return self.base.numel() if hasattr(self.base, "numel") else self.base.size

    def dim(self):
        return len(self.shape)

    def __str__(self):
        return f"TensorWrapper[{self.dtype}]({self.base})"

    def _like(self, base):
        return TensorWrapper(base, self.dtype)

    def copy_(self, other):
        self.base.copy_(other.base if isinstance(other, TensorWrapper) else other)
        return self

    def clone(self):
        return self._like(self.base.clone())

    def cpu(self):
        return self._like(self.base.cpu())

    def to(self, device):
        return self._like(self.base.to(device))

    def new_empty(self, sizes):
        return self._like(self.base.new_empty(sizes))


def reinterpret(tensor, dtype):
    """`tensor` seen by kernels as elements of `dtype` (triton.reinterpret);
    a wrapper reinterpreted as its base's own dtype is the base again."""
    if isinstance(tensor, TensorWrapper):
        if dtype == tensor.base.dtype:
            return tensor.base
        return TensorWrapper(tensor.base, dtype)
    if hasattr(tensor, "data_ptr") or hasattr(tensor, "__array_interface__"):
        return TensorWrapper(tensor, dtype)
    raise TypeError(f"cannot reinterpret a {type(tensor).__name__}")


def _as_pointer(value):
    """A pointer for an array-like argument, or None for other values."""
    if isinstance(value, TensorWrapper):
        pointer = _as_pointer(value.base)
        if pointer is not None:
            pointer.dtype = getattr(value.dtype, "name", str(value.dtype))
        return pointer
    if hasattr(value, "data_ptr") and hasattr(value, "element_size"):  # torch
        dtype = _TORCH_DTYPES.get(str(value.dtype))
        if dtype is None:
            raise TypeError(f"tensors of {value.dtype} cannot be passed to a kernel")
        address = value.data_ptr()
        storage = value.untyped_storage()
        on_host = value.device.type == "cpu"
        return _Pointer(dtype, address, storage.data_ptr(), storage.nbytes(), on_host,
                        0 if on_host else value.device.index)
    interface = getattr(value, "__array_interface__", None)
    if interface is not None:  # numpy and friends
        import numpy as np
        array = np.asarray(value)
        dtype = _NUMPY_DTYPES.get(str(array.dtype))
        if dtype is None:
            raise TypeError(f"arrays of {array.dtype} cannot be passed to a kernel")
        base = array
        while isinstance(base.base, np.ndarray):
            base = base.base
        low, high = _byte_bounds(base)
        return _Pointer(dtype, array.__array_interface__["data"][0], low, high - low, True,
                        writable=array.flags.writeable)
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None:  # cupy, numba and friends
        import numpy as np
        dtype = _NUMPY_DTYPES.get(str(np.dtype(interface["typestr"])))
        if dtype is None:
            raise TypeError(f"arrays of {interface['typestr']} cannot be passed to a kernel")
        address = interface["data"][0]
        return _Pointer(dtype, address, address, 0, False)
    return None


# Kernel parameter kinds of the argument types, for packing.
_PARAMETER_KINDS = {"int1": "i1", "int32": "i32", "uint32": "i32", "int64": "i64",
                    "uint64": "i64", "float32": "f32"}


class _Stages(dict):
    """The IR of each stage. Stages that only serve inspection are made when
    first read, not on every compile. Triton's names of its stages read
    Tessera's: "ttir" the tile IR, "ttgir" the tile IR with layouts."""

    _TRITON_NAMES = {"ttir": "tile", "ttgir": "tile-layout"}

    def __init__(self, made, later):
        super().__init__(made)
        self._later = later  # stage name -> function making its text

    def __missing__(self, stage):
        if stage in self._TRITON_NAMES:
            return self[self._TRITON_NAMES[stage]]
        if stage not in self._later:
            raise KeyError(stage)
        text = self[stage] = self._later.pop(stage)()
        return text

    def __contains__(self, stage):
        stage = self._TRITON_NAMES.get(stage, stage)
        return super().__contains__(stage) or stage in self._later

    def keys(self):
        return list(super().keys()) + list(self._later)


class _Metadata(dict):
    """A compiled kernel's metadata, read as Triton's is: `metadata.shared`
    or `metadata["shared"]`."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"kernel metadata has no '{name}'") from None


class CompiledKernel:
    """A kernel compiled for one specialisation: its IR by stage, and what is
    needed to launch it on the host interpreter and on GPUs. As Triton's,
    `compiled[grid](*args)` launches it (with the options it was compiled
    with) and `_init_handles()` loads it, after which `n_regs` and
    `n_spills` (4-byte words) say what a thread uses (0 on the host)."""

    def __init__(self, name, asm, tile_ir, options, debug, function=None):
        self.name = name
        self.asm = asm
        self._tile_ir = tile_ir  # with source locations
        self._options = dict(options)  # JITFunction._OPTIONS' names
        self._debug = debug
        self._function = function  # the JITFunction it came from
        self._launch_options = None  # what a launch passes (__getitem__)
        self._host = None
        self._binaries = {}  # (target, bulk copies, mma v3) -> CompiledBinary
        self._loaded = {}  # device -> GpuKernel
        self.metadata = _Metadata(name=name, target="host", shared=0, **self._options)
        self.n_regs = self.n_spills = None

    def _init_handles(self):
        """Loads the kernel on the current GPU (nothing without one)."""
        if self.n_regs is not None:
            return
        if not gpu.available():
            self.n_regs = self.n_spills = 0
            return
        from .driver import driver
        loaded = self.gpu_kernel(driver.active.get_current_device())
        self.n_regs, self.n_spills = loaded.n_regs, loaded.n_spills

    def __getitem__(self, grid):
        if self._function is None:
            raise TypeError(f"{self.name}: this compiled kernel cannot be launched by itself")
        if self._launch_options is None:
            # Options that are also parameters are passed among the
            # arguments; those at their defaults need not be passed at all.
            defaults = JITFunction._option_defaults()
            self._launch_options = {
                name: value for name, value in self._options.items()
                if name not in self._function.arg_names and value != defaults[name]}
        options = self._launch_options
        # The JIT function's launcher bound to the grid, as its own
        # kernel[grid] keeps it.
        bound = self._function[grid]

        def launch(*args, **kwargs):
            return bound(*args, **options, **kwargs)
        return launch

    def host_module(self):
        if self._host is None:
            self._host = _tessera.HostModule(self._tile_ir)
        return self._host

    def compile_for(self, target):
        """The binary for a target ("cuda:90"); its stages join `asm`."""
        binary = self.binary_for(target)
        self.asm["tile-layout"] = binary.tile_layout
        self.asm["llir"] = binary.llvm_ir
        self.asm[binary.assembly_kind] = binary.assembly
        if binary.binary:
            self.asm[binary.binary_kind] = binary.binary
        self.metadata.update(target=binary.arch, shared=binary.shared_bytes,
                             warp_size=binary.warp_size)
        return binary

    def binary_for(self, target, bulk_copies=True):
        """The binary for a target, compiled once (through the disk cache).
        Without `bulk_copies`, it takes no tensor maps (for AOT launchers)."""
        mma_v3 = not knobs.nvidia.disable_mma_v3
        binary = self._binaries.get((target, bulk_copies, mma_v3))
        if binary is None:
            options = self._options
            try:
                binary, note = _tessera.compile_cached(
                    self._tile_ir, target, num_warps=options["num_warps"],
                    num_stages=options["num_stages"],
                    enable_fp_fusion=bool(options["enable_fp_fusion"]),
                    debug=bool(self._debug), waves_per_eu=options["waves_per_eu"],
                    bulk_copies=bulk_copies, maxnreg=options["maxnreg"] or 0,
                    mma_v3=mma_v3, matrix_instr_nonkdim=options["matrix_instr_nonkdim"],
                    kpack=options["kpack"])
            except _tessera.OutOfResources as e:
                raise OutOfResources(str(e)) from None
            except _tessera.StageError as e:
                raise CompilationError(f"{self.name}: {e}") from None
            if note not in ("hit", "stored", "off", "no binary"):
                warnings.warn(f"tessera: {note}", RuntimeWarning, stacklevel=3)
            self._binaries[(target, bulk_copies, mma_v3)] = binary
        return binary

    def gpu_kernel(self, device):
        """The kernel loaded on a GPU (of gpu.platform())."""
        loaded = self._loaded.get(device)
        if loaded is None:
            binary = self.compile_for(gpu.target(device))
            gpu.set_device(device)
            image = binary.binary or binary.assembly.encode()
            threads = binary.num_warps * binary.warp_size
            loaded = self._loaded[device] = _tessera.GpuKernel(
                gpu.driver(), image, binary.name, threads, binary.shared_bytes,
                len(binary.parameter_types), binary.tensor_maps,
                bool(self._options["launch_cooperative_grid"]))
        return loaded


# The launch hook of the profiler (tessera.profiler), set only while one of its
# sessions is active, so that a launch pays a single check for it.
_launch_hook = None
# The records per warp of the kernels compiled while a session of the
# profiler instruments them (tessera.profiler.language's scopes); 0: none.
_instrumentation = 0


def set_instrumentation(slots):
    """Compiles kernels launched from now on with their scopes recorded,
    `slots` records per warp (0: without). A launch of an instrumented kernel
    asks the launch hook's timer for its record buffer."""
    global _instrumentation
    _instrumentation = slots


def set_launch_hook(hook):
    """Calls `hook(fn, kernel, grid, arguments, device)` before each launch
    (None: no hook); what it returns, a timer or None, is started and stopped
    on the launch's stream (None on the host interpreter) around the launch.
    While a hook is set, the C++ launch path, which would pass it by, is
    emptied and not filled again, so that every launch comes through `_run`."""
    global _launch_hook
    _launch_hook = hook
    if hook is not None:
        for fn in list(knobs._jit_functions):
            if isinstance(fn, JITFunction):
                fn._launcher.clear()


class JITFunction:
    # Whether the kernel gives its tensors their layouts (the explicit
    # level, tessera.experimental.gluon).
    explicit_layouts = False

    def __init__(self, fn, do_not_specialize=(), interpret=None, debug=None, noinline=False,
                 repr=None, launch_metadata=None):
        self.fn = fn
        self._repr = repr
        self.launch_metadata = launch_metadata
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.signature = inspect.signature(fn)
        self.arg_names = list(self.signature.parameters)
        self.constexpr_names = {
            name for name, p in self.signature.parameters.items()
            if p.annotation is constexpr or p.annotation == "tl.constexpr"
            or (isinstance(p.annotation, str) and p.annotation.endswith("constexpr"))}
        self.do_not_specialize = {
            self.arg_names[a] if isinstance(a, int) else a for a in do_not_specialize}
        self.interpret = interpret
        self.debug = debug
        self.globals = fn.__globals__
        self.filename = inspect.getsourcefile(fn) or "<unknown>"
        try:
            lines, self.first_line = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            lines = _executed_source(fn)
            if lines is None:
                raise TypeError(f"@jit cannot read the source of {fn.__name__} ({e}): kernels "
                                "are compiled from their source, so define them in a file, a "
                                "notebook cell, or by exec of a string") from None
            self.first_line = fn.__code__.co_firstlineno
            # Error messages quote it under a name of its own.
            self.filename = f"<exec of {fn.__name__}>"
            text = "".join(lines)
            linecache.cache[self.filename] = (len(text), None, lines, self.filename)
        # Columns in the AST of the dedented source are off by the indent.
        self.indent = len(lines[0]) - len(lines[0].lstrip())
        self.src = textwrap.dedent("".join(lines))
        self._key_of = (None, None)  # (source, its hash)
        self._tree = None
        self.cache = {}
        functools.update_wrapper(self, fn)
        roles = [2 if name in self.constexpr_names else 1 if name in self.do_not_specialize else 0
                 for name in self.arg_names]
        defaults = {name: p.default for name, p in self.signature.parameters.items()
                    if p.default is not inspect.Parameter.empty}
        self._launcher = _tessera.Launcher(self._run, self.arg_names, roles, defaults)
        self._bound = {}  # grid -> (grid, self._launcher.bind(grid))
        self._warmups = {}  # _warmup_key -> (compiled kernel, its key in self.cache)
        knobs._jit_functions.add(self)

    def forget_compiled(self):
        """Drops the kernels compiled in this process (a knob that changes
        what they compile to was set): the next launch compiles again, or
        finds them in the disk cache."""
        self.cache.clear()
        self._launcher.clear()
        self._warmups.clear()

    def repr(self, specialization):
        """The kernel's name for profilers: jit's `repr` of the specialization
        where given, else the function's name."""
        return self.__name__ if self._repr is None else self._repr(specialization)

    def lookup(self, name):
        """The value `name` has for the body: a closure cell's, else the
        module global's. Raises KeyError when neither exists."""
        code, closure = self.fn.__code__, self.fn.__closure__ or ()
        for free, cell in zip(code.co_freevars, closure):
            if free == name:
                try:
                    return cell.cell_contents
                except ValueError:  # a cell not filled yet
                    break
        return self.globals[name]

    @property
    def cache_key(self):
        """The hash of the source, made again only when the source changes."""
        if self._key_of[0] is not self.src:
            self._key_of = (self.src, hashlib.sha256(self.src.encode()).hexdigest())
        return self._key_of[1]

    def _unsafe_update_src(self, new_src):
        """Replaces the kernel's source text (as Triton's test helpers patch
        a template kernel); kernels compiled from the old text are not
        reused, and the signature must stay the same."""
        self.src = textwrap.dedent(new_src)
        self._tree = None

    def parse(self):
        # Line 1 of the tree is first_line of the file (the decorator's).
        if self._tree is None:
            self._tree = ast.parse(self.src)
        return self._tree, self.first_line

    def source_line(self, line):
        return linecache.getline(self.filename, line) or None

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self.__name__} is a kernel: launch it with "
                           f"{self.__name__}[grid](...), or call it from another @jit function")

    def __getitem__(self, grid):
        # Kernels are launched on a few grids, again and again. A grid
        # equal to one of ints is not that grid where it holds a float or a
        # bool (1.0 == True == 1): those are kept apart.
        try:
            key, bound = self._bound[grid]
            if key is grid or _of_ints(grid):
                return bound
        except (KeyError, TypeError):  # new, or a grid that cannot be a key
            pass
        bound = self._launcher.bind(grid)
        if _of_ints(grid):
            if len(self._bound) >= 64:
                self._bound.clear()
            self._bound[grid] = (grid, bound)
        return bound

    # ------------------------------------------------------------------

    def _bind(self, args, kwargs):
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}: {e}") from None
        bound.apply_defaults()
        return bound.arguments

    def _specialize(self, arguments):
        """The argument types, divisibility, compile-time values and launch
        values of a call; the first three make the cache key."""
        arg_types, divisibility, constants, launch = {}, {}, {}, []
        for name in self.arg_names:
            value = arguments[name]
            if name in self.constexpr_names:
                constants[name] = value.value if isinstance(value, constexpr) else value
                continue
            if type(value).__module__ == "numpy" and hasattr(value, "item") \
                    and getattr(value, "ndim", 1) == 0:
                value = value.item()  # a numpy scalar is a number
            specialize = name not in self.do_not_specialize
            if isinstance(value, TensorDescriptor):
                arg_types[name], divisibility[name], parts = self._descriptor(name, value,
                                                                              specialize)
                launch += parts
                continue
            pointer = _as_pointer(value)
            if pointer is not None:
                arg_types[name] = f"pointer<{pointer.dtype}>"
                if specialize and pointer.address % 16 == 0:
                    divisibility[name] = 16
                launch.append((name, pointer, "p"))
            elif isinstance(value, bool):
                arg_types[name] = "int1"
                launch.append((name, int(value), "i1"))
            elif isinstance(value, int):
                if specialize and value == 1:
                    constants[name] = 1  # like Triton: a 1 is a compile-time 1
                    continue
                if -2**31 <= value < 2**31:
                    arg_types[name] = "int32"
                elif 2**31 <= value < 2**32:
                    arg_types[name] = "uint32"
                elif -2**63 <= value < 2**64:
                    arg_types[name] = "int64" if value < 2**63 else "uint64"
                else:
                    raise TypeError(f"{self.__name__}: integer argument '{name}' = {value} "
                                    "does not fit in 64 bits")
                if specialize and value % 16 == 0:
                    divisibility[name] = 16
                # A u64 above 2**63 is passed as the int64 of the same bits.
                bits = value - 2**64 if value >= 2**63 else value
                launch.append((name, bits, _PARAMETER_KINDS[arg_types[name]]))
            elif isinstance(value, float):
                arg_types[name] = "float32"
                launch.append((name, value, "f32"))
            elif value is None:
                constants[name] = None
            else:
                raise TypeError(f"{self.__name__}: argument '{name}' has type "
                                f"{type(value).__name__}, which a kernel cannot take; pass "
                                "an array, a tensor, a number, or a constexpr")
        return arg_types, divisibility, constants, launch

    def _descriptor(self, name, desc, specialize):
        """The argument type, divisibility and launch values of a
        TensorDescriptor: its base, shape (i32) and strides but the last
        (i64, the last is 1)."""
        pointer = _as_pointer(desc.base)
        if pointer is None:
            raise TypeError(f"{self.__name__}: the base of tensor descriptor '{name}' is a "
                            f"{type(desc.base).__name__}, not an array or a tensor")
        numbers = desc.shape + desc.strides[:-1]
        for n in desc.shape:
            if not 0 <= n < 2**31:
                raise TypeError(f"{self.__name__}: tensor descriptor '{name}' has shape "
                                f"{desc.shape}; each dimension must fit in 31 bits")
        block = [int(core._unwrap(d)) for d in desc.block_shape]
        type_name = descriptor.descriptor_type_name(pointer.dtype, block, desc.padding == "nan")
        divisible = [16 if specialize and v % 16 == 0 else 0
                     for v in [pointer.address] + numbers]
        launch = [(name, pointer, "p")]
        launch += [(name, n, "i32") for n in desc.shape]
        launch += [(name, n, "i64") for n in desc.strides[:-1]]
        return type_name, tuple(divisible), launch

    def _compile(self, arg_types, divisibility, constants, options):
        from ..compiler import codegen
        builder = _tessera.Builder()
        try:
            generated = codegen.generate(builder, self, arg_types, divisibility, constants,
                                          options)
        except CompilationError as e:
            # The code generator's frames say nothing about the kernel; the
            # language's own error, where one caused it, stays its cause.
            raise e.with_traceback(None) from e.__cause__
        try:
            builder.optimize()
        except Exception as e:
            raise CompilationError(str(e)) from None
        tile = builder.text()
        # Until a GPU target is chosen, the layouts of 32-lane warps.
        asm = _Stages({"tile": tile}, {
            "tile-layout": lambda: _tessera.assign_layouts(tile, options["num_warps"], 32)})
        kernel = CompiledKernel(self.__name__, asm, builder.text(with_locations=True),
                                options, self.debug, self)
        kernel.profile_scopes = generated.profile_scopes
        return kernel, generated

    def _get_compiled(self, arguments, options):
        arg_types, divisibility, constants, launch = self._specialize(arguments)
        key = (tuple(sorted(arg_types.items())), tuple(sorted(divisibility.items())),
               tuple(sorted((k, repr(v)) for k, v in constants.items())),
               tuple(options.values()))
        if options.get("instrumentation"):
            launch = launch + [("records", None, "records")]
        entry = self.cache.get(key)
        if entry is not None and self._is_current(entry):
            return dict(entry, launch=launch, key=key)
        kernel, generated = self._compile(arg_types, divisibility, constants, options)
        # Checks that kernels compile for targets absent here (CI).
        for target in filter(None, os.environ.get("TESSERA_COMPILE_CHECK", "").split(",")):
            kernel.binary_for(target.strip())
        entry = self.cache[key] = {
            "kernel": kernel, "source": self.cache_key,
            "dependencies": dict(generated.dependencies),
            "globals": dict(generated.global_reads)}
        return dict(entry, launch=launch, key=key)

    def _watches(self, entry):
        """What the C++ launch path checks is unchanged before it reuses a
        kernel: the objects _is_current compares, by identity (Watch)."""
        watches = [(2, self, "src", self.src)]
        watches += [(2, f, "src", f.src) for f in entry["dependencies"]]
        for fn, name in entry["globals"]:
            code, closure = fn.fn.__code__, fn.fn.__closure__ or ()
            cells = dict(zip(code.co_freevars, closure))
            if name in cells:
                watches.append((1, cells[name], None, cells[name].cell_contents))
            elif name in fn.globals:
                watches.append((0, fn.globals, name, fn.globals[name]))
        return watches

    def _is_current(self, entry):
        """Whether a cached kernel still matches its source, the source of
        every @jit function it called, and the globals it read."""
        if entry["source"] != self.cache_key:
            return False
        if any(f.cache_key != k for f, k in entry["dependencies"].items()):
            return False
        for (fn, name), value in entry["globals"].items():
            try:
                current = fn.lookup(name)
            except KeyError:
                return False
            if repr(getattr(current, "value", current)) != value:
                return False
        return True

    def _warmup_key(self, args, kwargs):
        """What warmup's result depends on, read quickly (a program that
        warms a kernel up before each launch, as Triton's tutorial 02 does,
        pays for it every time): each argument's value, or for an array its
        type, dtype, 16-byte alignment and device, and the profiler's
        instrumentation. None where an argument is of another kind (warmup
        then binds them all)."""
        def part(value):
            kind = type(value)
            if kind in (int, float, bool, str, type(None)):
                return kind, value
            if isinstance(value, (constexpr, core.dtype)):
                return kind, repr(value)
            if hasattr(value, "data_ptr") and hasattr(value, "element_size"):  # torch
                return kind, str(value.dtype), value.data_ptr() % 16, str(value.device)
            interface = getattr(value, "__array_interface__", None)
            if interface is not None and kind.__module__ == "numpy":
                return kind, interface["typestr"], interface["data"][0] % 16, \
                    interface["data"][1]
            raise TypeError
        try:
            return (tuple(part(a) for a in args),
                    tuple((name, part(kwargs[name])) for name in sorted(kwargs)),
                    _instrumentation)
        except (TypeError, AttributeError):
            return None

    def warmup(self, *args, grid=None, **kwargs):
        """Compiles for these arguments without running, down to the binary
        of the GPU they are on (as a launch would); returns the compiled
        kernel, whose `asm` holds the IR of each stage."""
        memo = self._warmup_key(args, kwargs)
        if memo is not None and memo in self._warmups:
            kernel, key = self._warmups[memo]
            entry = self.cache.get(key)
            if entry is not None and entry["kernel"] is kernel and self._is_current(entry):
                return kernel
        arguments, options = self._bind_launch(args, kwargs)
        entry = self._get_compiled(arguments, options)
        kernel = entry["kernel"]
        device = self._placement([value for _, value, kind in entry["launch"] if kind == "p"])
        if device is not None:
            kernel.compile_for(gpu.target(device))
        if memo is not None:
            self._warmups[memo] = (kernel, entry["key"])
        return kernel

    # Launch options and their defaults: waves_per_eu is AMD's occupancy
    # hint (wavefronts per execution unit, 0 the compiler's choice),
    # enable_fp_fusion lets a*b+c become one fma, maxnreg caps the registers
    # of a thread (NVIDIA; accepted elsewhere), launch_cooperative_grid
    # launches with every program resident at once; matrix_instr_nonkdim
    # picks AMD's 16x16 or 32x32 matrix instructions (0: the larger that
    # fits), kpack (1 or 2) is accepted as Triton's AMD option.
    _OPTIONS = (("num_warps", 4), ("num_stages", 3), ("waves_per_eu", 0),
                ("enable_fp_fusion", True), ("maxnreg", None),
                ("launch_cooperative_grid", False), ("matrix_instr_nonkdim", 0),
                ("kpack", 1))

    @classmethod
    def _option_defaults(cls):
        """Each launch option's default (enable_fp_fusion's from its knob)."""
        return dict(cls._OPTIONS, enable_fp_fusion=knobs.language.default_fp_fusion)

    def _bind_launch(self, args, kwargs):
        """A launch's arguments, and its options (a dict in _OPTIONS' order).
        An option that also names a parameter of the kernel (Triton's
        tutorial 02 has `num_stages`) is both."""
        kwargs = dict(kwargs)
        kwargs.pop("num_ctas", 1)
        # Triton's path to libdevice: the backend links the device library
        # it finds itself (TESSERA_LIBDEVICE, else the CUDA toolkit's).
        kwargs.pop("extern_libs", None)
        options = {name: kwargs.pop(name, default)
                   for name, default in self._option_defaults().items()
                   if name not in self.arg_names}
        arguments = self._bind(args, kwargs)
        for name, _ in self._OPTIONS:
            if name in self.arg_names:
                options[name] = core._unwrap(arguments[name])
        options = _checked_options(self.__name__, options)
        if _instrumentation:
            options["instrumentation"] = _instrumentation
        return arguments, options

    def run(self, *args, grid, **kwargs):
        """Launches on `grid`; the compiled kernel is returned."""
        return self._launcher.bind(grid)(*args, **kwargs)

    def _run(self, grid, key, args, kwargs):
        """The launch path for what the C++ one (Launcher) does not know:
        the first launch of a specialisation (compiling it; `key` is its
        key there, or None), host memory, other argument types, errors."""
        arguments, options = self._bind_launch(args, kwargs)
        if callable(grid):
            meta = dict(arguments)
            meta.update(num_warps=options["num_warps"], num_stages=options["num_stages"])
            grid = _checked_grid(self.__name__, grid(meta), "the grid function returned")
        else:
            grid = _checked_grid(self.__name__, grid)
        try:
            entry = self._get_compiled(arguments, options)
        except CompilationError as e:
            if not (self.interpret or knobs.runtime.interpret):
                raise
            raise InterpretedCompilationError.of(e).with_traceback(None) from e.__cause__
        kernel, launch = entry["kernel"], entry["launch"]
        pointers = [value for _, value, kind in launch if kind == "p"]
        device = self._placement(pointers)
        if 0 in grid:
            return kernel
        # Profiled launches are timed here, so not handed to the C++ path.
        hook = _launch_hook
        timer = None if hook is None else hook(self, kernel, grid, arguments, device)
        if device is not None:
            loaded = self._launch_gpu(kernel, grid, launch, device, timer)
            if key is not None and hook is None and pointers \
                    and not any(p.on_host for p in pointers):
                self._launcher.add(key, loaded, kernel, self._watches(entry))
        else:
            self._launch_host(kernel, grid, launch, timer)
        return kernel

    def _placement(self, pointers):
        """Where a launch with these pointer arguments runs: a GPU's index,
        or None for the host interpreter."""
        on_gpu = [p for p in pointers if not p.on_host]
        if on_gpu and len(on_gpu) != len(pointers):
            raise ValueError(f"{self.__name__}: some arrays are on a GPU and some in host "
                             "memory; pass them all on one device")
        interpret = self.interpret or knobs.runtime.interpret
        if on_gpu and interpret:
            raise ValueError(f"{self.__name__}: the host interpreter runs on host memory; "
                             "the arguments are on a GPU")
        if on_gpu:
            return on_gpu[0].device
        if not interpret and gpu.staging() and gpu.available():
            return 0
        return None

    def device_of(self, *args, **kwargs):
        """Where these (possibly partial) arguments would run: a GPU's index,
        or None for the host interpreter."""
        parameters = self.signature.parameters
        if len(args) > len(parameters) or not all(k in parameters for k in kwargs):
            try:  # the error Python gives for such a call
                self.signature.bind_partial(*args, **kwargs)
            except TypeError as e:
                raise TypeError(f"{self.__name__}: {e}") from None
        locations = map(_location, itertools.chain(args, kwargs.values()))
        return self._placement([p for p in locations if p is not None])

    def _launch_gpu(self, kernel, grid, launch, device, timer=None):
        loaded = kernel.gpu_kernel(device)
        gpu.set_device(device)
        staging = None
        args = []
        stream = gpu.current_stream(device)
        for name, value, kind in launch:
            if kind == "p":
                if value.on_host:
                    staging = staging or gpu.Staging()
                    args.append(("p", staging.address(value)))
                else:
                    args.append(("p", value.address))
            elif kind == "records":
                args.append(("p", _records(kernel, grid, device, timer, stream)))
            else:
                args.append((kind, value))
        try:
            if timer is not None:
                timer.start(stream)
            loaded.launch(list(grid), args, stream)
            if timer is not None:
                timer.stop(stream)
        except _tessera.DriverError as e:
            if timer is not None:
                timer.cancel()
            raise RuntimeError(f"{self.__name__}: {e}") from None
        finally:
            if staging is not None:
                staging.finish()
        return loaded

    def _launch_host(self, kernel, grid, launch, timer=None):
        host_args, buffers = [], []
        for name, value, kind in launch:
            if kind == "p":
                host_args.append(("p", value.address))
                buffers.append((value.base, value.nbytes, name, value.writable))
            elif kind == "records":
                records = _records(kernel, grid, None, timer)
                host_args.append(("p", records.address))
                buffers.append((records.address, records.host.nbytes, "records", True))
            elif kind == "f32":
                host_args.append(("f", value))
            else:
                host_args.append(("i", value))
        try:
            module = kernel.host_module()
            if timer is not None:
                timer.start(None)
            module.run(kernel.name, list(grid), host_args, buffers)
            if timer is not None:
                timer.stop(None)
        except _tessera.HostError as e:
            if timer is not None:
                timer.cancel()
            raise InterpreterError(str(e)) from None


def _records(kernel, grid, device, timer, stream=None):
    """The record buffer of an instrumented kernel's launch, which the
    profiler's timer keeps (its address on a GPU)."""
    if timer is None or not hasattr(timer, "record"):
        raise RuntimeError(f"{kernel.name}: the kernel records its scopes, but no profiler "
                           "session takes them")
    records = timer.record(kernel, grid, device, stream)
    return records if device is None else records.address


def jit(fn=None, *, version=None, repr=None, launch_metadata=None, do_not_specialize=(),
        do_not_specialize_on_alignment=(), interpret=None, debug=None, noinline=False):
    """Makes a kernel (or a helper, when called from a kernel) of `fn`, with
    Triton's options: `repr(specialization)` names the kernel for profilers
    (JITFunction.repr), `launch_metadata(grid, kernel, args)` describes a
    launch to a profiler hook. Arguments in `do_not_specialize_on_alignment`
    are not specialized at all (as with `do_not_specialize`). `version` and
    `noinline` are accepted and unused (helpers are always inlined)."""
    def decorator(fn):
        return JITFunction(fn, do_not_specialize=(*do_not_specialize,
                                                  *do_not_specialize_on_alignment),
                           interpret=interpret, debug=debug, noinline=noinline,
                           repr=repr, launch_metadata=launch_metadata)
    return decorator if fn is None else decorator(fn)


# Triton's short type names (as in triton.compile signatures) and ours.
_SIGNATURE_TYPES = {short: ty.name for short, ty in core._SHORT_TYPES.items()}


def _executed_source(fn):
    """The source lines of `fn` where exec made it from a string, which is
    in no file: the string, still held by a calling frame (Triton's test
    helpers exec a template kernel's patched source), whose code defines a
    function of `fn`'s name and parameters at `fn`'s first line; None when
    no frame holds one."""
    code = fn.__code__
    names = list(inspect.signature(fn).parameters)
    frame = inspect.currentframe()
    try:
        while frame is not None:
            for value in list(frame.f_locals.values()):
                if isinstance(value, str) and f"def {fn.__name__}" in value:
                    lines = _function_lines(value, fn.__name__, names, code.co_firstlineno)
                    if lines is not None:
                        return lines
            frame = frame.f_back
    finally:
        del frame
    return None


def _function_lines(text, name, parameters, first_line):
    """The lines of `text` defining function `name` with `parameters` from
    `first_line` (its first decorator's), or None."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef) or node.name != name:
            continue
        start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        args = node.args
        found = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
        if start == first_line and found == parameters:
            return text.splitlines(keepends=True)[start - 1:node.end_lineno]
    return None


def _of_ints(grid):
    """Whether `grid` is an int or a tuple of ints (not of their subclasses)."""
    return type(grid) is int or (type(grid) is tuple and all(type(g) is int for g in grid))


# The most programs a launch has along each axis (CUDA's limits).
GRID_LIMITS = (2**31 - 1, 2**16 - 1, 2**16 - 1)


def _checked_grid(kernel_name, grid, given_as="the grid is"):
    """`grid` (an integer, or a tuple or list of one to three) as its three
    dimensions, or the TypeError or ValueError that names what is wrong."""
    given = grid
    sequence = isinstance(grid, (tuple, list))
    grid = tuple(core._unwrap(g) for g in (grid if sequence else (grid,)))
    for g in grid:
        if isinstance(g, bool) or not isinstance(g, numbers.Integral):
            what = f", and {g!r} is a {type(g).__name__}" if sequence else ""
            raise TypeError(f"{kernel_name}: {given_as} {given!r}; a grid is an integer or "
                            f"a tuple of 1 to 3 integers{what}")
    if not 1 <= len(grid) <= 3:
        raise ValueError(f"{kernel_name}: a grid has 1 to 3 dimensions, got {given!r}")
    grid = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
    if any(g < 0 for g in grid):
        raise ValueError(f"{kernel_name}: grid dimensions cannot be negative, got {given!r}")
    for axis, (g, limit) in enumerate(zip(grid, GRID_LIMITS)):
        if g > limit:
            raise ValueError(f"{kernel_name}: the grid {given!r} has {g} programs along axis "
                             f"{axis}; a launch has at most {limit} there")
    return grid


def _checked_options(kernel_name, options):
    """`options` (JITFunction._OPTIONS' names), or an error naming the one
    with a value of the wrong kind or out of range."""
    num_warps = options["num_warps"]
    if not isinstance(num_warps, numbers.Integral) or not 1 <= num_warps <= 32 \
            or num_warps & (num_warps - 1):
        # AssertionError, as Triton raises it.
        raise AssertionError(f"{kernel_name}: num_warps must be a power of 2 from 1 to 32, "
                             f"got {num_warps!r}")
    maxnreg = options["maxnreg"]
    if maxnreg is not None and (not isinstance(maxnreg, numbers.Integral)
                                or not 0 < maxnreg < 2**31):
        raise TypeError(f"{kernel_name}: maxnreg must be a positive integer or None, "
                        f"got {maxnreg!r}")
    for name in ("num_stages", "waves_per_eu"):
        if not isinstance(options[name], numbers.Integral) or not 0 <= options[name] < 2**31:
            raise ValueError(f"{kernel_name}: {name} must be an integer from 0 to 2**31 - 1, "
                             f"got {options[name]!r}")
    if options["matrix_instr_nonkdim"] not in (0, 16, 32):
        raise ValueError(f"{kernel_name}: matrix_instr_nonkdim must be 0, 16 or 32, "
                         f"got {options['matrix_instr_nonkdim']!r}")
    if options["kpack"] not in (1, 2):
        raise ValueError(f"{kernel_name}: kpack must be 1 or 2, got {options['kpack']!r}")
    for name in ("enable_fp_fusion", "launch_cooperative_grid"):
        if not isinstance(options[name], (bool, numbers.Integral)):
            raise TypeError(f"{kernel_name}: {name} must be True or False, "
                            f"got {options[name]!r}")
    return options


def _signature_type(kernel, name, text):
    """('pointer<float32>' or 'int32', divisibility or None) of a signature
    entry: "*fp32", "i32", "*float16:16" (16: the value, or the address, is
    a multiple of 16)."""
    described = descriptor.parse_descriptor_type(text)
    if described is not None:
        element, block, nan = described
        element = _SIGNATURE_TYPES.get(element, element)
        if element not in core._DTYPES:
            raise TypeError(f"{kernel.__name__}: '{name}' has type '{text}'; the descriptor's "
                            "element type is unknown")
        return descriptor.descriptor_type_name(element, block, nan), None
    spec, _, divisible = str(text).partition(":")
    pointer = spec.startswith("*")
    element = spec[1:] if pointer else spec
    element = _SIGNATURE_TYPES.get(element, element)
    if element not in core._DTYPES or (not pointer and element.startswith("float8")):
        raise TypeError(f"{kernel.__name__}: '{name}' has type '{text}' in the signature; "
                        "expected a scalar type (i32, fp32, ...) or a pointer (*fp16, ...)")
    if divisible not in ("", "16"):
        raise TypeError(f"{kernel.__name__}: '{name}': only ':16' (divisible by 16) may follow "
                        f"a type, got '{text}'")
    return (f"pointer<{element}>" if pointer else element), (16 if divisible else None)


def compile(kernel, signature, target, constexprs=None, num_warps=4, num_stages=3,
            waves_per_eu=0, enable_fp_fusion=None, maxnreg=None, matrix_instr_nonkdim=0,
            kpack=1):
    """Compiles `kernel` (a @jit function) ahead of time, with no GPU needed:
    `signature` gives each runtime argument's type ("*fp32", "i32", "fp16",
    Triton's names; "*fp32:16" for a 16-byte aligned address), `constexprs`
    the compile-time values, `target` where it runs ("cuda:90",
    "hip:gfx942"); the options are the launch options of the same names
    (JITFunction._OPTIONS), `enable_fp_fusion` defaulting to
    knobs.language.default_fp_fusion as at launch. Returns the
    CompiledKernel, whose `asm` holds the IR of each stage and the binary
    ("cubin" or "hsaco")."""
    if not isinstance(kernel, JITFunction):
        raise TypeError("tessera.compile takes a @tessera.jit function")
    constexprs = dict(constexprs or {})
    arg_types, divisibility, constants = {}, {}, {}
    for name in kernel.arg_names:
        if name in constexprs:
            value = constexprs[name]
            constants[name] = value.value if isinstance(value, constexpr) else value
        elif name in signature:
            arg_types[name], divisible = _signature_type(kernel, name, signature[name])
            if divisible:
                divisibility[name] = divisible
        else:
            default = kernel.signature.parameters[name].default
            if default is inspect.Parameter.empty:
                raise TypeError(f"{kernel.__name__}: argument '{name}' is in neither the "
                                "signature nor constexprs")
            constants[name] = default.value if isinstance(default, constexpr) else default
    unknown = (set(signature) | set(constexprs)) - set(kernel.arg_names)
    if unknown:
        raise TypeError(f"{kernel.__name__} has no argument {', '.join(sorted(unknown))}")
    options = dict(JITFunction._OPTIONS, num_warps=num_warps, num_stages=num_stages,
                   waves_per_eu=waves_per_eu, maxnreg=maxnreg,
                   matrix_instr_nonkdim=matrix_instr_nonkdim, kpack=kpack,
                   enable_fp_fusion=knobs.language.default_fp_fusion
                   if enable_fp_fusion is None else enable_fp_fusion)
    compiled, _ = kernel._compile(arg_types, divisibility, constants,
                                  _checked_options(kernel.__name__, options))
    compiled.compile_for(target)
    return compiled

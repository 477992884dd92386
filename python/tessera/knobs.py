"""Tessera's settings, under the names of Triton's `triton.knobs`.

Each knob reads its environment variable (`TESSERA_...`) each time it is
asked, unless it was set in Python. Setting one sets the variable too, so
that the compiler's C++ side and child processes see it; `del` (or
`reset()`) takes the Python value back and restores the variable, and
assigning `knobs.env` does the same. `scope()` restores every knob of a
group, and its variables, when the block ends:

    with tessera.knobs.cache.scope():
        tessera.knobs.cache.dir = "/tmp/kernels"
        ...

Knobs that change what a kernel compiles to (`language.*`) make kernels
launched before compile again. Triton's knobs that have no meaning in
Tessera (its build, remote caches, tool paths) are not provided.
"""

import contextlib
import os
import weakref


class _Env:
    """Assigned to a knob: go back to the environment's value."""

    def __repr__(self):
        return "tessera.knobs.env"


env = _Env()

_TRUE, _FALSE = ("1", "true", "on", "yes"), ("0", "false", "off", "no", "")


def _bool(variable, text):
    if text.lower() in _TRUE:
        return True
    if text.lower() in _FALSE:
        return False
    raise ValueError(f"{variable}={text!r}: expected 1 or 0 (true, false, on, off, yes, no)")


def _str(variable, text):
    return text


def _precision(variable, text):
    if text not in ("tf32", "tf32x3", "bf16x3", "bf16x6", "ieee"):
        raise ValueError(f"{variable}={text!r}: expected tf32, tf32x3, bf16x3, bf16x6 or ieee")
    return text


def _default_cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tessera")


def _restore_environment(saved):
    """Sets each variable of `saved` back to its text (unset where None)."""
    for variable, text in saved.items():
        if text is None:
            os.environ.pop(variable, None)
        else:
            os.environ[variable] = text


class _Knob:
    """A knob of `variable`: `parse(variable, text)` reads its text,
    `default` (a value, or a function giving one) is its value where the
    variable is unset. `fallback` names Triton's variable for the same
    setting, read where `variable` is unset."""

    def __init__(self, variable, parse, default, fallback=None):
        self.variable, self.parse, self.default = variable, parse, default
        self.fallback = fallback

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, group, owner=None):
        if group is None:
            return self
        if self.name in group.__dict__:
            return group.__dict__[self.name]
        for variable in (self.variable, self.fallback):
            text = os.environ.get(variable) if variable else None
            if text is not None:
                return self.parse(variable, text)
        return self.default() if callable(self.default) else self.default

    def __set__(self, group, value):
        if value is env:
            self.__delete__(group)
            return
        if isinstance(value, str):
            self.parse(self.variable, value)  # refuses what the variable could not hold
        group._saved.setdefault(self.variable, os.environ.get(self.variable))
        group.__dict__[self.name] = value
        if value is None:
            os.environ.pop(self.variable, None)
        else:
            os.environ[self.variable] = ("1" if value else "0") if isinstance(value, bool) \
                else str(value)
        group._changed()

    def __delete__(self, group):
        group.__dict__.pop(self.name, None)
        if self.variable in group._saved:
            _restore_environment({self.variable: group._saved.pop(self.variable)})
        group._changed()


class _Group:
    """A group of knobs (`knobs.cache`, `knobs.runtime`, ...)."""

    def __init__(self):
        self.__dict__["_saved"] = {}

    def __setattr__(self, name, value):
        if not isinstance(getattr(type(self), name, None), _Knob):
            raise AttributeError(f"tessera.knobs.{type(self).__name__} has no knob '{name}'; "
                                 f"it has {', '.join(self._names())}")
        super().__setattr__(name, value)

    @classmethod
    def _names(cls):
        return [n for n, v in vars(cls).items() if isinstance(v, _Knob)]

    def _changed(self):
        pass

    @property
    def knobs(self):
        """Each knob's name and current value."""
        return {name: getattr(self, name) for name in self._names()}

    def copy(self):
        """A group with the same values set in Python (it does not set the
        environment until one of its knobs is set)."""
        other = type(self)()
        other.__dict__.update((k, v) for k, v in self.__dict__.items() if k != "_saved")
        return other

    def reset(self):
        """Every knob back to its environment variable's value."""
        for name in self._names():
            delattr(self, name)
        return self

    @contextlib.contextmanager
    def scope(self):
        """Restores the group's knobs and their variables on leaving."""
        variables = {getattr(type(self), n).variable: os.environ.get(getattr(type(self), n).variable)
                     for n in self._names()}
        values = dict(self.__dict__)
        try:
            yield self
        finally:
            self.__dict__.clear()
            self.__dict__.update(values)
            _restore_environment(variables)
            self._changed()


class cache(_Group):
    """Where compiled kernels and tuning results are kept: `dir`
    (TESSERA_CACHE_DIR; "" keeps nothing on disk)."""
    dir = _Knob("TESSERA_CACHE_DIR", _str, _default_cache_dir)


class compilation(_Group):
    """`always_compile` (TESSERA_ALWAYS_COMPILE): compile even where the
    disk cache holds the kernel."""
    always_compile = _Knob("TESSERA_ALWAYS_COMPILE", _bool, False)


class runtime(_Group):
    """`interpret` (TESSERA_INTERPRET, else Triton's TRITON_INTERPRET): run
    kernels on the host interpreter."""
    interpret = _Knob("TESSERA_INTERPRET", _bool, False, fallback="TRITON_INTERPRET")


class autotuning(_Group):
    """`print` (TESSERA_PRINT_AUTOTUNING): print each tuning's winner and
    time; `cache` (TESSERA_CACHE_AUTOTUNING): keep tuning results on disk
    (on by default in Tessera, off in Triton)."""
    print = _Knob("TESSERA_PRINT_AUTOTUNING", _bool, False)
    cache = _Knob("TESSERA_CACHE_AUTOTUNING", _bool, True)


# The kernels (and autotuners) whose compiled forms (and chosen configs) a
# change of a knob of how kernels compile drops.
_jit_functions = weakref.WeakSet()


class _CompilingGroup(_Group):
    """Knobs that change how kernels compile: a change drops what was
    compiled."""

    def _changed(self):
        for fn in list(_jit_functions):
            fn.forget_compiled()


class language(_CompilingGroup):
    """`fp32_default` (TESSERA_F32_DEFAULT): the precision of a dot of fp32
    given neither `input_precision` nor `allow_tf32` ("tf32", "tf32x3",
    "bf16x3", "bf16x6" or "ieee"; tf32 where unset); `default_fp_fusion`
    (TESSERA_DEFAULT_FP_FUSION): whether `a * b + c` may become one fma
    where a launch does not pass `enable_fp_fusion`."""
    fp32_default = _Knob("TESSERA_F32_DEFAULT", _precision, None)
    default_fp_fusion = _Knob("TESSERA_DEFAULT_FP_FUSION", _bool, True)


class nvidia(_CompilingGroup):
    """`disable_mma_v3` (TESSERA_DISABLE_MMA_V3, else Triton's
    DISABLE_MMA_V3): dots stay on mma.sync where Hopper has wgmma."""
    disable_mma_v3 = _Knob("TESSERA_DISABLE_MMA_V3", _bool, False, fallback="DISABLE_MMA_V3")


cache = cache()
compilation = compilation()
runtime = runtime()
autotuning = autotuning()
language = language()
nvidia = nvidia()


def _compiling_values():
    """The values of the knobs that change how kernels compile, by name:
    what stored tuning results depend on besides the kernel and its
    arguments."""
    groups = [g for g in globals().values() if isinstance(g, _CompilingGroup)]
    return {f"{type(g).__name__}.{n}": str(getattr(g, n)) for g in groups for n in g._names()}

__all__ = ["autotuning", "cache", "compilation", "env", "language", "nvidia", "runtime"]

"""@tessera.autotune and @tessera.heuristics, with Triton's semantics.

The autotuner times each config of a kernel for the values of its `key`
arguments and launches the fastest. Configs compile in parallel threads (the
C++ compiler releases the GIL). Results persist on disk (TESSERA_CACHE_DIR,
else ~/.cache/tessera, under autotune/), keyed by the kernel's source, the
key values and the argument dtypes, the device and the compiler build (not
by the config list), so a restart does not tune again; TESSERA_RETUNE=1
tunes again and replaces what was stored. TESSERA_PRINT_AUTOTUNING=1 prints
each config's time and the winner; tuning that takes long prints its
progress.

A config holds portable knobs (its kwargs, num_warps, num_stages) and
vendor ones (AMD's waves_per_eu, matrix_instr_nonkdim, kpack); each backend
maps them to its chip
(`_tessera.options_for_target`), and configs that compile alike there are
timed once, so one list serves NVIDIA and AMD.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import inspect
import json
import os
import sys
import tempfile
import time
import warnings

from .. import _tessera, knobs
from ..language.core import CompilationError
from . import gpu
from .jit import JITFunction

# Launch options a config passes to the kernel besides num_warps and
# num_stages: AMD's (launch options of the kernel too).
_VENDOR_OPTIONS = {"waves_per_eu": 0, "matrix_instr_nonkdim": 0, "kpack": 1}
_IGNORED_OPTIONS = ("num_ctas",)


class Config:
    """One point of the tuning space: meta-parameters (`kwargs`), warps per
    program, pipelining depth, and vendor options (AMD's waves_per_eu,
    matrix_instr_nonkdim, kpack)."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None,
                 pre_hook=None, **options):
        unknown = set(options) - set(_VENDOR_OPTIONS) - set(_IGNORED_OPTIONS)
        if unknown:
            raise TypeError(f"Config: unknown option {', '.join(sorted(unknown))}")
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        # The vendor options given, with their defaults for the others.
        self.vendor_options = {name: options.pop(name, default)
                               for name, default in _VENDOR_OPTIONS.items()}
        self.options = options

    @property
    def waves_per_eu(self):
        return self.vendor_options["waves_per_eu"]

    def _changed_vendor_options(self):
        return {name: value for name, value in self.vendor_options.items()
                if value != _VENDOR_OPTIONS[name]}

    def all_kwargs(self):
        """What a launch with this config passes to the kernel."""
        launch = {"num_warps": self.num_warps, "num_stages": self.num_stages}
        launch.update(self._changed_vendor_options())
        if self.maxnreg is not None:
            launch["maxnreg"] = self.maxnreg
        return {**self.kwargs, **launch}

    def describe(self):
        """The config as JSON data (what the tuning cache stores; values
        JSON cannot hold are stored by their repr)."""
        return json.loads(json.dumps(
            {"kwargs": self.kwargs, "num_warps": self.num_warps,
             "num_stages": self.num_stages, **self.vendor_options,
             "maxnreg": self.maxnreg},
            default=repr))

    def __str__(self):
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"num_warps: {self.num_warps}", f"num_stages: {self.num_stages}"]
        parts += [f"{k}: {v}" for k, v in self._changed_vendor_options().items()]
        if self.maxnreg is not None:
            parts.append(f"maxnreg: {self.maxnreg}")
        return ", ".join(parts)

    __repr__ = __str__


def _inner_jit(fn):
    while not isinstance(fn, JITFunction):
        fn = fn.fn
    return fn


class KernelInterface:
    """What a decorated kernel offers: kernel[grid](...), run, warmup."""

    def __init__(self, fn):
        self.fn = fn
        self.jit = _inner_jit(fn)
        self.arg_names = self.jit.arg_names
        self.__name__ = self.jit.__name__
        self.__doc__ = self.jit.__doc__

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def _named(self, args, kwargs):
        """The arguments by name (those given, without defaults)."""
        return {**dict(zip(self.arg_names, args)), **kwargs}


class Heuristics(KernelInterface):
    """Meta-parameters computed from the other arguments."""

    def __init__(self, fn, values):
        super().__init__(fn)
        self.values = dict(values)

    def _complete(self, args, kwargs):
        kwargs = dict(kwargs)
        for name, rule in self.values.items():
            kwargs[name] = rule(self._named(args, kwargs))
        return kwargs

    def run(self, *args, grid, **kwargs):
        return self.fn.run(*args, grid=grid, **self._complete(args, kwargs))

    def warmup(self, *args, **kwargs):
        return self.fn.warmup(*args, **self._complete(args, kwargs))


def heuristics(values):
    """Decorates a kernel so that each `values[name](args)` (args: the
    launch's arguments by name) is passed as the meta-parameter `name`."""
    return lambda fn: Heuristics(fn, values)


def _zero(value):
    if hasattr(value, "zero_"):
        value.zero_()
    else:
        value[...] = 0


def _copy(value):
    return value.clone() if hasattr(value, "clone") else value.copy()


def _restore(value, saved):
    if hasattr(value, "copy_"):
        value.copy_(saved)
    else:
        value[...] = saved


def _key_part(value):
    dtype = getattr(value, "dtype", None)
    if dtype is not None and hasattr(value, "shape"):
        return str(dtype)
    return repr(value)


def _cache_directory():
    directory = knobs.cache.dir
    return os.path.join(directory, "autotune") if directory else None


class Autotuner(KernelInterface):
    def __init__(self, fn, configs, key, prune_configs_by=None, reset_to_zero=None,
                 restore_value=None, pre_hook=None, post_hook=None, warmup=None, rep=None,
                 use_cuda_graph=False, do_bench=None, cache_results=True):
        super().__init__(fn)
        self.configs = list(configs) or [Config({})]
        # What the configs give the kernel, which a launch may not give too.
        self.config_names = {k for c in self.configs for k in c.all_kwargs()}
        # Names that are not arguments are left out, with a warning, as
        # Triton leaves them out (its tutorial 08 has a key with a typo).
        def arguments(names, role):
            for name in names or ():
                if name not in self.arg_names:
                    warnings.warn(f"autotune of {self.__name__}: {role} '{name}' is not an "
                                  f"argument of the kernel ({', '.join(self.arg_names)}); "
                                  "it is left out", RuntimeWarning, stacklevel=4)
            return [name for name in names or () if name in self.arg_names]
        self.keys = arguments(key, "key")
        reset_to_zero = arguments(reset_to_zero, "reset_to_zero")
        restore_value = arguments(restore_value, "restore_value")
        prune = dict(prune_configs_by or {})
        self.perf_model = prune.get("perf_model")
        self.top_k = prune.get("top_k", 1.0)
        self.early_config_prune = prune.get("early_config_prune")
        self.reset_to_zero = list(reset_to_zero or ())
        self.restore_value = list(restore_value or ())
        self.user_pre_hook = pre_hook
        self.post_hook = post_hook
        # Triton's: timings long enough to tell configs a few percent apart
        # on a GPU whose clocks still settle.
        self.warmup_ms = 25 if warmup is None else warmup
        self.rep_ms = 100 if rep is None else rep
        self.use_cuda_graph = use_cuda_graph
        self.custom_bench = do_bench
        self.cache_results = cache_results
        self.cache = {}  # launch key -> Config
        self.best_config = None
        self.configs_timings = None
        knobs._jit_functions.add(self)

    def forget_compiled(self):
        """Drops the configs chosen in this process (a knob that changes
        compiled code was set): the next launch looks again, in the disk
        cache under the knobs' values, else by tuning."""
        self.cache.clear()

    # -- what the tuning is keyed by ------------------------------------

    def _where(self, args, kwargs):
        """(compile target or "host", the device's description)."""
        device = self.jit.device_of(*args, **kwargs)
        if device is None:
            return "host", "host interpreter"
        return gpu.target(device), gpu.device_name(device)

    def _launch_key(self, named, where):
        """What decides the config: the key arguments' values, the arrays'
        dtypes, and where the launch runs."""
        values = tuple(_key_part(named[k]) for k in self.keys if k in named)
        dtypes = tuple(str(v.dtype) for v in named.values()
                       if hasattr(v, "dtype") and hasattr(v, "shape"))
        return values, dtypes, where

    @staticmethod
    def _tuning_key(launch_key):
        """The launch key as the JSON that names stored results."""
        values, dtypes, where = launch_key
        return json.dumps({"key": list(values), "dtypes": list(dtypes), "target": where[0],
                           "device": where[1], "knobs": knobs._compiling_values()},
                          sort_keys=True)

    def _cache_file(self, tuning_key):
        directory = _cache_directory()
        if not directory or not (self.cache_results and knobs.autotuning.cache):
            return None
        identity = json.dumps([self.jit.cache_key, _tessera.compiler_build(), tuning_key])
        digest = hashlib.sha256(identity.encode()).hexdigest()[:32]
        return os.path.join(directory, f"{self.__name__}-{digest}.json")

    def _load(self, path):
        """The stored winner; None where there is none, or where what is
        stored is unreadable or names no config of the list, which is
        reported and removed (the launch tunes again and stores anew)."""
        if path is None or not os.path.exists(path):
            return None
        try:
            with open(path) as f:
                stored = json.load(f)
            best = stored.get("best") if isinstance(stored, dict) else None
            for config in self.configs:
                if config.describe() == best:
                    return config
        except (OSError, ValueError, RecursionError) as e:
            problem = f"cannot be read ({type(e).__name__}: {e})"
        else:
            problem = ("has no 'best' config" if not isinstance(best, dict) else
                       "names a best config that is not among the kernel's configs")
        warnings.warn(f"tessera: the tuning result {path} {problem}; removed, tuning again",
                      RuntimeWarning, stacklevel=4)
        try:
            os.remove(path)
        except OSError:
            pass
        return None

    def _store(self, path, tuning_key, best, timings):
        if path is None:
            return
        try:
            record = {"kernel": self.__name__, "tuning_key": json.loads(tuning_key),
                      "best": best.describe(),
                      "timings": [[c.describe(), t] for c, t in timings.items()]}
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
            try:
                with os.fdopen(fd, "w") as f:
                    json.dump(record, f, indent=1)
                os.replace(temporary, path)  # whole or absent, never half-written
            except BaseException:
                os.unlink(temporary)
                raise
        except (OSError, ValueError, RecursionError) as e:
            warnings.warn(f"tessera: cannot store the tuning result in {path}: {e}",
                          RuntimeWarning, stacklevel=4)

    # -- tuning ----------------------------------------------------------

    def prune_configs(self, named, configs, kwargs):
        """`configs` less those `early_config_prune` drops (called as
        Triton calls it, with the launch's keyword arguments as keywords
        too) and, with a `perf_model`, all but its `top_k` fastest."""
        if self.early_config_prune:
            configs = list(self.early_config_prune(configs, named, **kwargs))
            if not configs:
                raise ValueError(f"{self.__name__}: no configs left after early_config_prune; "
                                 "it must keep at least one")
        if self.perf_model:
            top_k = self.top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = int(len(configs) * top_k)
            top_k = max(1, top_k)
            if len(configs) > top_k:
                estimates = {c: self.perf_model(**named, **c.all_kwargs()) for c in configs}
                configs = sorted(configs, key=estimates.get)[:top_k]
        return configs

    def _distinct(self, configs, target):
        """The configs that compile differently on `target`, in order."""
        if target == "host":
            return configs
        seen, kept = set(), []
        for config in configs:
            options = _tessera.options_for_target(
                target, config.num_warps, config.num_stages, config.waves_per_eu,
                config.vendor_options["matrix_instr_nonkdim"], config.vendor_options["kpack"])
            identity = (json.dumps(config.kwargs, sort_keys=True, default=repr), options,
                        config.maxnreg)
            if identity not in seen:
                seen.add(identity)
                kept.append(config)
        return kept

    def _compile_all(self, configs, args, kwargs, named, target):
        """Compiles every config, the binaries in parallel; returns {config:
        error or None}. A config's pre_hook may change the arguments (a
        tensor descriptor's block), so each runs before its config's
        specialisation is taken, one config at a time."""
        errors = (CompilationError, TypeError, ValueError, RuntimeError)

        def specialise(config):
            try:
                if config.pre_hook:
                    config.pre_hook({**named, **config.all_kwargs()})
                return self.fn.warmup(*args, **kwargs, **config.all_kwargs())
            except errors as e:
                return e

        def build(kernel):
            if isinstance(kernel, Exception):
                return kernel
            try:
                if target != "host":
                    kernel.binary_for(target)
            except errors as e:
                return e
            return None

        kernels = [specialise(config) for config in configs]
        workers = max(1, min(len(configs), os.cpu_count() or 1))
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            return dict(zip(configs, pool.map(build, kernels)))

    def _bench(self, config, args, kwargs, named, grid):
        def call():
            for name in self.reset_to_zero:
                _zero(named[name])
            if config.pre_hook:
                config.pre_hook({**named, **config.all_kwargs()})
            if self.user_pre_hook:
                self.user_pre_hook(named)
            self.fn.run(*args, grid=grid, **kwargs, **config.all_kwargs())
            if self.post_hook:
                self.post_hook(named, None)

        from .. import testing
        quantiles = (0.5, 0.2, 0.8)
        if self.custom_bench is not None:
            times = self.custom_bench(call, quantiles=quantiles)
        elif self.use_cuda_graph:
            times = testing.do_bench_cudagraph(call, rep=self.rep_ms, quantiles=quantiles)
        else:
            times = testing.do_bench(call, warmup=self.warmup_ms, rep=self.rep_ms,
                                     quantiles=quantiles)
        return list(times) if isinstance(times, (list, tuple)) else [times]

    # Configs timed within this fraction of the fastest are timed again.
    FINALIST_MARGIN = 0.03
    FINALISTS = 4

    def _tune(self, configs, args, kwargs, named, grid, target):
        """The fastest config and every config's times. One pass over many
        configs drifts with the GPU's clocks, so the few within
        FINALIST_MARGIN of the fastest are timed again, in the opposite
        order, and each keeps its faster pass."""
        printing = knobs.autotuning.print
        start = time.perf_counter()
        failures = self._compile_all(configs, args, kwargs, named, target)
        saved = {name: _copy(named[name]) for name in self.restore_value}
        timings = {}

        def time_all(order, final):
            for done, config in enumerate(order, 1):
                error = failures[config]
                if error is None:
                    try:
                        times = self._bench(config, args, kwargs, named, grid)
                        if config not in timings or times[0] < timings[config][0]:
                            timings[config] = times
                    except (CompilationError, RuntimeError, ValueError) as e:
                        error = e
                    finally:
                        for name, value in saved.items():
                            _restore(named[name], value)
                if error is not None:
                    first_line = str(error).strip().splitlines()[0] if str(error) else ""
                    warnings.warn(f"tessera: autotuning {self.__name__}: config {config} "
                                  f"skipped: {type(error).__name__}: {first_line}",
                                  RuntimeWarning, stacklevel=5)
                elapsed = time.perf_counter() - start
                if printing or elapsed > 2.0:
                    what = "finalists" if final else "configs"
                    sys.stderr.write(f"tessera: tuning {self.__name__}: {done}/{len(order)} "
                                     f"{what}, {elapsed:.1f} s\n")

        try:
            time_all(configs, final=False)
            if timings:
                fastest = min(times[0] for times in timings.values())
                finalists = sorted((c for c in timings
                                    if timings[c][0] <= fastest * (1 + self.FINALIST_MARGIN)),
                                   key=lambda c: timings[c][0])[:self.FINALISTS]
                if len(finalists) > 1:
                    time_all(finalists[::-1], final=True)
        finally:
            # The launch that follows sees what the caller passed.
            for name, value in saved.items():
                _restore(named[name], value)
            for name in self.reset_to_zero:
                _zero(named[name])
        if not timings:
            raise RuntimeError(f"autotuning {self.__name__}: no config compiled and ran "
                               "(see the warnings)")
        best = min(timings, key=lambda c: timings[c][0])
        if printing:
            for config, times in timings.items():
                print(f"tessera: {self.__name__}: {times[0]:.4f} ms  {config}")
            print(f"tessera: {self.__name__}: best config {best} "
                  f"({time.perf_counter() - start:.2f} s of tuning)")
        return best, timings

    # -- launching -------------------------------------------------------

    def _choose(self, args, kwargs, grid):
        named = self._named(args, kwargs)
        taken = self.config_names & set(kwargs)
        if taken:
            raise ValueError(f"{self.__name__}: {', '.join(sorted(taken))} given at launch "
                             "and by the autotuner's configs; leave them to the configs")
        where = self._where(args, kwargs)
        launch_key = self._launch_key(named, where)
        config = self.cache.get(launch_key)
        if config is not None:
            return config
        tuning_key = self._tuning_key(launch_key)
        path = self._cache_file(tuning_key)
        retune = os.environ.get("TESSERA_RETUNE", "0") not in ("", "0")
        configs = self.prune_configs(named, self.configs, kwargs)
        config = None if retune else self._load(path)
        if config is not None:
            if knobs.autotuning.print:
                print(f"tessera: {self.__name__}: best config {config} (stored)")
        elif len(configs) == 1:
            config = configs[0]
        else:
            configs = self._distinct(configs, where[0])
            config, timings = self._tune(configs, args, kwargs, named, grid, where[0])
            self.configs_timings = timings
            self._store(path, tuning_key, config, timings)
        self.cache[launch_key] = config
        return config

    def run(self, *args, grid, **kwargs):
        config = self._choose(args, kwargs, grid)
        self.best_config = config
        if config.pre_hook:
            config.pre_hook({**self._named(args, kwargs), **config.all_kwargs()})
        return self.fn.run(*args, grid=grid, **kwargs, **config.all_kwargs())

    def warmup(self, *args, **kwargs):
        """Compiles every config for these arguments; returns the kernels."""
        configs = self.prune_configs(self._named(args, kwargs), self.configs, kwargs)
        return [self.fn.warmup(*args, **kwargs, **c.all_kwargs()) for c in configs]


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=False,
             do_bench=None, cache_results=True):
    """Decorates a kernel so that each launch runs the fastest of `configs`
    for the values of the `key` arguments (tuned at the first launch with
    new values). `reset_to_zero` names arguments zeroed before each timed
    run, `restore_value` ones restored after tuning; `prune_configs_by`
    takes Triton's 'perf_model', 'top_k' and 'early_config_prune'; `warmup`
    and `rep` are do_bench's milliseconds; `do_bench` replaces the timing."""
    def decorator(fn):
        return Autotuner(fn, configs, key, prune_configs_by, reset_to_zero, restore_value,
                         pre_hook, post_hook, warmup, rep, use_cuda_graph, do_bench,
                         cache_results)
    return decorator


__all__ = ["Autotuner", "Config", "Heuristics", "autotune", "heuristics"]

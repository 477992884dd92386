"""@tessera.autotune and @tessera.heuristics: the fastest config is chosen,
results persist across restarts, failing configs are skipped, and arguments
are reset or restored around the timed runs."""

import json
import os
import warnings

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera import _tessera


@tessera.jit
def repeat_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr, REPEAT: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    for _ in range(REPEAT):
        tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


def grid(meta):
    return (tessera.cdiv(meta["n"], meta["BLOCK"]),)


@pytest.fixture
def tuning_cache(tmp_path, monkeypatch):
    """A tuning cache of the test's own."""
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TESSERA_RETUNE", raising=False)
    return tmp_path / "autotune"


class CostTable:
    """A do_bench that reports a set time for each config (found from the
    REPEAT its pre_hook saw), and counts the timings."""

    def __init__(self, costs):
        self.costs, self.seen, self.timed = costs, None, []

    def hook(self, args):
        self.seen = args["REPEAT"]

    def configs(self, *repeats):
        return [tessera.Config({"BLOCK": 128, "REPEAT": r}, pre_hook=self.hook) for r in repeats]

    def __call__(self, fn, quantiles=None):
        fn()
        cost = self.costs[self.seen]
        if isinstance(cost, list):  # the time of each timing in turn
            cost = cost[self.timed.count(self.seen)]
        self.timed.append(self.seen)
        return [cost, cost, cost]


def tuned(table, *repeats, **options):
    return tessera.autotune(table.configs(*repeats), key=["n"], do_bench=table,
                            **options)(repeat_copy)


def test_configs_close_to_the_fastest_are_timed_again(tuning_cache):
    # One pass drifts with the clocks: the configs within 3% of the fastest
    # are timed again, in the opposite order, and each keeps its faster
    # time.
    table = CostTable({1: [1.00, 1.06], 2: [1.02, 0.99], 4: [1.5], 8: [1.01, 1.01]})
    kernel = tuned(table, 1, 2, 4, 8)
    x = np.arange(1000, dtype=np.float32)
    kernel[grid](x, np.zeros_like(x), 1000)
    assert table.timed == [1, 2, 4, 8, 2, 8, 1]
    assert kernel.best_config.kwargs == {"BLOCK": 128, "REPEAT": 2}
    assert kernel.configs_timings[kernel.best_config][0] == 0.99


def test_the_fastest_config_wins(tuning_cache):
    table = CostTable({1: 3.0, 4: 1.0, 16: 2.0})
    kernel = tuned(table, 1, 4, 16)
    x = np.arange(1000, dtype=np.float32)
    y = np.zeros_like(x)
    kernel[grid](x, y, 1000)
    assert sorted(table.timed) == [1, 4, 16]
    assert kernel.best_config.kwargs == {"BLOCK": 128, "REPEAT": 4}
    np.testing.assert_array_equal(y, x)
    # The same key: no tuning. A new key value: tuned for it.
    kernel[grid](x, y, 1000)
    assert len(table.timed) == 3
    kernel[grid](x, y, 999)
    assert len(table.timed) == 6


def test_real_timings_choose_the_best_config(tuning_cache):
    """Measured (not mocked) timings: every config is timed, and the one
    chosen is the one measured fastest (which that is, timing decides)."""
    kernel = tessera.autotune(
        [tessera.Config({"BLOCK": 256, "REPEAT": r}) for r in (64, 1, 16)],
        key=["n"], warmup=1, rep=5)(repeat_copy)
    x = np.arange(4096, dtype=np.float32)
    y = np.zeros_like(x)
    kernel[grid](x, y, 4096)
    np.testing.assert_array_equal(y, x)
    times = {c.kwargs["REPEAT"]: t[0] for c, t in kernel.configs_timings.items()}
    assert sorted(times) == [1, 16, 64]
    assert all(t > 0 for t in times.values())
    assert kernel.best_config.kwargs["REPEAT"] == min(times, key=times.get)


def test_results_persist_across_restarts(tuning_cache, monkeypatch):
    x = np.arange(512, dtype=np.float32)
    y = np.zeros_like(x)
    first = CostTable({1: 2.0, 4: 1.0})
    tuned(first, 1, 4)[grid](x, y, 512)
    [stored] = list(tuning_cache.iterdir())
    record = json.loads(stored.read_text())
    assert record["best"]["kwargs"] == {"BLOCK": 128, "REPEAT": 4}
    assert record["tuning_key"]["key"] == ["512"]
    assert len(record["timings"]) == 2

    # A new process (a new autotuner): the stored winner, no timing, even
    # with a config added.
    again = CostTable({1: 2.0, 4: 1.0, 16: 0.5})
    kernel = tuned(again, 1, 4, 16)
    kernel[grid](x, y, 512)
    assert again.timed == []
    assert kernel.best_config.kwargs["REPEAT"] == 4
    # Asked to tune again, it does, and stores the new winner.
    monkeypatch.setenv("TESSERA_RETUNE", "1")
    kernel = tuned(again, 1, 4, 16)
    kernel[grid](x, y, 512)
    assert sorted(again.timed) == [1, 4, 16]
    assert json.loads(stored.read_text())["best"]["kwargs"]["REPEAT"] == 16
    # A winner no longer in the list: reported, and tuned again.
    monkeypatch.delenv("TESSERA_RETUNE")
    removed = CostTable({1: 2.0, 4: 1.0})
    with pytest.warns(RuntimeWarning, match="names a best config that is not among"):
        tuned(removed, 1, 4)[grid](x, y, 512)
    assert sorted(removed.timed) == [1, 4]


@pytest.mark.parametrize("content, problem", [
    ('{"best": ', "cannot be read (JSONDecodeError"),
    ("[" * 100000 + "]" * 100000, "cannot be read (RecursionError"),
    (b"\xff\xfe", "cannot be read (UnicodeDecodeError"),
    ('{"best": 3}', "has no 'best' config"),
    ('[{"best": 3}]', "has no 'best' config"),
    ('{"kernel": "repeat_copy"}', "has no 'best' config"),
    ('{"best": {"kwargs": {"BLOCK": 128, "REPEAT": 99}, "num_warps": 4}}',
     "names a best config that is not among the kernel's configs"),
], ids=["truncated", "deeply-nested", "not-utf8", "number", "list", "no-best", "unknown-best"])
def test_an_invalid_result_is_reported_once_removed_and_tuned_again(tuning_cache, content,
                                                                     problem):
    x = np.arange(256, dtype=np.float32)
    y = np.zeros_like(x)
    tuned(CostTable({1: 2.0, 4: 1.0}), 1, 4)[grid](x, y, 256)
    [stored] = list(tuning_cache.iterdir())
    if isinstance(content, bytes):
        stored.write_bytes(content)
    else:
        stored.write_text(content)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):  # the second launch of a new process finds the new result
            table = CostTable({1: 2.0, 4: 1.0})
            tuned(table, 1, 4)[grid](x, y, 256)
    reported = [str(w.message) for w in caught if "tuning result" in str(w.message)]
    assert len(reported) == 1, reported
    assert f"the tuning result {stored} {problem}" in reported[0]
    assert reported[0].endswith("; removed, tuning again")
    assert table.timed == []
    assert json.loads(stored.read_text())["best"]["kwargs"]["REPEAT"] == 4
    assert not [p for p in tuning_cache.iterdir() if p.suffix == ".tmp"]
    np.testing.assert_array_equal(y, x)


def test_no_disk_cache_when_disabled(tuning_cache, monkeypatch):
    x = np.arange(256, dtype=np.float32)
    y = np.zeros_like(x)
    tuned(CostTable({1: 2.0, 4: 1.0}), 1, 4, cache_results=False)[grid](x, y, 256)
    assert not tuning_cache.exists()
    monkeypatch.setenv("TESSERA_CACHE_DIR", "")
    tuned(CostTable({1: 2.0, 4: 1.0}), 1, 4)[grid](x, y, 256)
    assert not tuning_cache.exists()


def test_a_config_that_fails_to_compile_is_skipped(tuning_cache):
    configs = [tessera.Config({"BLOCK": 100, "REPEAT": 1}),  # not a power of two
               tessera.Config({"BLOCK": 128, "REPEAT": 1})]
    kernel = tessera.autotune(configs, key=["n"], warmup=1, rep=2)(repeat_copy)
    x = np.arange(300, dtype=np.float32)
    y = np.zeros_like(x)
    with pytest.warns(RuntimeWarning, match=r"BLOCK: 100.*skipped: CompilationError"):
        kernel[grid](x, y, 300)
    assert kernel.best_config.kwargs["BLOCK"] == 128
    np.testing.assert_array_equal(y, x)


def test_every_config_failing_is_an_error(tuning_cache):
    configs = [tessera.Config({"BLOCK": b, "REPEAT": 1}) for b in (100, 200)]
    kernel = tessera.autotune(configs, key=["n"], warmup=1, rep=2)(repeat_copy)
    x = np.zeros(8, np.float32)
    with pytest.warns(RuntimeWarning), pytest.raises(RuntimeError, match="no config compiled"):
        kernel[grid](x, x, 8)


@tessera.jit
def accumulate(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.atomic_add(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


@tessera.jit
def increment(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1, mask=mask)


def test_reset_to_zero_and_restore_value(tuning_cache):
    configs = [tessera.Config({"BLOCK": b}) for b in (64, 128)]
    x = np.arange(200, dtype=np.float32)
    out = np.zeros_like(x)
    tessera.autotune(configs, key=["n"], reset_to_zero=["out_ptr"], warmup=1, rep=3)(
        accumulate)[grid](x, out, 200)
    np.testing.assert_array_equal(out, x)  # the timed runs' sums were reset

    values = np.arange(200, dtype=np.float32)
    tessera.autotune(configs, key=["n"], restore_value=["x_ptr"], warmup=1, rep=3)(
        increment)[grid](values, 200)
    np.testing.assert_array_equal(values, np.arange(200) + 1)  # one increment, not dozens


def test_autotune_checks_its_arguments():
    # Names that are not arguments are left out with a warning (Triton
    # leaves them out; its tutorial 08 relies on it).
    with pytest.warns(RuntimeWarning, match="reset_to_zero 'outt' is not an argument"):
        kernel = tessera.autotune([tessera.Config({"BLOCK": 64, "REPEAT": 1})], key=["size", "n"],
                                  reset_to_zero=["outt"])(repeat_copy)
    assert kernel.keys == ["n"] and kernel.reset_to_zero == []
    with pytest.raises(TypeError, match="unknown option colour"):
        tessera.Config({}, colour=3)
    kernel = tessera.autotune([tessera.Config({"BLOCK": 64, "REPEAT": 1})], key=["n"])(
        repeat_copy)
    x = np.zeros(8, np.float32)
    with pytest.raises(ValueError, match="BLOCK given at launch and by the autotuner"):
        kernel[grid](x, x, 8, BLOCK=64)


def test_pruning(tuning_cache):
    table = CostTable({1: 3.0, 2: 2.0, 4: 1.0, 8: 0.5})
    kernel = tessera.autotune(
        table.configs(1, 2, 4, 8), key=["n"], do_bench=table,
        prune_configs_by={"early_config_prune": lambda configs, args: [
                              c for c in configs if c.kwargs["REPEAT"] != 8],
                          "perf_model": lambda **kw: kw["REPEAT"], "top_k": 2})(repeat_copy)
    x = np.zeros(64, np.float32)
    kernel[grid](x, x, 64)
    assert sorted(table.timed) == [1, 2]  # 8 pruned early, 4 by the model
    assert kernel.best_config.kwargs["REPEAT"] == 2


def test_early_prune_gets_the_launch_keywords_as_triton_passes_them(tuning_cache):
    # Tutorial 06's form: prune(configs, named_args, **kwargs), reading an
    # argument given by keyword from kwargs.
    seen = []

    def prune(configs, named_args, **kwargs):
        seen.append((sorted(named_args), sorted(kwargs)))
        return [c for c in configs if c.kwargs["REPEAT"] <= kwargs["n"] // 32]

    table = CostTable({1: 3.0, 2: 2.0, 4: 1.0})
    kernel = tessera.autotune(table.configs(1, 2, 4), key=["n"], do_bench=table,
                              prune_configs_by={"early_config_prune": prune})(repeat_copy)
    x = np.zeros(64, np.float32)
    kernel[grid](x, x, n=64)
    assert seen[0] == (["n", "x_ptr", "y_ptr"], ["n"])
    assert sorted(table.timed) == [1, 2] and kernel.best_config.kwargs["REPEAT"] == 2
    empty = tessera.autotune(table.configs(1, 2), key=["n"], do_bench=table,
                             prune_configs_by={"early_config_prune": lambda c, a, **k: []})(
        repeat_copy)
    with pytest.raises(ValueError, match="no configs left after early_config_prune"):
        empty[grid](x, x, 64)


def test_results_are_kept_per_value_of_the_compiling_knobs(tuning_cache, monkeypatch):
    # A result tuned on mma.sync is not the one for wgmma: each value of a
    # knob that changes the code (a child process's, say) tunes anew.
    monkeypatch.delenv("TESSERA_DISABLE_MMA_V3", raising=False)
    monkeypatch.delenv("DISABLE_MMA_V3", raising=False)
    x = np.zeros(64, np.float32)
    table = CostTable({1: 2.0, 4: 1.0})
    kernel = tuned(table, 1, 4)
    kernel[grid](x, x, 64)
    assert sorted(table.timed) == [1, 4]
    with tessera.knobs.nvidia.scope():
        tessera.knobs.nvidia.disable_mma_v3 = True
        kernel[grid](x, x, 64)  # in this process
        assert sorted(table.timed) == [1, 1, 4, 4]
        tuned(table, 1, 4)[grid](x, x, 64)  # stored for it
        assert sorted(table.timed) == [1, 1, 4, 4]
    monkeypatch.setenv("DISABLE_MMA_V3", "1")  # as a child process starts
    tuned(table, 1, 4)[grid](x, x, 64)
    assert sorted(table.timed) == [1, 1, 4, 4]
    monkeypatch.delenv("DISABLE_MMA_V3")
    tuned(table, 1, 4)[grid](x, x, 64)  # stored for the default
    assert sorted(table.timed) == [1, 1, 4, 4]


def test_printing(tuning_cache, monkeypatch, capsys):
    monkeypatch.setenv("TESSERA_PRINT_AUTOTUNING", "1")
    x = np.zeros(64, np.float32)
    tuned(CostTable({1: 2.0, 4: 1.0}), 1, 4)[grid](x, x, 64)
    out = capsys.readouterr()
    assert "repeat_copy: 2.0000 ms  BLOCK: 128, REPEAT: 1" in out.out
    assert "best config BLOCK: 128, REPEAT: 4, num_warps: 4, num_stages: 3" in out.out
    assert "repeat_copy: 2/2 configs" in out.err
    tuned(CostTable({1: 2.0, 4: 1.0}), 1, 4)[grid](x, x, 64)
    assert "(stored)" in capsys.readouterr().out


def test_heuristics_alone_and_under_autotune(tuning_cache):
    kernel = tessera.heuristics({"BLOCK": lambda args: tessera.next_power_of_2(args["n"])})(
        tessera.jit(repeat_copy.fn))
    x = np.arange(100, dtype=np.float32)
    y = np.zeros_like(x)
    kernel[(1,)](x, y, 100, REPEAT=1)
    np.testing.assert_array_equal(y, x)
    assert kernel.warmup(x, y, 100, REPEAT=1).asm["tile"].count("tensor<128x") > 0

    table = CostTable({1: 2.0, 2: 1.0})
    stacked = tessera.autotune(
        [tessera.Config({"REPEAT": r}, pre_hook=table.hook) for r in (1, 2)],
        key=["n"], do_bench=table)(kernel)
    y[:] = 0
    stacked[(1,)](x, y, 100)
    assert stacked.best_config.kwargs == {"REPEAT": 2}
    np.testing.assert_array_equal(y, x)


def test_one_config_list_serves_both_vendors():
    # Options each backend compiles with: warps within a 1024-thread block,
    # num_stages (at most 2 on AMD, which prefetches into registers),
    # waves_per_eu, matrix_instr_nonkdim and kpack for AMD only.
    assert _tessera.options_for_target("cuda:90", 8, 4, 2, 16, 2) == (8, 4, 0, 0, 1)
    assert _tessera.options_for_target("cuda:80", 4, 0, 0) == (4, 1, 0, 0, 1)
    assert _tessera.options_for_target("hip:gfx942", 32, 3, 2, 16, 2) == (16, 2, 2, 16, 2)
    assert _tessera.options_for_target("hip:gfx1100", 32, 1, 0) == (32, 1, 0, 0, 1)
    configs = [tessera.Config({"BLOCK": 128}, num_warps=w, num_stages=s, waves_per_eu=e)
               for w, s, e in [(4, 2, 0), (4, 3, 0), (16, 3, 0), (32, 3, 0), (4, 3, 2)]]
    configs.append(tessera.Config({"BLOCK": 128}, num_warps=4, num_stages=2, kpack=2))
    tuner = tessera.autotune(configs, key=["n"])(repeat_copy)
    # Configs that differ only in num_stages compile differently for NVIDIA;
    # only in AMD's options, alike.
    assert tuner._distinct(configs, "cuda:90") == configs[:4]
    assert tuner._distinct(configs, "hip:gfx942") == [configs[0], configs[2], configs[4],
                                                      configs[5]]
    assert tuner._distinct(configs, "host") == configs


@pytest.mark.parametrize("target", ["cuda:90", "hip:gfx942"])
def test_configs_compile_in_parallel_threads(target):
    configs = [tessera.Config({"BLOCK": b, "REPEAT": r}, num_warps=w)
               for b in (128, 256, 512) for r in (1, 2) for w in (2, 4)]
    tuner = tessera.autotune(configs, key=["n"])(repeat_copy)
    x = np.zeros(1024, np.float32)
    errors = tuner._compile_all(configs, (x, x, 1024), {}, {}, target)
    assert errors == {c: None for c in configs}
    for config in configs:
        kernel = repeat_copy.warmup(x, x, 1024, **config.all_kwargs())
        assert kernel.binary_for(target).assembly


def test_configs_of_any_values_are_stored():
    config = tessera.Config({"DTYPE": tl.float16, "BLOCK": 64}, num_warps=2, waves_per_eu=1)
    stored = json.loads(json.dumps(config.describe()))
    assert stored == config.describe()
    assert stored["kwargs"] == {"DTYPE": repr(tl.float16), "BLOCK": 64}
    assert str(config) == "DTYPE: float16, BLOCK: 64, num_warps: 2, num_stages: 3, waves_per_eu: 1"

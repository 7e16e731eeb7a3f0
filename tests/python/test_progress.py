"""What a profile shows while it runs (kprof.progress), without a GPU.

The display gets the events the core sends during a profile: its log lines and one
``run_done(config)`` per run. Here they are replayed in the shape of a real recording's sweep
(the H200 matmul sweep: 4 configs x 20 runs), with the core's own line formats, on a fake
clock; the GPU test at the end runs the real thing.
"""

from __future__ import annotations

import io
import sys
import types

import kprof
import pytest
from conftest import DATA, gpu_available
from kprof import progress
from kprof.progress import CONFIG_LINE, ProgressDisplay, choose_mode, format_seconds

INFO, DEBUG, SILENT = (
    kprof.VerbosityLevel.INFO,
    kprof.VerbosityLevel.DEBUG,
    kprof.VerbosityLevel.SILENT,
)


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


class Tty(io.StringIO):
    encoding = "utf-8"

    def isatty(self) -> bool:
        return True


@pytest.fixture(scope="module")
def sweep():
    r = kprof.load(DATA / "h200-torch-matmul-sweep-2026-11-30.json")
    configs = [
        ", ".join(f"{k}={v}" for k, v in zip(r.parameters, c, strict=True)) for c in r.configs
    ]
    return r.session, configs, r.session["runs"]


def replay(display: ProgressDisplay, clock: Clock, session, configs, runs, fail_at=None):
    """The core's events for a sweep: the header, runs, one line per finished config."""
    display.line(
        f"[kprof] profiling {len(configs)} config(s) x {runs} run(s) on {session['gpu']} "
        f"({session['backend']}, cache_control={session['cache_control']})"
    )
    for c, params in enumerate(configs):
        for r in range(runs):
            if fail_at == (c, r):
                display.close(failed=True)
                return
            clock.t += 0.05
            display.run_done(c)
        display.line(
            f"[kprof] config {c + 1}/{len(configs)} ({params}): {runs} run(s), {runs * 0.05:.2f} s"
        )
    display.close(failed=False)


def test_the_core_line_format_is_recognised():
    m = CONFIG_LINE.match("[kprof] config 3/4 (n=2048, dtype=fp16): 20 run(s), 1.23 s")
    assert m and m["index"] == "3" and m["count"] == "4" and m["params"] == "n=2048, dtype=fp16"
    m = CONFIG_LINE.match("[kprof] config 1/2 (n=1): 7 run(s) (stopped by interval), 0.50 s")
    assert m and m["runs"] == "7" and m["why"] == "stopped by interval"
    assert CONFIG_LINE.match("[kprof] config 1/1: 5 run(s), 0.01 s elapsed")  # older cores
    assert not CONFIG_LINE.match("[kprof] config 1/1: stopped early")


def test_terminal_bar_replaces_the_per_config_lines(sweep):
    session, configs, runs = sweep
    out, clock = Tty(), Clock()
    d = ProgressDisplay("matmul", configs, runs, "bar", stream=out, clock=clock)
    replay(d, clock, session, configs, runs)
    text = out.getvalue()
    assert "\r" in text  # drawn in place
    assert text.count("[kprof] profiling 4 config(s) x 20 run(s) on NVIDIA H200") == 1
    assert "run(s), " not in text.replace("config(s), 80 run(s) in", "")  # no core config line
    frames = [f for f in text.replace("\n", "\r").split("\r") if "[kprof] matmul [" in f]
    assert frames, "no bar drawn"
    assert any("config 3/4 (n=2048)" in f and "ETA" in f for f in frames)
    assert all("█" in f or "░" in f for f in frames)
    assert max(len(f) for f in frames) < 100
    final = text.rstrip("\n").split("\n")[-1].split("\r")[-1].strip()
    assert final == "[kprof] matmul: 4 config(s), 80 run(s) in 4.0 s"


def test_bar_prints_other_lines_above_itself(sweep):
    _, configs, runs = sweep
    out, clock = Tty(), Clock()
    d = ProgressDisplay("matmul", configs, runs, "bar", stream=out, clock=clock)
    d.run_done(0)
    d.line("[kprof] something else the core says")
    d.run_done(0)
    d.close()
    lines = [seg for seg in out.getvalue().split("\n")]
    assert any(seg.split("\r")[-1] == "[kprof] something else the core says" for seg in lines)


def test_plain_lines_keep_the_cores_line_with_an_eta(sweep):
    """Configs of 1 s: the first and the last config's lines, none between (one per 5 s)."""
    session, configs, runs = sweep
    out, clock = io.StringIO(), Clock()
    d = ProgressDisplay("matmul", configs, runs, "lines", stream=out, clock=clock)
    replay(d, clock, session, configs, runs)
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue()
    assert all(line.startswith("[kprof] ") for line in lines)
    assert len(lines) == 1 + 2 + 1
    assert lines[1] == "[kprof] config 1/4 (n=512): 20 run(s), 1.00 s, ETA 3.0 s"
    assert lines[2] == "[kprof] config 4/4 (n=4096): 20 run(s), 1.00 s"  # no ETA
    assert lines[3] == "[kprof] matmul: 4 config(s), 80 run(s) in 4.0 s"


def test_plain_lines_of_a_long_sweep_come_every_few_seconds():
    """1,000 configs of 0.1 s: a line for the first, one per 5 s, and the last: 22, not 1,000."""
    configs = [f"i={i}" for i in range(1000)]
    out, clock = io.StringIO(), Clock()
    d = ProgressDisplay("sweep", configs, 1, "lines", stream=out, clock=clock)
    for c, params in enumerate(configs):
        clock.t += 0.1
        d.run_done(c)
        d.line(f"[kprof] config {c + 1}/1000 ({params}): 1 run(s), 0.10 s")
    d.close()
    lines = out.getvalue().splitlines()
    shown = [int(line.split()[2].split("/")[0]) for line in lines if " config " in line[:16]]
    assert shown[0] == 1 and shown[-1] == 1000
    assert 20 <= len(shown) <= 22
    assert all(b - a >= 49 for a, b in zip(shown[1:-2], shown[2:-1], strict=True))
    assert ", ETA " in lines[1]
    assert lines[-1] == "[kprof] sweep: 1000 config(s), 1000 run(s) in 1 min 40 s"


def test_debug_logs_every_step(sweep):
    session, configs, runs = sweep
    out, clock = io.StringIO(), Clock()
    d = ProgressDisplay("matmul", configs, runs, "debug", stream=out, clock=clock)
    replay(d, clock, session, configs, runs)
    lines = out.getvalue().splitlines()
    run_lines = [line for line in lines if " run " in line and "of config" in line]
    assert len(run_lines) == 80
    assert run_lines[0] == "[kprof] matmul: run 1/20 of config 1/4 (n=512) done, 0.05 s elapsed"
    assert sum(1 for line in lines if CONFIG_LINE.match(line)) == 4  # the core's, unchanged


def test_a_failed_profile_says_where_it_stopped(sweep):
    session, configs, runs = sweep
    out, clock = io.StringIO(), Clock()
    d = ProgressDisplay("matmul", configs, runs, "lines", stream=out, clock=clock)
    replay(d, clock, session, configs, runs, fail_at=(1, 5))
    assert out.getvalue().splitlines()[-1] == (
        "[kprof] matmul: stopped in config 2/4 after 25 run(s), 1.2 s"
    )


def test_nothing_when_it_failed_before_the_first_run():
    out = Tty()
    d = ProgressDisplay("bench", ["n=1"], 3, "bar", stream=out)
    d.close(failed=True)
    d.close(failed=True)  # once only
    assert out.getvalue() == ""


def test_a_config_the_core_ends_early_counts_as_done(sweep):
    _, configs, runs = sweep
    d = ProgressDisplay("matmul", configs, runs, "lines", stream=io.StringIO(), clock=Clock())
    for _ in range(5):
        d.run_done(0)
    assert d.fraction() == pytest.approx(5 / 80)
    d.run_done(1)  # config 0 stopped after 5 runs (a stopping rule)
    assert d.fraction() == pytest.approx((20 + 1) / 80)
    d.line("[kprof] config 2/4 (n=1024): 1 run(s), 0.10 s elapsed")
    assert d.fraction() == pytest.approx(40 / 80)


def test_with_a_stopping_rule_the_counts_are_upper_bounds(sweep):
    _, configs, _ = sweep
    out, clock = io.StringIO(), Clock()
    d = ProgressDisplay("m", configs, 100, "lines", stream=out, clock=clock, upper_bound=True)
    for _ in range(7):
        clock.t += 0.1
        d.run_done(0)
    d.line("[kprof] config 1/4 (n=512): 7 run(s) (stopped by interval), 0.70 s")
    assert out.getvalue() == (
        "[kprof] config 1/4 (n=512): 7 run(s) (stopped by interval), 0.70 s, ETA <= 2.1 s\n"
    )
    assert "run 7/<=400" in d.status()
    d.run_done(1)
    d.line("[kprof] config 2/4 (n=1024): 100 run(s) (stopped by max_runs), 0.70 s")
    d.close()
    assert out.getvalue().splitlines()[-1] == (
        "[kprof] m: 4 config(s), 8 run(s) in 0.70 s (stopped by interval: 1, max_runs: 1)"
    )


def test_format_seconds():
    assert format_seconds(0.123) == "0.12 s"
    assert format_seconds(4.56) == "4.6 s"
    assert format_seconds(42) == "42 s"
    assert format_seconds(185) == "3 min 05 s"
    assert format_seconds(3720) == "1 h 02 min"
    assert format_seconds(float("nan")) == "?"


def test_mode_follows_verbosity_and_terminal(monkeypatch):
    assert choose_mode(SILENT) is None
    assert choose_mode(DEBUG) == "debug"
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert choose_mode(INFO) == "lines"
    monkeypatch.setattr(sys, "stdout", Tty())
    assert choose_mode(INFO) == "bar"


def test_mode_in_a_notebook(monkeypatch):
    class ZMQInteractiveShell:  # the class name is what Jupyter kernels have
        pass

    fake = types.ModuleType("IPython")
    fake.get_ipython = lambda: ZMQInteractiveShell()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", fake)
    monkeypatch.setattr(progress, "_have_ipywidgets", lambda: False)
    assert choose_mode(INFO) == "lines"
    monkeypatch.setattr(progress, "_have_ipywidgets", lambda: True)
    assert choose_mode(INFO) == "widget"
    assert choose_mode(DEBUG) == "debug"


def test_notebook_widget(sweep, monkeypatch):
    ipywidgets = pytest.importorskip("ipywidgets")
    pytest.importorskip("IPython.display")
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda w: shown.append(w))
    session, configs, runs = sweep
    clock = Clock()
    d = ProgressDisplay("matmul", configs, runs, "widget", stream=io.StringIO(), clock=clock)
    replay(d, clock, session, configs, runs)
    (box,) = shown
    bar, label = box.children
    assert isinstance(bar, ipywidgets.IntProgress)
    assert bar.value == bar.max == 80 and bar.bar_style == "success"
    assert label.value == "matmul: 4 config(s), 80 run(s) in 4.0 s"


# --- through the core ---------------------------------------------------------------------------


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def line(self, text):
        self.calls.append(("line", text))

    def run_done(self, config):
        self.calls.append(("run_done", config))

    def close(self, failed):
        self.calls.append(("close", failed))


@pytest.mark.skipif(gpu_available(), reason="checks the path of a machine without a GPU")
def test_the_core_closes_the_display_when_the_profile_fails():
    from kprof import _core, errors

    rec = Recorder()
    _core._set_progress(rec)
    options = _core.Options()
    with pytest.raises(errors.NoGpuError):
        _core.profile(options, [], [[]], lambda i: None)
    assert rec.calls == [("close", True)]
    # Taken by that profile: the next one has no observer.
    with pytest.raises(errors.NoGpuError):
        _core.profile(options, [], [[]], lambda i: None)
    assert rec.calls == [("close", True)]


@pytest.mark.skipif(gpu_available(), reason="checks the path of a machine without a GPU")
def test_a_display_handed_over_once_the_options_are_checked_observes_the_call():
    from kprof import _core, errors

    rec = Recorder()
    with pytest.raises(errors.NoGpuError):  # the options pass; the GPU work fails
        _core.profile(_core.Options(), [], [[]], lambda i: None, lambda: _core._set_progress(rec))
    assert rec.calls == [("close", True)]


INTEGER_OPS = "smsp__sass_thread_inst_executed_op_integer_pred_on.sum"


@pytest.mark.skipif(gpu_available(), reason="checks the path of a machine without a GPU")
def test_a_call_the_core_refuses_starts_no_display(monkeypatch):
    """The metric names are checked before the progress starts: no bar for a refused call (a
    counter that only instrumented code counts is refused on any machine)."""
    started = []
    monkeypatch.setattr(kprof.progress, "make_display", lambda *a, **k: started.append(a))

    @kprof.analyze.kernel(configs=[1, 2], runs=3, metrics=[INTEGER_OPS])
    def refused(n):
        pass

    @kprof.analyze.kernel(configs=[1, 2], runs=3)
    def accepted(n):
        pass

    with pytest.raises(kprof.errors.OptionError, match="instrumenting"):
        refused()
    assert started == []
    with pytest.raises(kprof.errors.NoGpuError):
        accepted()
    assert len(started) == 1


@pytest.mark.skipif(gpu_available(), reason="checks the path of a machine without a GPU")
def test_no_gpu_prints_no_progress(capsys):
    @kprof.analyze.kernel(configs=[1, 2], runs=3)
    def bench(n):
        pass

    with pytest.raises(kprof.errors.NoGpuError):
        bench()
    assert capsys.readouterr().out == ""


def test_log_lines_outside_a_profile_still_go_to_stdout(capsys):
    kprof._core._set_progress(None)
    kprof._core._log_line("[kprof] a line from the core")
    assert capsys.readouterr().out == "[kprof] a line from the core\n"


@pytest.mark.gpu
def test_info_shows_each_config_once_with_an_eta(capsys):
    k = kprof._core.DemoKernels(1 << 22)
    k.scale(1 << 20)
    k.synchronize()

    @kprof.analyze.kernel(configs=[1 << 20, 1 << 21, 1 << 22], runs=4)
    def bench(n):
        with kprof.annotate("scale"):
            k.scale(n)

    bench()
    lines = capsys.readouterr().out.splitlines()  # not a TTY: plain lines
    assert lines[0].startswith("[kprof] profiling 3 config(s) x ")
    config_lines = [line for line in lines if line.startswith("[kprof] config ")]
    assert len(config_lines) == 2  # the first and the last: the sweep takes under 5 s
    assert config_lines[0].startswith("[kprof] config 1/3 (n=1048576): ")
    assert ", ETA " in config_lines[0] and ", ETA " not in config_lines[1]
    assert lines[-2].startswith("[kprof] profiling added ")  # disclose_overhead
    assert lines[-1].startswith("[kprof] bench: 3 config(s), ")
    assert len(lines) == 5


@pytest.mark.gpu
def test_debug_logs_every_run_of_a_real_profile(capsys):
    k = kprof._core.DemoKernels(1 << 20)

    @kprof.analyze.kernel(configs=[1 << 20], runs=3, verbosity=DEBUG)
    def bench(n):
        with kprof.annotate("scale"):
            k.scale(n)

    bench()
    out = capsys.readouterr().out
    assert out.count("[kprof] bench: run ") == 3


@pytest.mark.gpu
def test_range_replay_counts_runs_not_calls(capsys):
    """With counters the benchmark is called once per config unmeasured, and in range replay
    once per pass; the progress counts the measured runs only."""
    k = kprof._core.DemoKernels(1 << 20)
    metrics = ["sm__throughput.avg.pct_of_peak_sustained_elapsed", "dram__bytes_read.sum"]
    calls = []

    @kprof.analyze.kernel(configs=[1 << 19, 1 << 20], runs=3, metrics=metrics, replay_mode="range")
    def bench(n):
        calls.append(n)
        with kprof.annotate("scale"):
            k.scale(n)

    results = bench()
    passes = results.session["passes"]
    # An unmeasured call per config, the passes, an unprofiled call per config after them.
    assert len(calls) == 2 + passes * 6 + 2
    assert (
        capsys.readouterr().out.splitlines()[-1].startswith("[kprof] bench: 2 config(s), 6 run(s)")
    )

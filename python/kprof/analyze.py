# SPDX-License-Identifier: Apache-2.0
"""``kprof.analyze``: the ``kernel`` decorator that profiles a benchmark function over a sweep
of configurations, and ``ignore_failures`` for warm-up code. Drop-in for ``nsight.analyze``."""

from __future__ import annotations

import contextlib
import functools
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, TypeVar, overload

from kprof import tools
from kprof._native import core as _core
from kprof._options import Settings, check_arity, make_settings
from kprof.collectors import CollectorCalls, check_parameter_names
from kprof.configs import BoundConfigs, FunctionParams, bind, materialize
from kprof.errors import KprofError, OptionError, UserFunctionError
from kprof.results import ProfileResults
from kprof.stopping import StoppingRule
from kprof.verbosity import VerbosityLevel

__all__ = ["kernel", "ignore_failures", "plot"]

DeriveResult = float | tuple[float, str] | Mapping[str, float | tuple[float, str]]
F = TypeVar("F", bound=Callable[..., Any])


@contextlib.contextmanager
def ignore_failures() -> Iterator[None]:
    """Swallows any ``Exception`` raised inside the block (as nsight-python's).

    Meant for warm-up code outside annotations, e.g. the first call of an autotuner that may
    fail for some configs::

        @kprof.analyze.kernel(configs=sizes)
        def bench(n):
            with kprof.analyze.ignore_failures():
                warm_up(n)
            with kprof.annotate("kernel"):
                run(n)

    ``KeyboardInterrupt`` and ``SystemExit`` still propagate. Inside an annotation prefer
    ``kprof.annotate(name, ignore_failures=True)``, which also marks the run as failed so its
    value becomes NaN instead of measuring whatever ran before the failure.
    """
    try:
        yield
    except Exception:
        pass


class _Progress:
    """The front end's ``[kprof]`` output. The core logs the sweep's header and one line per
    config; ``start`` hands the core a :class:`kprof.progress.ProgressDisplay` that receives
    those lines and every finished run during the profile, and shows them as a progress bar
    (terminal, notebook) or plain lines (see :mod:`kprof.progress`). Python adds the lines
    only it knows (the options at DEBUG, the files written)."""

    def __init__(self, settings: Settings, options: Any) -> None:
        self.settings = settings
        self.options = options
        self.display: Any = None

    def say(self, line: str, level: VerbosityLevel = VerbosityLevel.INFO) -> None:
        if self.settings.verbosity >= level:
            print(f"[kprof] {line}", flush=True)

    def start(self, name: str, bound: BoundConfigs) -> None:
        from kprof.progress import make_display

        self.say(
            f"{name}: {len(bound.values)} config(s), options {self.options!r}",
            VerbosityLevel.DEBUG,
        )
        configs = [bound.describe(i) for i in range(len(bound.values))]
        stopping = getattr(self.settings, "stopping", None) is not None  # runs is max_runs
        self.display = make_display(
            name, configs, self.settings.runs, self.settings.verbosity, upper_bound=stopping
        )
        set_progress = getattr(_core, "_set_progress", None)  # absent from an older _core
        if set_progress is not None:
            set_progress(self.display)  # taken by the next _core.profile call

    def done(self, paths: Sequence[str]) -> None:
        for p in paths:
            self.say(f"wrote {p}")


def _wrap_partial(
    err: KprofError, bound: BoundConfigs, collected: CollectorCalls | None = None
) -> None:
    """Gives the error's partial results the original config objects (and the objects the
    info collectors returned)."""
    partial = getattr(err, "partial_results", None)
    if isinstance(partial, ProfileResults) and partial.parameters == bound.columns:
        with contextlib.suppress(ValueError):
            err.partial_results = ProfileResults(
                partial.core,
                bound.columns,
                bound.values,
                info_objects=collected.objects if collected is not None else None,
            )


def _warn_throttled(results: ProfileResults, name: str) -> None:
    """NVBench's throttle detection: runs whose measured SM clock was below the threshold
    share of the rated clock are counted per row (ThrottledRuns); say so once per call."""
    runs = results.core.runs_columns()
    flagged = [t for t in runs["throttled"] if t is not None]
    throttled = sum(1 for t in flagged if t)
    if throttled:
        share = results.session.get("throttle_threshold", float("nan"))
        warnings.warn(
            f"{name}: {throttled} of {len(flagged)} runs ran with the SM clock below "
            f"{100 * share:.0f}% of the rated clock (throttled): their values may be slow. See "
            "the ThrottledRuns and MeasuredClock columns, and runs_dataframe().",
            RuntimeWarning,
            stacklevel=4,
        )


class _KernelProfiler:
    """One decorated function: its settings, bound once, and the calls' counter."""

    def __init__(
        self,
        func: Callable[..., Any],
        settings: Settings,
        decorator_configs: Iterable[Any] | None,
    ) -> None:
        self.func = func
        self.settings = settings
        self.params = FunctionParams.of(func)
        self.decorator_configs = (
            None if decorator_configs is None else materialize(decorator_configs, "decoration")
        )
        self.call_id = 0  # goes up after each successful call (nsight-python's run id)
        check_parameter_names(settings.info_collectors or [], self.params.names, self.params.name)
        derive = settings.derive_metric
        if derive is not None:
            m, k = len(settings.metrics), len(self.params.params)
            check_arity(
                derive,
                m + k,
                "derive_metric",
                f"a function taking {m + k} arguments: {m} metric value"
                f"{'s' if m != 1 else ''} ({', '.join(settings.metrics)}) then {k} parameter "
                f"value{'s' if k != 1 else ''} ({', '.join(self.params.names) or 'none'})",
            )

    def _derive_wrapper(
        self, bound: BoundConfigs
    ) -> tuple[Callable[[list[float], int], Any] | None, str]:
        derive = self.settings.derive_metric
        if derive is None:
            return None, ""
        args = bound.derive_args

        def call_derive(values: list[float], config: int) -> Any:
            return derive(*values, *args[config])

        return call_derive, getattr(derive, "__name__", type(derive).__name__)

    def __call__(
        self, *args: Any, configs: Iterable[Any] | None = None, **kwargs: Any
    ) -> ProfileResults:
        bound = bind(
            self.params,
            args=args,
            kwargs=kwargs,
            call_configs=configs,
            decorator_configs=self.decorator_configs,
        )
        derive, derive_name = self._derive_wrapper(bound)
        collected = CollectorCalls(self.settings.info_collectors or [], bound.derive_args)
        options = self.settings.core_options(derive, derive_name, collected.core_collectors())
        progress = _Progress(self.settings, options)
        func = self.func
        calls = bound.calls
        returned: list[str] = []

        def run(index: int) -> None:
            call_args, call_kwargs = calls[index]
            if func(*call_args, **call_kwargs) is not None and not returned:
                returned.append(type(func).__name__)

        progress.start(self.params.name, bound)
        tools._profile_starts()
        try:
            core = _core.profile(options, bound.columns, bound.core_points(), run)
        except UserFunctionError as e:
            _wrap_partial(e, bound, collected)
            cause = e.__cause__
            if cause is None:
                raise
            config, run_index = e.config, e.run
            where = ""
            if config is not None and 0 <= config < len(bound.values):
                where = f" in config {config + 1}/{len(bound.values)} ({bound.describe(config)})"
            if run_index is not None:
                total = "" if self.settings.stopping is not None else f"/{self.settings.runs}"
                where += f", run {run_index + 1}{total}"
            raise UserFunctionError(
                f"{self.params.name} raised {type(cause).__name__}: {cause}{where}",
                config=config,
                run=run_index,
                partial_results=e.partial_results,
            ) from cause
        except KprofError as e:
            _wrap_partial(e, bound, collected)
            raise
        finally:
            _core._flush_log()

        results = ProfileResults(core, bound.columns, bound.values, info_objects=collected.objects)
        _warn_throttled(results, self.params.name)
        if returned:
            warnings.warn(
                f"Function '{self.params.name}' returns a value, but the return value of a "
                "function decorated with kprof.analyze.kernel is ignored; the ProfileResults "
                "object is returned instead.",
                RuntimeWarning,
                stacklevel=3,
            )
        paths: list[str] = []
        if self.settings.output_csv:
            paths = results.write_csv(
                self.settings.output_prefix, f"{self.params.name}-{self.call_id}"
            )
        self.call_id += 1
        progress.done(paths)
        return results


@overload
def kernel(_func: F) -> Callable[..., ProfileResults]: ...


@overload
def kernel(
    _func: None = None,
    *,
    configs: Iterable[Any] | None = None,
    runs: int | Literal["auto"] | StoppingRule = 1,
    derive_metric: Callable[..., DeriveResult] | None = None,
    normalize_against: str | None = None,
    verbosity: VerbosityLevel = VerbosityLevel.INFO,
    metrics: Sequence[str] = ["gpu__time_duration.sum"],  # noqa: B006
    ignore_kernel_list: Sequence[str] | None = None,
    clock_control: Literal["base", "none"] = "none",
    cache_control: Literal["all", "none"] = "all",
    replay_mode: Literal["kernel", "range", "application"] = "kernel",
    thermal_mode: Literal["auto", "manual", "off"] = "auto",
    thermal_wait: int | None = None,
    thermal_cont: int | None = None,
    thermal_timeout: int | None = None,
    thermal_device: int | None = None,
    combine_kernel_metrics: Callable[[float, float], float] | str | None = None,
    output_prefix: str | None = None,
    output_csv: bool = False,
    info_collectors: Sequence[Any] | None = None,
    per_kernel: bool = False,
) -> Callable[[F], Callable[..., ProfileResults]]: ...


def kernel(
    _func: Callable[..., Any] | None = None,
    *,
    configs: Iterable[Any] | None = None,
    runs: int | Literal["auto"] | StoppingRule = 1,
    derive_metric: Callable[..., DeriveResult] | None = None,
    normalize_against: str | None = None,
    verbosity: VerbosityLevel = VerbosityLevel.INFO,
    metrics: Sequence[str] = ["gpu__time_duration.sum"],  # noqa: B006 (nsight's default)
    ignore_kernel_list: Sequence[str] | None = None,
    clock_control: Literal["base", "none"] = "none",
    cache_control: Literal["all", "none"] = "all",
    replay_mode: Literal["kernel", "range", "application"] = "kernel",
    thermal_mode: Literal["auto", "manual", "off"] = "auto",
    thermal_wait: int | None = None,
    thermal_cont: int | None = None,
    thermal_timeout: int | None = None,
    thermal_device: int | None = None,
    combine_kernel_metrics: Callable[[float, float], float] | str | None = None,
    output_prefix: str | None = None,
    output_csv: bool = False,
    info_collectors: Sequence[Any] | None = None,
    per_kernel: bool = False,
) -> Any:
    """Profiles the GPU kernels a benchmark function launches, over a sweep of configurations.

    Works as ``@kernel``, ``@kernel()`` and ``@kernel(...)``, with nsight-python's options
    and defaults. The decorated function becomes
    ``bench(*args, configs=None, **kwargs) -> ProfileResults``: calling it runs the function
    ``runs`` times for every config and returns the statistics of the kernels launched inside
    :class:`kprof.annotate` regions, measured in this process through CUPTI (no Nsight Compute
    process, no relaunch of the script)::

        import kprof as nsight   # nsight-python scripts that time kernels run unchanged

        @nsight.analyze.kernel(configs=[(1024,), (2048,), (4096,)], runs=10)
        def matmul(n):
            a = torch.randn(n, n, device="cuda")
            b = torch.randn(n, n, device="cuda")
            with nsight.annotate("torch"):
                a @ b

        df = matmul().to_dataframe()

    Each run is a complete call of the function. Setup inside it (allocations, random data)
    runs every time but is not measured unless it is inside an annotation. The function's
    return value is ignored (a ``RuntimeWarning`` says so once per call).

    Every option is checked before any GPU work, most when the decorator is built, the configs
    when the function is called: an invalid value raises :class:`kprof.errors.OptionError`
    (also a ``ValueError``) naming the option, the value and what is valid; a capability this
    build or device lacks raises :class:`kprof.errors.UnsupportedError`; configs that do not fit the
    function raise :class:`kprof.errors.ConfigError`.

    Args:
        configs: The sweep: one entry per configuration, each a sequence of values mapped to
            the function's parameters in declaration order (keyword-only parameters are passed
            by keyword; trailing parameters with defaults may be left out). A function with
            one parameter also takes bare values, ``configs=[512, 1024]``. Any iterable works,
            generators included; it is read once, before profiling starts. May be given here
            or at call time (``bench(configs=...)``), not both. Positional arguments at call
            time form a single config (``bench(4096)``), and keyword arguments at call time
            fix parameters for every config (``bench(configs=[(1024,)], dtype="fp16")``;
            nsight-python rejects them). Parameter values of any type appear unchanged in the
            DataFrame's parameter columns. A function without parameters (or whose parameters
            all have defaults) needs no configs.
        runs: How many times each config is run (>= 1). More runs give a tighter confidence
            interval and reveal variance (``StdDev``, ``StableMeasurement``) at the cost of
            time. One run gives no spread: StdDev and the interval are NaN. kprof also takes
            ``"auto"``: each config runs until the 95% interval of its mean is within 1% of
            the mean for every annotation (5 to 100 runs, 15 s at most per config), or a
            :class:`kprof.StoppingRule` with other targets. ``RunsDone`` and ``StoppedBy``
            say how many runs each config took and why it stopped.
        derive_metric: A function computing metrics from the measured ones, called once per
            (annotation, config, run) as ``f(*metric_values, *parameter_values)`` (metric
            values in the order of ``metrics``, then every regular parameter of the decorated
            function in declaration order). It returns a number (a metric named after the
            function, with no unit: a ``UserWarning`` says so once), a ``(value, unit)``
            tuple, or a mapping ``name -> number | (value, unit)`` for several metrics. It is
            applied per run, before aggregation and normalization, so derived metrics get
            their own statistics. E.g. TFLOP/s of a matmul::

                def tflops(ns, n):
                    return 2 * n**3 / ns / 1e3, "TFLOP/s"

            Its arity is checked when the decorator is built, unless it takes ``*args``.
        normalize_against: Name of an annotation whose values every other annotation is
            divided by, per config and metric (e.g. ``"torch"`` to get speed-ups relative to a
            baseline). ``Normalized`` names the baseline and ``NormalizationValue`` holds its
            mean. Unlike nsight-python, kprof scales every statistic consistently.
            An unknown name raises :class:`kprof.errors.AnnotationError` after the sweep
            (with ``partial_results``).
        verbosity: :class:`kprof.VerbosityLevel`. ``INFO`` (default) prints a header and one
            ``[kprof]`` line per config; ``SILENT`` prints nothing; ``DEBUG`` also prints the
            options the core received.
        metrics: Metrics to collect. The default, ``gpu__time_duration.sum`` (kernel duration
            in ns), comes from CUPTI's activity records: no replay, no special permission,
            negligible overhead. Any other list (Nsight Compute's metric names, such as
            ``dram__bytes_read.sum`` or ``sm__throughput.avg.pct_of_peak_sustained_elapsed``,
            or metric sets, ``"set:memory"``) is measured in this process by CUPTI's range
            profiler, in as many passes as the list needs (``Passes``); durations are then
            the counter ``gpu__time_duration.sum``. Reading counters may need permission:
            :class:`kprof.errors.CounterPermissionError` says what to do. See
            docs/metrics.md.
        ignore_kernel_list: Kernel names not measured, matched exactly against the mangled
            name, the demangled name or the demangled name without its parameter list. For
            helper kernels inside a region (fills, copies) that should not count.
        clock_control: ``"none"`` (default, as nsight-python) leaves the GPU clocks alone:
            results reflect boost clocks and may vary with temperature. ``"base"`` locks the
            SM clock to its base frequency through NVML for the whole profile (repeatable
            numbers, slower than boost) and gives it back on every way out: the end, an
            exception, Ctrl-C / SIGTERM, ``exit()``. It needs root:
            :class:`kprof.errors.ClockPermissionError` otherwise. The clocks are the GPU's,
            for every process on it: never use ``"base"`` on a machine you share.
        cache_control: ``"all"`` (default) flushes the L2 cache before every measured kernel,
            outside the measured time, so every kernel starts cold: repeatable, and what a
            kernel sees when its inputs were not just written. ``"none"`` leaves caches warm,
            which flatters small inputs that fit in L2 but is closer to back-to-back kernels
            in a real pipeline.
        replay_mode: With hardware counters: ``"kernel"`` (default, as Nsight Compute): CUPTI
            replays each kernel once per pass; values per kernel, combined per annotation.
            ``"range"``: each annotation is one range and the function runs once per pass;
            values per annotation, nested annotations and the gaps between kernels included.
            ``"application"`` (Nsight Compute's ``--replay-mode application``): values per
            kernel as in kernel mode, but the function runs once per pass and with
            ``cache_control="all"`` every kernel starts every pass with a cold L2, which CUPTI
            before 13.4 cannot give kernel replay's later passes (it matters for kernels
            shorter than ~100 us and sets of several passes); also faster than kernel replay
            when the set takes several passes. Range and application replay need a fixed
            ``runs`` and a function that launches the same kernels every call, and cannot
            profile CUDA graphs kernel by kernel (application). With counters, every mode
            calls the function once more per config, unmeasured, before the runs (how many
            ranges a run needs, how deep annotations nest). Durations alone in kernel mode
            need no replay.
        thermal_mode: The thermal guard, nsight-python's: before every run it reads the
            GPU's thermal headroom (NVML's T.Limit, degrees C before the GPU slows itself
            down) and, when it is at or below ``thermal_wait``, pauses until it is back at
            ``thermal_cont``. ``"auto"`` (default) adapts ``thermal_cont`` to how fast the GPU
            heats (+3 C when fewer than 5 runs fit between pauses, -3 C when more than 50 do,
            between 12 and 50); ``"manual"`` keeps the thresholds given; ``"off"`` never
            pauses. Without NVML, or on a GPU that does not report its headroom, the guard is
            off and kprof says so once. Pauses are in ``runs_dataframe()``
            (``ThermalPause``).
        thermal_wait: Headroom (degrees C) at which the guard pauses; default 10.
        thermal_cont: Headroom at which a paused guard resumes; default 20. The values in
            effect must have ``thermal_cont > thermal_wait``
            (:class:`kprof.errors.OptionError`).
        thermal_timeout: Seconds a pause may last (default 180). ``"manual"`` then raises
            :class:`kprof.errors.CoolingTimeoutError` (with ``partial_results``); ``"auto"``
            lowers ``thermal_cont`` by 3 and waits again, and raises only at 12.
        thermal_device: CUDA ordinal of the GPU the guard watches (``CUDA_VISIBLE_DEVICES``
            applies); default the profiled GPU.
        combine_kernel_metrics: How several kernels launched in one annotation in one run are
            reduced to one value: a function of two values applied left to right in launch
            order (nsight-python's, e.g. ``lambda a, b: a + b``), or kprof's names ``"sum"``,
            ``"max"``, ``"min"``, ``"mean"``. Without it, one kernel gives its value and
            several kernels are summed for additive metrics (``.sum``, durations included) and
            rejected otherwise. ``Kernel`` then reads ``"k1|k2"``.
        output_prefix: Prefix of the files written with ``output_csv`` (a folder ending in
            ``/``, optionally followed by a file-name prefix). By default a fresh folder
            ``kprof_*`` in the temporary directory, made when the decorator is built.
        output_csv: Write nsight-python's CSV files after every call:
            ``<prefix>profiled_data-<func>-<n>.csv`` (per run),
            ``<prefix>processed_data-<func>-<n>.csv`` (aggregated), and kprof's
            ``<prefix>records-<func>-<n>.csv`` (raw kernel records) and
            ``<prefix>session-<func>-<n>.csv`` (the session), where ``n`` counts the
            successful calls of the function from 0.
        info_collectors: nsight-python's custom information collectors: functions decorated
            with :func:`kprof.experimental.collect`, :class:`kprof.InfoCollector` objects or
            ``(name, function, scope)`` tuples. Each becomes columns: ``<name>_Avg``,
            ``_Std``, ``_Min``, ``_Max`` for numbers collected per config, run or annotation,
            ``<name>`` for once-scope values and anything else; the per-run values are in
            :meth:`kprof.ProfileResults.raw_dataframe`. Names that are kprof's columns or
            parameters of the function raise :class:`kprof.errors.OptionError` when the
            decorator is built; a collector that raises gives None there, and one
            ``RuntimeWarning``. See :mod:`kprof.collectors`.
        per_kernel: kprof only. Keep the kernels of a region apart instead of combining them:
            one row per kernel, with its launch order inside the region in ``KernelIndex``.

    Returns:
        The decorated function, returning a :class:`kprof.ProfileResults`.

    Raises:
        kprof.errors.OptionError: An option has an invalid value (decoration time).
        kprof.errors.UnsupportedError: An option needs a capability this build lacks.
        kprof.errors.ConfigError: The configs do not fit the function (call time).
        kprof.errors.NoGpuError: No usable GPU or driver (call time, before the first run).
        kprof.errors.CuptiBusyError: Another tool (Nsight Systems, torch.profiler) holds CUPTI.
        kprof.errors.UserFunctionError: The function raised; the original exception is the
            ``__cause__``, the message names the config and run, and ``partial_results``
            holds what was measured before.
        kprof.errors.MeasurementError: A region launched no kernel, or several kernels of a
            metric that cannot be combined automatically.
        kprof.errors.CoolingTimeoutError: The GPU did not cool down within
            ``thermal_timeout`` (``partial_results`` holds the runs made).
        kprof.errors.ClockControlError: ``clock_control="base"`` could not lock the clock
            (:class:`kprof.errors.ClockPermissionError`: not permitted).
    """
    if _func is not None and not callable(_func):
        raise TypeError(
            "kprof.analyze.kernel takes its options as keyword arguments, e.g. "
            f"@kernel(configs=...); got {type(_func).__name__} as first argument"
        )
    settings = make_settings(
        runs=runs,
        derive_metric=derive_metric,
        normalize_against=normalize_against,
        verbosity=verbosity,
        metrics=metrics,
        ignore_kernel_list=ignore_kernel_list,
        clock_control=clock_control,
        cache_control=cache_control,
        replay_mode=replay_mode,
        thermal_mode=thermal_mode,
        thermal_wait=thermal_wait,
        thermal_cont=thermal_cont,
        thermal_timeout=thermal_timeout,
        thermal_device=thermal_device,
        combine_kernel_metrics=combine_kernel_metrics,
        output_prefix=output_prefix,
        output_csv=output_csv,
        info_collectors=info_collectors,
        per_kernel=per_kernel,
    )

    def decorator(func: Callable[..., Any]) -> Callable[..., ProfileResults]:
        profiler = _KernelProfiler(func, settings, configs)

        @functools.wraps(func)
        def wrapper(
            *args: Any, configs: Iterable[Any] | None = None, **kwargs: Any
        ) -> ProfileResults:
            return profiler(*args, configs=configs, **kwargs)

        wrapper._kprof_profiler = profiler  # type: ignore[attr-defined]
        return wrapper

    if _func is None:
        return decorator
    return decorator(_func)


def plot(
    filename: str | os.PathLike[str] | None = "plot.png",
    metric: str | Sequence[str] | None = None,
    *,
    title: str | None = None,
    ylabel: str | Mapping[str, str] | None = None,
    annotate_points: bool = False,
    show_aggregate: Literal["avg", "geomean"] | None = None,
    plot_type: Literal["line", "bar"] = "line",
    plot_width: float = 6,
    plot_height: float = 4,
    row_panels: str | Sequence[str] | None = None,
    col_panels: str | Sequence[str] | None = None,
    x_keys: str | Sequence[str] | None = None,
    print_data: bool = False,
    variant_fields: str | Sequence[str] | None = None,
    variant_annotations: str | Sequence[str] | None = None,
    plot_callback: Callable[[Any], Any] | None = None,
    error_bars: bool = True,
    xscale: Literal["auto", "category", "log", "linear"] = "auto",
    yscale: Literal["linear", "log"] = "linear",
) -> Any:
    """Draws the results of a profile into a picture file, every time the function runs.

    Placed on top of :func:`kernel`, with nsight-python's parameters::

        @kprof.analyze.plot("matmul.png", annotate_points=True)
        @kprof.analyze.kernel(configs=[(512,), (1024,), (2048,), (4096,)], runs=20)
        def matmul(n):
            ...

        results = matmul()   # profiles, writes matmul.png, returns the ProfileResults

    It also works bare (``@kprof.analyze.plot``, writing ``plot.png``). The decorated function
    still returns the :class:`kprof.ProfileResults`; the figure is written, then closed. To
    get the figure itself, use :meth:`kprof.ProfileResults.plot`, which takes the same options
    and returns the matplotlib ``Figure``; :func:`kprof.plot_file` plots a saved file.

    What is drawn. Each panel has one **series** per annotation (per annotation and kernel
    for ``per_kernel=True`` results), drawn as a line with markers or as grouped bars, with
    the **mean** of the runs (``AvgValue``) against the **x axis**: by default one tick per
    combination of the parameters that no other option uses, in sweep order. **Error bars**
    show the 95% confidence interval of the mean (``CI95_Lower``/``CI95_Upper``, Student-t);
    with one run there is no interval and no bar. Values are shown in a readable unit chosen
    per metric by the same rule as the text table (2.68e6 ns reads 2.68 ms). The figure's
    title is followed by where it was measured (GPU, host, backend, cache control, date) and
    the number of runs. One legend, titled "Annotation", lists every series.

    Where kprof goes beyond nsight-python:

    - **Several metrics** in one figure, one row of panels each: ``metric=None`` draws every
      metric of the results (nsight-python raises when there are several), and ``metric``
      may be a list.
    - **Any number of series.** nsight-python has 14 colours and silently drops the 15th
      annotation; kprof cycles its palette, then changes the marker (and bar hatch), then the
      line style, so every series stays distinct and in the legend.
    - **Error bars** from the 95% interval, and a log2 x axis when the x axis is a single
      numeric parameter of powers of two (``xscale="auto"``), so 512, 1024, 4096 sit at
      their true distances.
    - **Checked options**: everything that can be checked before the profile is checked when
      the decorator is built (the choices, the sizes, fields used twice, field names against
      the function's parameters, matplotlib being installed); an unknown ``metric`` is
      checked when the results exist. Each raises :class:`kprof.errors.OptionError` naming the
      option, the value and what is valid; after a profile, the error carries the results as
      ``partial_results``, so nothing measured is lost.

    Args:
        filename: The picture to write; the extension picks the format (``.png``, ``.svg``,
            ``.pdf``...). Missing folders are created and the file is replaced atomically.
            ``None`` writes nothing (for ``plot_callback``).
        metric: The metric to draw, a list of metrics, or ``None`` for every metric of the
            results (measured and derived), each in its own row of panels.
        title: The figure's title; by default the function's name.
        ylabel: The y axis label, for every metric, or a dict ``metric -> label``. By default
            the metric's name, ``"relative to <annotation>"`` when normalized, and the unit.
        annotate_points: Write each mean next to its point (4 significant digits).
        show_aggregate: ``"avg"`` or ``"geomean"``: one more tick after a dashed line with
            each series' mean (or geometric mean) of the values in that panel, computed by the
            core. ``None`` (default) draws none.
        plot_type: ``"line"`` (default) or ``"bar"`` (grouped bars).
        plot_width: Width of one panel, inches.
        plot_height: Height of one panel, inches.
        row_panels: Parameters whose values split the figure into rows of panels (one row
            per combination; with several metrics, per metric and combination).
        col_panels: Parameters whose values split the figure into columns of panels.
        x_keys: Parameters on the x axis. By default every parameter not used by
            ``row_panels``, ``col_panels`` or ``variant_fields``. Every config must be told
            apart within a panel and series: a parameter left out of all four options that
            takes several values raises :class:`kprof.errors.OptionError`. A parameter with
            one value throughout is shown in the axis label instead of on every tick.
        print_data: Print the rows that are drawn (annotation, metric, parameters, mean,
            interval, runs, unit).
        variant_fields: Parameters whose values split a series into several: series
            ``"<annotation> field=value"`` per combination.
        variant_annotations: The annotations that ``variant_fields`` splits; by default all.
        plot_callback: Called with the matplotlib ``Figure`` before it is written, to change
            anything (limits, labels, an extra line).
        error_bars: kprof only. Draw the 95% interval (default True).
        xscale: kprof only. ``"auto"`` (log2 for one numeric parameter of at least three
            powers of two in a line plot, else categories), ``"category"`` (evenly spaced
            ticks, nsight-python's), ``"log"`` or ``"linear"`` (one numeric parameter on a
            numeric axis; line plots without ``show_aggregate``).
        yscale: kprof only. ``"linear"`` (default; from 0 when all values are positive) or
            ``"log"`` for sweeps whose values span orders of magnitude.

    Returns:
        A decorator; the decorated function returns the :class:`kprof.ProfileResults` of the
        function under it.

    Raises:
        kprof.errors.OptionError: An option is invalid (when the decorator is built, or for
            ``metric`` after the profile, with ``partial_results``).
        ImportError: matplotlib is not installed (``pip install 'kprof[plot]'``), when the
            decorator is built.
        TypeError: The function under it does not return ProfileResults (``plot`` must be
            placed above ``kernel``), or an unknown keyword.
    """
    from kprof.visualization import PlotOptions, plot_results, require_matplotlib

    bare = callable(filename) and not isinstance(filename, (str, os.PathLike))
    options = PlotOptions.make(
        metric=metric,
        title=title,
        ylabel=ylabel,
        annotate_points=annotate_points,
        show_aggregate=show_aggregate,
        plot_type=plot_type,
        plot_width=plot_width,
        plot_height=plot_height,
        row_panels=row_panels,
        col_panels=col_panels,
        x_keys=x_keys,
        print_data=print_data,
        variant_fields=variant_fields,
        variant_annotations=variant_annotations,
        plot_callback=plot_callback,
        error_bars=error_bars,
        xscale=xscale,
        yscale=yscale,
    )
    path = "plot.png" if bare else filename
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise OptionError("filename", repr(path), "a path such as 'plot.png', or None")
    require_matplotlib()

    def decorator(func: Callable[..., Any]) -> Callable[..., ProfileResults]:
        profiler = getattr(func, "_kprof_profiler", None)
        if profiler is not None and not profiler.params.var_keyword:
            names = profiler.params.names
            for option, fields in (
                ("row_panels", options.row_panels),
                ("col_panels", options.col_panels),
                ("variant_fields", options.variant_fields),
                ("x_keys", options.x_keys or ()),
            ):
                for field in fields:
                    if field not in names:
                        raise OptionError(
                            option,
                            repr(list(fields)),
                            f"parameters of {profiler.params.name}: "
                            + (", ".join(repr(n) for n in names) or "none"),
                        )

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> ProfileResults:
            results = func(*args, **kwargs)
            if not isinstance(results, ProfileResults):
                raise TypeError(
                    "kprof.analyze.plot must be placed above kprof.analyze.kernel: "
                    f"{getattr(func, '__name__', func)!r} returned {type(results).__name__}, "
                    "not ProfileResults"
                )
            try:
                plot_results(
                    results, path, checked=options, default_title=getattr(func, "__name__", "")
                )
            except KprofError as e:
                if e.partial_results is None:
                    e.partial_results = results
                raise
            if path is not None and profiler is not None:
                if profiler.settings.verbosity >= VerbosityLevel.INFO:
                    print(f"[kprof] wrote {os.fspath(path)}", flush=True)
            return results

        wrapper._kprof_profiler = profiler  # type: ignore[attr-defined]
        return wrapper

    if bare:
        return decorator(filename)  # type: ignore[arg-type]
    return decorator

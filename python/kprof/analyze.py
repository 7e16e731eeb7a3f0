# SPDX-License-Identifier: Apache-2.0
"""``kprof.analyze``: the ``kernel`` decorator that profiles a benchmark function over a sweep
of configurations, and ``ignore_failures`` for warm-up code. Drop-in for ``nsight.analyze``."""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, TypeVar, overload

from kprof._native import core as _core
from kprof._options import Settings, check_arity, make_settings
from kprof.configs import BoundConfigs, FunctionParams, bind, materialize
from kprof.errors import KprofError, UserFunctionError
from kprof.results import ProfileResults
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
    """The front end's ``[kprof]`` lines. The core prints the sweep's header and one line per
    config itself (through its log sink, to ``sys.stdout``); Python adds what only it knows."""

    def __init__(self, settings: Settings, options: Any) -> None:
        self.settings = settings
        self.options = options

    def say(self, line: str, level: VerbosityLevel = VerbosityLevel.INFO) -> None:
        if self.settings.verbosity >= level:
            print(f"[kprof] {line}", flush=True)

    def start(self, name: str, bound: BoundConfigs) -> None:
        self.say(
            f"{name}: {len(bound.values)} config(s), options {self.options!r}",
            VerbosityLevel.DEBUG,
        )

    def done(self, paths: Sequence[str]) -> None:
        for p in paths:
            self.say(f"wrote {p}")


def _wrap_partial(err: KprofError, bound: BoundConfigs) -> None:
    """Gives the error's partial results the original config objects."""
    partial = getattr(err, "partial_results", None)
    if isinstance(partial, ProfileResults) and partial.parameters == bound.columns:
        with contextlib.suppress(ValueError):
            err.partial_results = ProfileResults(partial.core, bound.columns, bound.values)


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
        options = self.settings.core_options(derive, derive_name)
        progress = _Progress(self.settings, options)
        func = self.func
        calls = bound.calls
        returned: list[str] = []

        def run(index: int) -> None:
            call_args, call_kwargs = calls[index]
            if func(*call_args, **call_kwargs) is not None and not returned:
                returned.append(type(func).__name__)

        progress.start(self.params.name, bound)
        try:
            core = _core.profile(options, bound.columns, bound.core_points(), run)
        except UserFunctionError as e:
            _wrap_partial(e, bound)
            cause = e.__cause__
            if cause is None:
                raise
            config, run_index = e.config, e.run
            where = ""
            if config is not None and 0 <= config < len(bound.values):
                where = f" in config {config + 1}/{len(bound.values)} ({bound.describe(config)})"
            if run_index is not None:
                where += f", run {run_index + 1}/{self.settings.runs}"
            raise UserFunctionError(
                f"{self.params.name} raised {type(cause).__name__}: {cause}{where}",
                config=config,
                run=run_index,
                partial_results=e.partial_results,
            ) from cause
        except KprofError as e:
            _wrap_partial(e, bound)
            raise
        finally:
            _core._flush_log()

        results = ProfileResults(core, bound.columns, bound.values)
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
    runs: int = 1,
    derive_metric: Callable[..., DeriveResult] | None = None,
    normalize_against: str | None = None,
    verbosity: VerbosityLevel = VerbosityLevel.INFO,
    metrics: Sequence[str] = ["gpu__time_duration.sum"],  # noqa: B006
    ignore_kernel_list: Sequence[str] | None = None,
    clock_control: Literal["base", "none"] = "none",
    cache_control: Literal["all", "none"] = "all",
    replay_mode: Literal["kernel", "range"] = "kernel",
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
    runs: int = 1,
    derive_metric: Callable[..., DeriveResult] | None = None,
    normalize_against: str | None = None,
    verbosity: VerbosityLevel = VerbosityLevel.INFO,
    metrics: Sequence[str] = ["gpu__time_duration.sum"],  # noqa: B006 (nsight's default)
    ignore_kernel_list: Sequence[str] | None = None,
    clock_control: Literal["base", "none"] = "none",
    cache_control: Literal["all", "none"] = "all",
    replay_mode: Literal["kernel", "range"] = "kernel",
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
    build lacks raises :class:`kprof.errors.UnsupportedError`; configs that do not fit the
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
            time. One run gives no spread: StdDev and the interval are NaN.
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
            negligible overhead. Hardware counters (any other Nsight Compute metric name) need
            the range-profiler backend, which this build does not have:
            :class:`kprof.errors.UnsupportedError`.
        ignore_kernel_list: Kernel names not measured, matched exactly against the mangled
            name, the demangled name or the demangled name without its parameter list. For
            helper kernels inside a region (fills, copies) that should not count.
        clock_control: ``"none"`` (default, as nsight-python) leaves the GPU clocks alone:
            results reflect boost clocks and may vary with temperature. ``"base"`` would lock
            the SM clock to base for repeatable numbers; not built in yet
            (:class:`kprof.errors.UnsupportedError`). On a shared machine lock clocks with
            ``nvidia-smi`` only if the machine is yours.
        cache_control: ``"all"`` (default) flushes the L2 cache before every measured kernel,
            outside the measured time, so every kernel starts cold: repeatable, and what a
            kernel sees when its inputs were not just written. ``"none"`` leaves caches warm,
            which flatters small inputs that fit in L2 but is closer to back-to-back kernels
            in a real pipeline.
        replay_mode: ``"kernel"`` (default): each kernel is measured on its own (durations
            need no replay). ``"range"`` replays whole annotations for counters needing many
            passes; it belongs to the range-profiler backend, not in this build.
        thermal_mode: ``"auto"`` (default), ``"manual"`` or ``"off"``. The thermal guard
            (pausing between runs while the GPU is hot) is not built in yet: ``"auto"`` and
            ``"off"`` both run without pauses, ``"manual"`` raises
            :class:`kprof.errors.UnsupportedError`.
        thermal_wait: Headroom (degrees C) at which the guard would pause. Setting any
            ``thermal_*`` option raises :class:`kprof.errors.UnsupportedError` in this build,
            after the values themselves were checked (``thermal_cont`` must exceed
            ``thermal_wait``: :class:`kprof.errors.OptionError`).
        thermal_cont: Headroom at which a paused guard would resume.
        thermal_timeout: Seconds a guard would wait before giving up.
        thermal_device: CUDA ordinal the guard would watch.
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
        info_collectors: nsight-python's experimental custom collectors; not built in yet: a
            non-empty list raises :class:`kprof.errors.UnsupportedError`.
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


def plot(*args: Any, **kwargs: Any) -> Any:
    """nsight-python's ``analyze.plot`` is not built into kprof yet.

    So that nsight-python scripts still run, it is accepted as a decorator (with or without
    arguments) that draws nothing: it warns on every call (``RuntimeWarning``)
    and returns the :class:`kprof.ProfileResults` of the function under it. Plot
    ``results.to_dataframe()`` with matplotlib meanwhile.
    """

    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapper(*a: Any, **kw: Any) -> Any:
            warnings.warn(
                "kprof.analyze.plot is not available yet; no plot is drawn. Plot "
                "results.to_dataframe() with matplotlib instead.",
                RuntimeWarning,
                stacklevel=2,
            )
            return func(*a, **kw)

        return wrapper

    if len(args) == 1 and callable(args[0]) and not kwargs:
        return decorator(args[0])
    return decorator

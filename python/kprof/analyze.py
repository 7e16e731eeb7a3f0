# SPDX-License-Identifier: Apache-2.0
"""``kprof.analyze``: the ``kernel`` decorator that profiles a benchmark function over a sweep
of configurations, ``ignore_failures`` for warm-up code, and ``plot``
(:mod:`kprof.plot_decorator`). Drop-in for ``nsight.analyze``."""

from __future__ import annotations

import contextlib
import functools
import inspect
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal

from kprof import ncu, tools
from kprof._native import core as _core
from kprof._options import Settings, check_arity
from kprof._partial import keep
from kprof.call_progress import CallProgress
from kprof.collectors import CollectorCalls, check_parameter_names
from kprof.configs import BoundConfigs, FunctionParams, bind, materialize
from kprof.devices import check_devices, check_importable, profile_on_devices, resolve_devices
from kprof.errors import UnsupportedError, UserFunctionError
from kprof.plot_decorator import plot
from kprof.results import ProfileResults
from kprof.stopping import StoppingRule
from kprof.verbosity import VerbosityLevel

__all__ = ["kernel", "ignore_failures", "plot"]

DeriveResult = float | tuple[float, str] | Mapping[str, float | tuple[float, str]]


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


def _warn_throttled(results: ProfileResults, name: str) -> None:
    """NVBench's throttle detection: runs whose measured SM clock was below the threshold
    share of the rated clock are counted per row (ThrottledRuns); say so once per call."""
    note = results.core.throttle_note()
    if note:
        warnings.warn(
            f"{name}: {note} (throttled): their values may be slow. See the ThrottledRuns and "
            "MeasuredClock columns, and runs_dataframe().",
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
        devices: Any = None,
    ) -> None:
        self.func = func
        self.settings = settings
        self.params = FunctionParams.of(func)
        self.decorator_configs = (
            None if decorator_configs is None else materialize(decorator_configs, "decoration")
        )
        self.call_id = 0  # goes up after each successful call (nsight-python's run id)
        self.devices = check_devices(devices)
        if self.devices is not None:
            check_importable(func)
        check_parameter_names(settings.info_collectors, self.params.names, self.params.name)
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

    def _derive_wrapper(self, bound: BoundConfigs) -> Callable[[list[float], int], Any] | None:
        """derive_metric as the core calls it, with the call's parameter values."""
        derive = self.settings.derive_metric
        if derive is None:
            return None
        args = bound.derive_args

        def call_derive(values: list[float], config: int) -> Any:
            return derive(*values, *args[config])

        return call_derive

    def _where(self, e: UserFunctionError, bound: BoundConfigs) -> UserFunctionError:
        """The function's exception ``e.__cause__``, with the config and run it raised in."""
        cause, config, run_index = e.__cause__, e.config, e.run
        where = ""
        if config is not None and 0 <= config < len(bound.values):
            runs = 0 if self.settings.stopping is not None else self.settings.runs
            run = -1 if run_index is None else run_index
            where = " in " + _core.describe_run(
                config, len(bound.values), bound.describe(config), run, runs
            )
        return UserFunctionError(
            f"{self.params.name} raised {type(cause).__name__}: {cause}{where}",
            config=config,
            run=run_index,
            partial_results=e.partial_results,
        )

    def _keep(
        self,
        err: BaseException,
        bound: BoundConfigs,
        collected: CollectorCalls,
        progress: CallProgress,
        share: int | None = None,
    ) -> None:
        """Keeps and saves what a failed call measured (:mod:`kprof._partial`); a worker's
        share is saved under a name of its own."""
        tag = self._tag() if share is None else f"{self._tag()}-share{share}"
        keep(err, bound, collected, self.settings, tag, progress.say)

    def _tag(self) -> str:
        """The name of this call's files: nsight-python's ``{function}-{call}``."""
        return f"{self.params.name}-{self.call_id}"

    def _bind(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], configs: Any, decorated: bool = True
    ) -> BoundConfigs:
        """The call's configs bound to the function (ConfigError before any GPU work);
        ``decorated=False`` leaves the decoration's configs out (a worker's share)."""
        return bind(
            self.params,
            args=args,
            kwargs=kwargs,
            call_configs=configs,
            decorator_configs=self.decorator_configs if decorated else None,
        )

    def __call__(
        self, *args: Any, configs: Iterable[Any] | None = None, **kwargs: Any
    ) -> ProfileResults:
        if tools.get_active_tool() == tools.Tool.NCU or ncu.in_child():
            return self._profile_with_ncu(args, kwargs, configs)
        if self.devices is None:
            return self.profile(args, kwargs, configs)
        devices = resolve_devices(self.devices)
        if configs is not None:
            configs = materialize(configs, "call")
        bound = self._bind(args, kwargs, configs)  # checked before any worker starts
        given = configs if configs is not None else self.decorator_configs
        results = profile_on_devices(self, args, kwargs, list(given or []), bound.values, devices)
        self._write_files(results)
        self.call_id += 1
        return results

    def _profile_with_ncu(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], configs: Iterable[Any] | None
    ) -> ProfileResults:
        """Tool.NCU: the call measured by Nsight Compute in a child process (:mod:`kprof.ncu`);
        in that child, the call it measures runs its configs and ends the process."""
        if self.devices is not None:
            raise UnsupportedError(
                "devices= shares a sweep among kprof's workers; with Tool.NCU, Nsight Compute "
                "measures in one child process: leave devices unset, or use Tool.CUPTI"
            )
        bound = self._bind(args, kwargs, configs)
        if ncu.in_child():
            results = ncu.child_call(self, bound, bound.calls)
        else:
            options = self.settings.core_options(self._derive_wrapper(bound))
            results = ncu.profile(self, bound, options, self._tag(), self.settings.output_prefix)
            self._write_files(results)
        self.call_id += 1
        return results

    def _write_files(self, results: ProfileResults) -> list[str]:
        """The CSV files of output_csv, one set per call named after the function."""
        if not self.settings.output_csv:
            return []
        tag = results.core.file_tag(self._tag())
        return results.write_csv(self.settings.output_prefix, tag)

    def profile(
        self,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        configs: Iterable[Any] | None,
        share: int | None = None,
    ) -> ProfileResults:
        """One call profiled in this process. A worker of ``devices`` profiles its ``share``
        (the share's index): its configs stand for the decorated ones, it writes no files (the
        caller writes the merged ones) and saves partial results under a name of its own."""
        bound = self._bind(args, kwargs, configs, decorated=share is None)
        collected = CollectorCalls(self.settings.info_collectors, bound.derive_args)
        options = self.settings.core_options(
            self._derive_wrapper(bound), collected.core_collectors()
        )
        progress = CallProgress(self.settings, options)
        func = self.func
        calls = bound.calls
        returned: list[str] = []

        def run(index: int) -> None:
            call_args, call_kwargs = calls[index]
            if func(*call_args, **call_kwargs) is not None and not returned:
                returned.append(type(func).__name__)

        def checked() -> None:
            # The core checked the options once: this process takes kprof's engine as its tool
            # (a refusal that says to use Tool.NCU can still be followed) and the progress bar
            # starts (a refused call draws none).
            tools._profile_starts()
            progress.start(self.params.name, bound)

        try:
            core = _core.profile(options, bound.columns, bound.core_points(), run, checked)
        except UserFunctionError as e:
            if e.__cause__ is None:
                self._keep(e, bound, collected, progress, share)
                raise
            located = self._where(e, bound)  # keep() gives its partial results the configs
            self._keep(located, bound, collected, progress, share)
            raise located from e.__cause__
        except BaseException as e:  # kprof's errors, Ctrl-C, SystemExit: what was measured is kept
            self._keep(e, bound, collected, progress, share)
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
        paths = [] if share is not None else self._write_files(results)
        self.call_id += 1
        progress.done(paths)
        return results


def _check_benchmark(func: Any) -> None:
    """A TypeError, when the decorator is built, for what cannot be a benchmark function: its
    call must run the GPU work inside kprof.annotate regions, which a call of these does not."""
    if not callable(func):
        raise TypeError(
            f"kprof.analyze.kernel decorates a function, not {type(func).__name__} ({func!r:.60})"
        )
    name = getattr(func, "__qualname__", None) or repr(func)
    why = None
    if inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func):
        why = "an async function: calling it only makes a coroutine, which runs no work"
    elif inspect.isgeneratorfunction(func):
        why = "a generator function: calling it runs nothing until the generator is iterated"
    elif inspect.isbuiltin(func):
        why = "a built-in function, which cannot open the kprof.annotate regions kprof measures"
    if why is not None:
        raise TypeError(
            f"kprof.analyze.kernel decorates a plain function whose call runs the GPU work; {name}"
            f" is {why}. Decorate a function that does the work inside kprof.annotate, e.g. "
            "def bench(n): with kprof.annotate('step'): ..."
        )


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
    replay_mode: Literal["auto", "kernel", "range", "application"] = "auto",
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
    warmup: int = 0,
    disclose_overhead: bool = True,
    wait_for_counters: float = 0,
    devices: Literal["all"] | Sequence[int] | None = None,
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
            :class:`kprof.errors.CounterPermissionError` says what to do. Nsight Compute's
            own sets and sections (``"set:full"``, ``"section:SpeedOfLight"``) go to its
            report under ``Tool.NCU``; kprof's engine refuses them when the function is
            called. See docs/metrics.md.
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
        replay_mode: How hardware counters that take several passes are replayed.
            ``"auto"`` (default; kprof's, where nsight-python's default is ``"kernel"``):
            ``"application"`` for a set of several passes with ``cache_control="all"``, so
            that every pass of every kernel starts with a flushed L2 as in Nsight Compute,
            and ``"kernel"`` otherwise (one pass, warm caches, a stopping rule, no counter);
            the mode used is the results' ``ReplayMode`` and is said at INFO verbosity.
            ``"kernel"`` (Nsight Compute's default): CUPTI replays each kernel once per pass;
            values per kernel, combined per annotation; before CUPTI 13.4 its later passes
            start with the L2 the first left (a warning says so), which moves throughputs of
            kernels shorter than ~100 us by several points. ``"range"``: each annotation is
            one range and the function runs once per pass; values per annotation, nested
            annotations and the gaps between kernels included. ``"application"`` (Nsight
            Compute's ``--replay-mode application``): values per kernel as in kernel mode, the
            function runs once per pass; also faster than kernel replay when the set takes
            several passes. Range and application replay need a fixed ``runs`` and a function
            that launches the same kernels every call, and cannot profile CUDA graphs kernel
            by kernel (application). With counters, every mode calls the function once more
            per config, unmeasured, before the runs (how many ranges a run needs, how deep
            annotations nest). Durations alone need no replay.
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
            ``"max"``, ``"min"``, ``"mean"``. Without it, as in nsight-python, a region
            must launch one kernel per run and several raise ``MeasurementError``.
            ``Kernel`` then reads ``"k1|k2"``.
        output_prefix: Prefix of the files written with ``output_csv`` (a folder ending in
            ``/``, optionally followed by a file-name prefix; ``""`` is the current folder, as
            in nsight-python). By default a fresh folder ``kprof_*`` in the temporary
            directory, made when the first file is written: a function that writes no file
            (no ``output_csv``, no failed call with ``output_csv``) leaves none behind.
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
        warmup: kprof only. Calls of the function per config before the profile begins,
            unmeasured, for what a first call compiles or tunes (``torch.compile``,
            ``triton.autotune``, cuBLAS choosing a kernel). Default 0. With 2 or more the last
            one is the unprofiled call of ``disclose_overhead``. Whatever it is, kprof warns
            when a config's first run launched other kernels than its second.
        disclose_overhead: kprof only. Say what profiling added to the work: one call of the
            function per config after the profile, unprofiled, timed as the runs are (until
            the GPU has finished their kernels). ``ProfilingOverhead`` per row, the
            session's ``overhead_seconds_per_run`` and ``unprofiled_seconds_per_run``, and
            "profiling added ..." in reports and at INFO verbosity. Default True; False calls
            the function only ``warmup + runs`` times per config (no disclosure unless
            ``warmup >= 2``). Without warm-up calls the first run, which compiles and loads,
            is left out of the comparison when the config has others (with ``runs=1`` it
            counts: ``warmup=1`` leaves it out). An unprofiled call that raises costs the
            disclosure (a warning, NaN), not the profile.
        wait_for_counters: kprof only. Seconds to wait for the GPU's hardware counters while
            another process profiles them: a GPU's counters serve one process at a time.
            kprof tries again after 50 ms, then twice as long each time up to every second,
            says once at INFO "waiting for GPU 0's counters (another process profiles them)",
            and raises :class:`kprof.errors.CountersBusyError` saying how long it waited once
            the time is spent. Default 0: raise at once; ``float("inf")`` waits until they are
            free. A number >= 0 (None is refused). Durations alone never wait.
        devices: kprof only. Share the sweep among GPUs of this machine: ``"all"`` or a list
            of CUDA ordinals (``[0, 1]``; ``[0, 0]`` runs two workers on GPU 0). The configs
            are cut into one contiguous share per listed GPU, each profiled by a worker
            process (spawned) on its GPU with its own thermal guard and clock readings; the
            results come back merged in config order, each row's ``Device`` its GPU's. The
            worker imports the function by name: define it at the top level of a module file
            (a script guarded by ``if __name__ == "__main__":``), not in a notebook or inside
            a function; its arguments and configs must pickle. A failing worker keeps the
            others' results (``partial_results`` of the error). Counters are exclusive per
            GPU: two workers on one GPU both measuring counters wait for each other only with
            ``wait_for_counters``. Default None: this process, its current GPU.

    Returns:
        The decorated function, returning a :class:`kprof.ProfileResults`.

    Raises:
        kprof.errors.OptionError: An option has an invalid value (decoration time), or a
            metric is not one of this GPU's (call time, before any GPU work; a ValueError).
        kprof.errors.UnsupportedError: An option needs a capability this build lacks.
        kprof.errors.ConfigError: The configs do not fit the function (call time).
        kprof.errors.NoGpuError: No GPU available (call time, before the first run).
        kprof.errors.CuptiBusyError: Another tool (Nsight Systems, torch.profiler) holds CUPTI.
        kprof.errors.CountersBusyError: Another process profiles the GPU's counters (after
            ``wait_for_counters`` seconds; a ``CuptiBusyError``).
        kprof.errors.UserFunctionError: The function raised; the original exception is the
            ``__cause__``, the message names the config and run, and ``partial_results``
            holds what was measured before.
        kprof.errors.MeasurementError: A region launched no kernel, or several kernels
            without ``combine_kernel_metrics`` (or ``per_kernel=True``).
        kprof.errors.CoolingTimeoutError: The GPU did not cool down within
            ``thermal_timeout`` (``partial_results`` holds the runs made).
        kprof.errors.ClockControlError: ``clock_control="base"`` could not lock the clock
            (:class:`kprof.errors.ClockPermissionError`: not permitted).
    """
    # Every keyword but configs and devices (a sweep shared among worker processes, which the
    # core does not see: kprof.devices) is a row of the option table (include/kprof/options.hpp),
    # forwarded by name: the signature above is for editors and readers.
    options = {k: v for k, v in locals().items() if k not in ("_func", "configs", "devices")}
    if _func is not None and not callable(_func):
        raise TypeError(
            "kprof.analyze.kernel takes its options as keyword arguments, e.g. "
            f"@kernel(configs=...); got {type(_func).__name__} as first argument"
        )
    settings = Settings(options)
    # set:flop counts the kernels whose modules load from now on, a warm-up's before the first
    # call among them; under Nsight Compute the counts are its own.
    if tools.get_active_tool() != tools.Tool.NCU and not ncu.in_child():
        _core.prepare_profile(settings.options)

    def decorator(func: Callable[..., Any]) -> Callable[..., ProfileResults]:
        _check_benchmark(func)
        profiler = _KernelProfiler(func, settings, configs, devices)

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

"""Plots of real H200 recordings (tests/data), looked at and not just generated.

Every figure is checked twice: as a matplotlib Figure (panels and their titles, the series in
the legend, error bars whose ends are the recording's 95% interval, no empty axes) and as the
PNG file it was written to, decoded again (its size, and in every panel's area pixels that are
not background, including the colour of the first series).
"""

from __future__ import annotations

import math
import sys

import kprof
import numpy as np
import pytest
from conftest import DATA
from kprof import errors, visualization
from kprof.results import ProfileResults
from kprof.visualization import PALETTE, PlotOptions, series_style

pytest.importorskip("matplotlib")
import matplotlib.colors as mcolors  # noqa: E402
import matplotlib.image as mimage  # noqa: E402
from matplotlib.container import BarContainer, ErrorbarContainer  # noqa: E402

MATMUL = DATA / "h200-torch-matmul-sweep-2026-11-30.json"
DEMO = DATA / "h200-python-demo-2026-11-30.json"
NORMALIZED = DATA / "h200-python-normalized-2026-11-30.json"
PER_KERNEL = DATA / "h200-python-per-kernel-2026-11-30.json"
DPI = 110  # visualization.save_figure's
N1, N4 = 1048576, 4194304  # the demo recording's sizes


@pytest.fixture(scope="module")
def matmul() -> ProfileResults:
    return kprof.load(MATMUL)


@pytest.fixture(scope="module")
def demo() -> ProfileResults:
    return kprof.load(DEMO)


# --- looking at figures and pictures -------------------------------------------------------------


def legend_labels(fig) -> list[str]:
    assert len(fig.legends) == 1, "one legend for the figure"
    return [t.get_text() for t in fig.legends[0].get_texts()]


def assert_no_empty_axes(fig) -> None:
    for ax in fig.axes:
        assert ax.lines or ax.patches or ax.collections, f"empty panel {ax.get_title()!r}"


def errorbar_ends(ax) -> list[tuple[float, float, float]]:
    """(x, low, high) of every vertical error bar of a line plot's panel."""
    ends = []
    for c in ax.containers:
        if isinstance(c, ErrorbarContainer) and c.has_yerr:
            for seg in c.lines[2][0].get_segments():
                (x0, y0), (x1, y1) = seg
                assert x0 == x1
                ends.append((x0, min(y0, y1), max(y0, y1)))
    return sorted(ends)


def decode(path) -> np.ndarray:
    img = mimage.imread(str(path))
    assert img.ndim == 3 and img.shape[2] in (3, 4)
    return img[:, :, :3]


def panel_pixels(fig, ax, img: np.ndarray) -> np.ndarray:
    """The inside of an axes (spines left out) in the decoded picture."""
    h, w = img.shape[:2]
    assert (h, w) == (round(fig.get_figheight() * DPI), round(fig.get_figwidth() * DPI))
    box = ax.get_position()
    x0, x1 = int(box.x0 * w) + 3, int(box.x1 * w) - 3
    y0, y1 = int((1 - box.y1) * h) + 3, int((1 - box.y0) * h) - 3
    assert x1 - x0 > 50 and y1 - y0 > 50
    return img[y0:y1, x0:x1]


def ink(pixels: np.ndarray) -> float:
    """Share of pixels that are not the white background."""
    return float((pixels.min(axis=2) < 0.9).mean())


def has_colour(pixels: np.ndarray, colour: str, tol: float = 0.06) -> bool:
    rgb = np.array(mcolors.to_rgb(colour))
    return bool((np.abs(pixels - rgb).max(axis=2) < tol).any())


def assert_picture_shows(fig, path, first_colour: str = PALETTE[0]) -> None:
    img = decode(path)
    assert ink(img) > 0.02, "blank picture"
    for ax in fig.axes:
        pixels = panel_pixels(fig, ax, img)
        assert ink(pixels) > 0.005, f"panel {ax.get_title()!r} is blank in the PNG"
        assert has_colour(pixels, first_colour), f"no {first_colour} in {ax.get_title()!r}"


# --- what is drawn -------------------------------------------------------------------------------


def test_every_metric_gets_a_panel_with_error_bars_from_the_interval(matmul, tmp_path):
    path = tmp_path / "matmul.png"
    fig = matmul.plot(path)
    assert [ax.get_title() for ax in fig.axes] == ["gpu__time_duration.sum", "tflops"]
    assert legend_labels(fig) == ["matmul"]
    assert_no_empty_axes(fig)
    df = matmul.to_dataframe()
    metrics = ["gpu__time_duration.sum", "tflops"]
    for ax, metric, factor in zip(fig.axes, metrics, [1e-6, 1.0], strict=True):
        rows = df[df["Metric"] == metric]
        expected = sorted(
            (n, lo * factor, hi * factor)
            for n, lo, hi in zip(rows["n"], rows["CI95_Lower"], rows["CI95_Upper"], strict=True)
        )
        got = errorbar_ends(ax)
        assert len(got) == 4
        for (x, lo, hi), (n, elo, ehi) in zip(got, expected, strict=True):
            assert x == n
            assert lo == pytest.approx(elo, rel=1e-9) and hi == pytest.approx(ehi, rel=1e-9)
    # 2.67e6 ns is shown in ms, as the text table shows it; TFLOP/s is not scaled. The
    # panel's title names the metric, the y label its unit.
    assert fig.axes[0].get_ylabel() == "ms"
    assert fig.axes[1].get_ylabel() == "TFLOP/s"
    assert matmul.plot(metric="tflops").axes[0].get_ylabel() == "tflops (TFLOP/s)"
    assert "NVIDIA H200" in fig._suptitle.get_text() and "20 runs" in fig._suptitle.get_text()
    assert_picture_shows(fig, path)


def test_powers_of_two_on_a_log2_axis(matmul):
    fig = matmul.plot(metric="tflops")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    assert list(ax.get_xticks()) == [512, 1024, 2048, 4096]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["512", "1024", "2048", "4096"]
    assert ax.get_xlabel() == "n"
    category = matmul.plot(metric="tflops", xscale="category").axes[0]
    assert category.get_xscale() == "linear"
    assert list(category.get_xticks()) == [0, 1, 2, 3]


def test_one_series_per_annotation_and_a_field_with_one_value_in_the_label(demo, tmp_path):
    path = tmp_path / "demo.png"
    fig = demo.plot(path, metric="gpu__time_duration.sum")
    assert legend_labels(fig) == ["fma", "memory", "memory/scale", "memory/add"]
    ax = fig.axes[0]
    assert len(fig.axes) == 1
    # dtype is fp32 everywhere: in the label, not on every tick; 2 sizes are categories.
    assert ax.get_xlabel() == "n (dtype=fp32)"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1048576", "4194304"]
    assert len(errorbar_ends(ax)) == 8
    img = decode(path)
    pixels = panel_pixels(fig, ax, img)
    for i in range(4):  # every series' colour is in the picture
        assert has_colour(pixels, series_style(i).color)


def test_bars_with_error_bars_and_the_cores_geomean(demo, tmp_path):
    path = tmp_path / "bars.png"
    fig = demo.plot(path, plot_type="bar", show_aggregate="geomean", annotate_points=True)
    assert [ax.get_title() for ax in fig.axes] == ["gpu__time_duration.sum", "throughput"]
    assert_no_empty_axes(fig)
    df = demo.to_dataframe()
    for ax, metric in zip(fig.axes, ["gpu__time_duration.sum", "throughput"], strict=True):
        bars = [c for c in ax.containers if isinstance(c, BarContainer)]
        with_errors = [c for c in bars if c.errorbar is not None]
        assert len(with_errors) == 4  # one per annotation
        assert [t.get_text() for t in ax.get_xticklabels()][-1] == "Geomean"
        # The aggregate bars (one per series, at the last tick) are the Geomean column: every
        # config is in this panel, so the panel's geomean is the core's.
        rows = df[df["Metric"] == metric]
        factor = 1e-3 if metric == "gpu__time_duration.sum" else 1.0
        geomeans = sorted(rows.groupby("Annotation")["Geomean"].first() * factor)
        # configs sit at x = 0 and 1, the aggregate after them, around 2.5
        aggregate = sorted(p.get_height() for p in ax.patches if p.get_x() + p.get_width() / 2 > 2)
        assert aggregate == pytest.approx(geomeans, rel=1e-12)
        texts = {t.get_text() for t in ax.texts}
        assert kprof._core._format_number(rows["AvgValue"].iloc[0] * factor) in texts
    assert_picture_shows(fig, path)


def test_panels_split_by_rows_and_columns(demo, tmp_path):
    path = tmp_path / "panels.png"
    fig = demo.plot(path, row_panels="n", x_keys="dtype", metric="throughput")
    assert [ax.get_title() for ax in fig.axes] == ["n=1048576", "n=4194304"]
    assert_no_empty_axes(fig)
    assert_picture_shows(fig, path)
    both = demo.plot(col_panels=["n"], x_keys=["dtype"])
    titles = [ax.get_title() for ax in both.axes]
    assert titles == [
        "gpu__time_duration.sum\nn=1048576",
        "gpu__time_duration.sum\nn=4194304",
        "throughput\nn=1048576",
        "throughput\nn=4194304",
    ]


def test_variants_split_annotations_into_series(demo, tmp_path):
    path = tmp_path / "variants.png"
    fig = demo.plot(path, metric="gpu__time_duration.sum", variant_fields=["n"])
    assert legend_labels(fig) == [
        f"{a} n={n}" for a in ["fma", "memory", "memory/scale", "memory/add"] for n in (N1, N4)
    ]
    assert fig.axes[0].get_xlabel() == "dtype"
    assert_picture_shows(fig, path)


def test_an_annotation_left_unsplit_is_drawn_with_a_warning(demo):
    # As nsight-python draws it: the unsplit annotation's configs share each x.
    with pytest.warns(UserWarning, match="is not in variant_annotations") as w:
        fig = demo.plot(
            metric="gpu__time_duration.sum", variant_fields=["n"], variant_annotations=["fma"]
        )
    said = [x for x in w if "'memory' is not" in str(x.message)]
    assert len(said) == 1 and "variant field 'n'" in str(said[0].message)
    assert said[0].filename == __file__  # said where the user called plot
    labels = legend_labels(fig)
    assert "memory" in labels and f"fma n={N1}" in labels
    memory = fig.axes[0].get_legend_handles_labels()[0][labels.index("memory")]
    xs = list(memory.lines[0].get_xdata())
    assert len(xs) == 2 * len(set(xs))  # two sizes at every x


def test_more_series_than_colours_stay_distinct():
    # nsight-python drops the 15th annotation; here every style up to 320 series differs.
    styles = [series_style(i) for i in range(320)]
    assert len({(s.color, s.marker, s.linestyle) for s in styles}) == 320
    assert [s.color for s in styles[: len(PALETTE)]] == list(PALETTE)
    assert styles[len(PALETTE)].color == PALETTE[0]
    assert styles[len(PALETTE)].marker != styles[0].marker
    assert styles[len(PALETTE)].hatch != styles[0].hatch


def test_every_series_of_a_split_recording_is_in_the_legend(demo, tmp_path):
    path = tmp_path / "all.png"
    fig = demo.plot(path, variant_fields=["n"], x_keys=["dtype"], plot_type="bar")
    labels = legend_labels(fig)
    assert len(labels) == 8 and len(set(labels)) == 8
    for ax in fig.axes:
        bars = [c for c in ax.containers if isinstance(c, BarContainer)]
        assert len(bars) == 8
        assert all(len(c.patches) == 1 for c in bars)
    assert_picture_shows(fig, path)


def test_normalized_recording_says_relative_to(tmp_path):
    results = kprof.load(NORMALIZED)
    fig = results.plot(tmp_path / "norm.png")
    assert fig.axes[0].get_ylabel() == "gpu__time_duration.sum relative to memory/scale"
    assert_picture_shows(fig, tmp_path / "norm.png")


def test_per_kernel_recording_has_a_series_per_kernel(tmp_path):
    fig = kprof.load(PER_KERNEL).plot(tmp_path / "k.png", plot_type="bar")
    assert legend_labels(fig) == ["two [0: scale_kernel]", "two [1: add_kernel]"]
    assert_picture_shows(fig, tmp_path / "k.png")


def test_plot_file_and_other_formats(tmp_path):
    fig = kprof.plot_file(MATMUL, tmp_path / "m.svg", metric="tflops")
    assert fig._suptitle.get_text().startswith(MATMUL.name)
    text = (tmp_path / "m.svg").read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    kprof.plot_file(MATMUL, tmp_path / "sub" / "m.png")  # creates the folder
    assert_picture_shows(kprof.plot_file(MATMUL), tmp_path / "sub" / "m.png")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_callback_sees_the_figure_before_it_is_written(matmul, tmp_path):
    seen = []

    def callback(fig):
        seen.append(fig)
        fig.axes[0].set_title("changed by the callback")

    fig = matmul.plot(tmp_path / "cb.png", metric="tflops", plot_callback=callback)
    assert seen == [fig]
    assert fig.axes[0].get_title() == "changed by the callback"


def test_print_data(matmul, capsys):
    matmul.plot(metric="tflops", print_data=True)
    out = capsys.readouterr().out
    assert "tflops" in out and "gpu__time_duration.sum" not in out
    assert "AvgValue" in out and "CI95_Lower" in out


# --- the decorator -------------------------------------------------------------------------------


def test_decorator_draws_and_returns_the_results(tmp_path):
    path = tmp_path / "deco.png"

    @kprof.analyze.plot(str(path), metric="tflops", title="fp32 matmul on the H200")
    def bench():  # stands for a kernel-decorated function: returns a real recording
        return kprof.load(MATMUL)

    results = bench()
    assert isinstance(results, ProfileResults) and results == kprof.load(MATMUL)
    img = decode(path)
    assert ink(img) > 0.02


def test_bare_decorator_writes_plot_png(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    @kprof.analyze.plot
    def bench():
        return kprof.load(DEMO)

    bench()
    assert ink(decode(tmp_path / "plot.png")) > 0.02


def test_decorator_needs_profile_results():
    @kprof.analyze.plot(None)
    def not_a_kernel():
        return 42

    with pytest.raises(TypeError, match="above kprof.analyze.kernel"):
        not_a_kernel()


def test_unknown_metric_after_the_profile_keeps_the_results(tmp_path):
    @kprof.analyze.plot(str(tmp_path / "x.png"), metric="dram__bytes.sum")
    def bench():
        return kprof.load(MATMUL)

    with pytest.raises(errors.OptionError) as info:
        bench()
    e = info.value
    assert e.option == "metric" and "'dram__bytes.sum'" in e.value
    assert "'gpu__time_duration.sum'" in e.valid and "'tflops'" in e.valid
    assert e.partial_results == kprof.load(MATMUL)
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize(
    ("options", "option", "valid"),
    [
        ({"plot_type": "scatter"}, "plot_type", "'line' or 'bar'"),
        ({"show_aggregate": "median"}, "show_aggregate", "'avg' or 'geomean'"),
        ({"plot_width": 0}, "plot_width", "positive"),
        ({"xscale": "log2"}, "xscale", "'auto'"),
        ({"row_panels": "n", "col_panels": ["n"]}, "col_panels", "row_panels"),
        ({"variant_fields": "n", "x_keys": ["n"]}, "x_keys", "variant_fields"),
        ({"variant_annotations": ["fma"]}, "variant_annotations", "variant_fields"),
        ({"metric": []}, "metric", "metric name"),
    ],
)
def test_bad_options_are_rejected_when_the_decorator_is_built(options, option, valid):
    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.plot("x.png", **options)
    assert info.value.option == option
    assert valid in info.value.valid
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("options", "argument", "given"),
    [
        ({"plot_callback": 3}, "plot_callback", "int"),
        ({"metric": 3}, "metric", "int"),
        ({"metric": ["tflops", 3]}, "metric", "list"),
        ({"title": 3}, "title", "int"),
        ({"ylabel": 3.0}, "ylabel", "float"),
        ({"plot_width": "6"}, "plot_width", "str"),
        ({"plot_height": True}, "plot_height", "bool"),
        ({"row_panels": 3}, "row_panels", "int"),
        ({"plot_type": 1}, "plot_type", "int"),
    ],
)
def test_wrong_types_are_type_errors_naming_the_argument(options, argument, given):
    for make in (
        lambda: kprof.analyze.plot("x.png", **options),
        lambda: PlotOptions.make(**options),
    ):
        with pytest.raises(TypeError) as info:
            make()
        assert not isinstance(info.value, errors.KprofError)
        assert f"{argument} must be " in str(info.value)
        assert f", not {given} (" in str(info.value)


@pytest.mark.parametrize("option", ["error_bars", "annotate_points", "print_data"])
@pytest.mark.parametrize("value", ["no", "False", 0, 1, None])
def test_yes_no_options_take_a_bool_and_nothing_that_reads_as_one(matmul, option, value):
    with pytest.raises(errors.OptionError) as info:
        matmul.plot(**{option: value})
    assert str(info.value) == f"{option}={value!r} is not valid; valid: True or False"
    assert (info.value.option, info.value.valid) == (option, "True or False")
    with pytest.raises(errors.OptionError):
        kprof.analyze.plot("x.png", **{option: value})


def test_numpys_bool_is_a_bool(matmul):
    fig = matmul.plot(metric="tflops", error_bars=np.False_, annotate_points=np.True_)
    ax = fig.axes[0]
    assert errorbar_ends(ax) == []
    assert len(ax.texts) == 4, "a mean written at each of the 4 points"
    assert errorbar_ends(matmul.plot(metric="tflops", error_bars=np.True_).axes[0])


def test_a_picture_format_matplotlib_lacks_is_refused_before_drawing(matmul, tmp_path, monkeypatch):
    drawn = []
    monkeypatch.setattr(visualization, "_draw", lambda *args: drawn.append(args))
    path = tmp_path / "x.unknownext"
    for call in (
        lambda: matmul.plot(path),
        lambda: kprof.plot_file(MATMUL, path),
        lambda: kprof.analyze.plot(str(path)),
    ):
        with pytest.raises(errors.OptionError) as info:
            call()
        e = info.value
        assert (e.option, e.value) == ("filename", repr(str(path)))
        assert ".png" in e.valid and ".svg" in e.valid and ".pdf" in e.valid
        assert str(e).startswith(f"filename={str(path)!r} is not valid; valid: a name ending in")
    assert drawn == [] and list(tmp_path.iterdir()) == []


def test_the_ending_picks_the_format_and_none_is_png(matmul, tmp_path):
    matmul.plot(tmp_path / "upper.SVG", metric="tflops")
    assert (tmp_path / "upper.SVG").read_bytes().lstrip().startswith(b"<?xml")
    matmul.plot(tmp_path / "plain", metric="tflops")
    assert (tmp_path / "plain").read_bytes().startswith(b"\x89PNG")


def test_a_filename_of_another_type_is_a_type_error(matmul):
    for call in (lambda: matmul.plot(3), lambda: kprof.analyze.plot(3)):
        with pytest.raises(
            TypeError, match=r"filename must be a str or os.PathLike, not int \(3\)"
        ):
            call()


def test_fields_are_checked_against_the_kernel_parameters():
    @kprof.analyze.kernel(configs=[(1, "a")])
    def bench(n, dtype):
        pass

    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.plot("x.png", x_keys=["size"])(bench)
    assert info.value.option == "x_keys"
    assert "'n', 'dtype'" in info.value.valid
    kprof.analyze.plot("x.png", x_keys=["n"], col_panels="dtype")(bench)  # fine


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"x_keys": ["m"]}, "x_keys"),
        ({"row_panels": ["size"]}, "row_panels"),
        ({"metric": ["tflops", "bogus"]}, "metric"),
        ({"variant_fields": ["n"], "variant_annotations": ["nope"]}, "variant_annotations"),
        ({"xscale": "log", "metric": "tflops", "x_keys": []}, "xscale"),
    ],
)
def test_options_that_do_not_fit_the_results(matmul, options, option):
    with pytest.raises(errors.OptionError) as info:
        matmul.plot(**options)
    assert info.value.option == option


def test_a_parameter_left_out_of_every_option_is_named(demo):
    # n and dtype are parameters; with x_keys=["dtype"] the two sizes fall on one point.
    with pytest.raises(errors.OptionError, match="add 'n' to x_keys") as info:
        demo.plot(x_keys=["dtype"])
    assert info.value.option == "x_keys"


def test_unknown_keyword_is_a_type_error(matmul):
    with pytest.raises(TypeError, match="unknown plot option"):
        matmul.plot(colour="red")
    with pytest.raises(TypeError):
        PlotOptions.make(bogus=1)


def test_without_matplotlib_the_error_says_how_to_install(monkeypatch):
    for name in list(sys.modules):
        if name == "matplotlib" or name.startswith("matplotlib."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install 'kprof\[plot\]'"):
        kprof.analyze.plot("x.png")
    with pytest.raises(ImportError, match="matplotlib"):
        kprof.load(MATMUL).plot()


def test_log_y_for_values_over_orders_of_magnitude(matmul):
    ax = matmul.plot(metric="gpu__time_duration.sum", yscale="log").axes[0]
    assert ax.get_yscale() == "log"
    lo, hi = ax.get_ylim()
    assert lo > 0 and math.log10(hi / lo) > 2


def test_an_unknown_metric_says_what_nsight_python_says(matmul):
    with pytest.raises(errors.OptionError) as info:
        matmul.plot(metric="bogus")
    assert str(info.value).startswith("Metric 'bogus' not found in the profile results.")
    assert info.value.option == "metric" and "'tflops'" in info.value.valid

"""Results at the size of a real sweep: every file operation of kprof against the same rows
handled by plain json and pandas, in the same run, at 1,000 configs x 20 metrics, 10,000 x 1 and
100,000 x 1 (10 runs a config), on a machine without a GPU.

The results files are synthetic, built from a real H200 recording (tests/data): its session and
schema kept, its configs, runs and metrics multiplied, every value a plausible one around the
recording's and aggregated by kprof's core (``_core._aggregate``), so that rows, samples and
records are what a profile of that size writes. Each operation runs in a process of its own; the
table gives its time and peak memory (the process's maximum resident set), kprof's and the
baseline's, and their ratios. The time is the operation's alone where it works on loaded results
(the load before a DataFrame or a save is not counted, on either side); commands are timed whole:

  load           kprof.load(JSON)                       json.load, DataFrames of rows and samples
  save_json      results.save(x.json)                   json.dump of the same document
  to_dataframe   results.to_dataframe()                 pd.DataFrame(rows)
  raw_dataframe  results.raw_dataframe()                pd.DataFrame(samples)
  save_parquet   results.save(x.parquet)                the rows and samples table's to_parquet
  load_parquet   kprof.load(x.parquet)                  pd.read_parquet of that table
  write_csv      results.write_csv(prefix, tag)         rows, samples and records to_csv
  read_csv       ProfileResults.read_csv(prefix, tag)   pd.read_csv of those three files
  report_html    kprof report FILE --html (with plots)  json.load, a DataFrame to_html, one figure
  compare        kprof compare A B                      two json loads, rows merged on their keys
  merge          kprof merge of 64 rank files           64 json loads, columns joined, dumped

The bounds: every ratio within 3 times the baseline's time and 2 times its memory at 100,000
configs (docs/validation.md has the figures).

Run:  python3 bench/results_scale.py [--sizes 1000x20,10000x1,100000x1] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RECORDING = ROOT / "tests" / "data" / "h200-python-counters-2026-11-30.json"
RUNS = 10
RANKS = 64


# --- the synthetic files ------------------------------------------------------------------------


def _metric_names(count: int, recorded: list[str]) -> list[str]:
    """The recording's metrics first, then made-up counters of the same form."""
    names = list(recorded[:count])
    names += [f"sm__synthetic_counter_{k}.sum" for k in range(count - len(names))]
    return names


def make_results(configs: int, metrics: int, path: Path, rank: int = 0) -> Path:
    """A results file of ``configs`` x ``metrics`` x RUNS runs, one region per config."""
    from kprof import _core

    recording = json.loads(RECORDING.read_text())
    session = {k: v for k, v in recording["session"].items() if v is not None}
    session.update(runs=RUNS, rank=rank, world_size=RANKS)
    recorded = recording["records"]
    base = dict(zip(recorded["metric"], recorded["value"], strict=False))
    units = dict(zip(recorded["metric"], recorded["unit"], strict=False))
    names = _metric_names(metrics, list(dict.fromkeys(recorded["metric"])))
    session["metrics"] = names
    kernel = recorded["kernel"][0]
    rng = np.random.default_rng(rank)
    n = configs * RUNS * metrics
    config = np.repeat(np.arange(configs), RUNS * metrics)
    run = np.tile(np.repeat(np.arange(RUNS), metrics), configs)
    metric_index = np.tile(np.arange(metrics), configs * RUNS)
    centre = np.array([base.get(m, 1000.0 + 10 * k) for k, m in enumerate(names)])
    value = centre[metric_index] * (1 + 1e-4 * np.arange(n) % 7) * rng.normal(1, 0.01, n)
    records = {
        "config": config.tolist(),
        "run": run.tolist(),
        "annotation": ["fma"] * n,
        "kernel": [kernel] * n,
        "kernel_index": [0] * n,
        "metric": [names[k] for k in metric_index],
        "value": np.abs(value).tolist(),
        "unit": [units.get(names[k], "B") for k in metric_index],
    }
    options = _core.Options()
    options.runs = RUNS
    options.metrics = names
    points = [[1024 * (c + 1), "fp32"] for c in range(configs)]
    results = _core._aggregate(session, ["n", "dtype"], points, records, options)
    results.write_json(str(path))
    return path


def make_rank_files(configs: int, folder: Path) -> list[Path]:
    """RANKS files of one job, each with a share of ``configs`` configs (1 metric)."""
    share = max(1, configs // RANKS)
    folder.mkdir(parents=True, exist_ok=True)
    return [make_results(share, 1, folder / f"rank{r}.json", rank=r) for r in range(RANKS)]


# --- the operations, each in a process of its own -----------------------------------------------

# Each operation is (setup, timed): Python run in a child, the names below defined; the child
# prints the seconds `timed` took (setup excluded, as loading before a DataFrame is), and its
# peak memory is the whole child's. "CLI ..." runs the kprof command instead, timed whole.
# `A` and `B` are results files, `OUT` a folder to write in, `FILES` the rank files, `PARQUET`
# and `BASE_PARQUET` the Parquet files the saves wrote, `CSV` the prefix the CSV writes used.
_LOAD_KPROF = "import kprof; r = kprof.load(A)"
_LOAD_JSON = "import json, pandas as pd; d = json.load(open(A))"
_FRAMES = (
    _LOAD_JSON + "; rows = pd.DataFrame({k: v for k, v in d['rows'].items() if k != 'info'});"
    "s = pd.DataFrame(d['samples']); k = pd.DataFrame(d['records'])"
)
_TABLE = _FRAMES + (
    "; rows.insert(0, 'Kind', 'row'); s.insert(0, 'Kind', 'sample');"
    "table = pd.concat([rows, s], ignore_index=True)"
)

KPROF = {
    "load": ("import kprof", "kprof.load(A)"),
    "save_json": (_LOAD_KPROF, "r.save(OUT + '/r.json')"),
    "to_dataframe": (_LOAD_KPROF, "r.to_dataframe()"),
    "raw_dataframe": (_LOAD_KPROF, "r.raw_dataframe()"),
    "save_parquet": (_LOAD_KPROF, "r.save(PARQUET)"),
    "load_parquet": ("import kprof", "kprof.load(PARQUET)"),
    "write_csv": (_LOAD_KPROF, "r.write_csv(CSV, 't')"),
    "read_csv": ("import kprof", "kprof.ProfileResults.read_csv(CSV, 't')"),
    "report_html": ("", "CLI report A --html OUT/r.html"),
    "compare": ("", "CLI compare A B"),
    "merge": ("", "CLI merge FILES --out OUT/merged.json"),
}

BASELINE = {
    "load": (
        "import json, pandas as pd",
        "d = json.load(open(A)); pd.DataFrame(d['rows']); pd.DataFrame(d['samples'])",
    ),
    "save_json": (_LOAD_JSON, "json.dump(d, open(OUT + '/b.json', 'w'))"),
    "to_dataframe": (_LOAD_JSON, "pd.DataFrame(d['rows'])"),
    "raw_dataframe": (_LOAD_JSON, "pd.DataFrame(d['samples'])"),
    "save_parquet": (_TABLE, "table.to_parquet(BASE_PARQUET)"),
    "load_parquet": ("import pandas as pd", "pd.read_parquet(BASE_PARQUET)"),
    "write_csv": (
        _FRAMES,
        "[f.to_csv(OUT + f'/b-{n}.csv', index=False)"
        " for n, f in (('r', rows), ('s', s), ('k', k))]",
    ),
    "read_csv": ("import pandas as pd", "[pd.read_csv(OUT + f'/b-{n}.csv') for n in 'rsk']"),
    "report_html": (
        "import json, pandas as pd, matplotlib; matplotlib.use('Agg');"
        "import matplotlib.pyplot as plt",
        "d = json.load(open(A));"
        "rows = pd.DataFrame({k: v for k, v in d['rows'].items() if k != 'info'});"
        "open(OUT + '/b.html', 'w').write(rows.to_html());"
        "fig, ax = plt.subplots(); ax.plot(rows['mean'].to_numpy()); fig.savefig(OUT + '/b.png')",
    ),
    "compare": (
        "import json, pandas as pd",
        "keys = ['annotation', 'metric', 'config', 'kernel_index'];"
        "a, b = (pd.DataFrame({k: v for k, v in json.load(open(p))['rows'].items() if k != 'info'})"
        " for p in (A, B));"
        "m = a.merge(b, on=keys, suffixes=('_a', '_b')); (m['mean_b'] / m['mean_a'] - 1) * 100",
    ),
    "merge": (
        "import json",
        "parts = [json.load(open(p)) for p in FILES];"
        "out = {k: {c: sum((p[k][c] for p in parts), []) for c in parts[0][k]}"
        " for k in ('records', 'samples', 'rows', 'configs', 'runs', 'info')};"
        "json.dump(out, open(OUT + '/b.json', 'w'))",
    ),
}


def _child_code(setup: str, timed: str, names: dict[str, str]) -> list[str]:
    """The command of one operation: `CLI ...` runs the kprof command (a word that is a name, or
    a name and a path in it, stands for its value), anything else runs Python with the names
    defined, printing the seconds `timed` took."""
    if timed.startswith("CLI "):
        words: list[str] = []
        for word in timed[4:].split():
            name, _, rest = word.partition("/")
            if name == "FILES":
                words += json.loads(names["FILES"])
            elif name in names:
                words.append(names[name] + ("/" + rest if rest else ""))
            else:
                words.append(word)
        return [sys.executable, "-m", "kprof.cli", *words]
    prelude = "".join(
        f"{k} = {v}\n" if k == "FILES" else f"{k} = {v!r}\n" for k, v in names.items()
    )
    body = f"import time\n{setup}\nt0 = time.perf_counter()\n{timed}\n"
    body += "print('seconds', time.perf_counter() - t0)\n"
    return [sys.executable, "-c", prelude + body]


def _peak_of(command: list[str]) -> tuple[float, float]:
    """(seconds, peak resident MB) of `command` in a fresh grandchild, so that every peak is the
    command's own; the seconds are what the command printed, else its wall time."""
    wrapper = textwrap.dedent(
        """
        import json, resource, subprocess, sys, time
        t0 = time.perf_counter()
        done = subprocess.run(json.loads(sys.argv[1]), capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        if done.returncode:
            sys.exit(done.stderr[-2000:])
        for line in done.stdout.splitlines():
            if line.startswith("seconds "):
                seconds = float(line.split()[1])
        print(seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", wrapper, json.dumps(command)], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:4])}... failed:\n{done.stderr[-2000:]}")
    seconds, peak = done.stdout.split()
    return float(seconds), float(peak)


def run_size(configs: int, metrics: int, folder: Path, only: list[str]) -> list[dict]:
    a = make_results(configs, metrics, folder / "a.json")
    b = make_results(configs, metrics, folder / "b.json", rank=1)
    files = make_rank_files(configs, folder / "ranks") if "merge" in only else []
    out = folder / "out"
    out.mkdir(exist_ok=True)
    names = {
        "A": str(a),
        "B": str(b),
        "OUT": str(out),
        "PARQUET": str(out / "r.parquet"),
        "BASE_PARQUET": str(out / "b.parquet"),
        "CSV": str(out) + "/",
        "FILES": json.dumps([str(f) for f in files]),
    }
    table = []
    # In KPROF's order: each save or write before the load or read of what it wrote.
    for op in only:
        for path in (out / "r.html", out / "merged.json"):
            path.unlink(missing_ok=True)
        for path in (out / "r.parquet", out / "b.parquet", out / "r.json"):
            if op.startswith("save"):
                path.unlink(missing_ok=True)
        mine = _peak_of(_child_code(*KPROF[op], names))
        base = _peak_of(_child_code(*BASELINE[op], names))
        table.append(
            {"op": op, "size": f"{configs:,} x {metrics}", "kprof": mine, "baseline": base}
        )
        print(_line(table[-1]), flush=True)
    return table


def _line(entry: dict) -> str:
    (ks, km), (bs, bm) = entry["kprof"], entry["baseline"]
    return (
        f"{entry['op']:<14}{entry['size']:>14}  {ks:8.2f} s {km:8.0f} MB   {bs:8.2f} s "
        f"{bm:8.0f} MB   {ks / bs:6.2f}x {km / bm:6.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000x20,10000x1,100000x1")
    parser.add_argument("--only", default=",".join(KPROF), help="operations, comma-separated")
    parser.add_argument("--keep", help="a folder to keep the files in (default: a temporary one)")
    args = parser.parse_args()
    only = [op for op in KPROF if op in args.only.split(",")]
    print(f"{'operation':<14}{'size':>14}  {'kprof':>19}   {'plain json/pandas':>19}   ratio")
    for size in args.sizes.split(","):
        configs, metrics = (int(x) for x in size.split("x"))
        if args.keep:
            folder = Path(args.keep) / size
            folder.mkdir(parents=True, exist_ok=True)
            run_size(configs, metrics, folder, only)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                run_size(configs, metrics, Path(tmp), only)


if __name__ == "__main__":
    main()

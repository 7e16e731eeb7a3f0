"""Results at the size of a real sweep: every file operation of kprof against the same rows
handled by plain json and pandas, in the same run, at 1,000 configs x 20 metrics, 10,000 x 1 and
100,000 x 1 (10 runs a config), on a machine without a GPU.

The results files are synthetic, built from a real H200 recording (tests/data): its session and
schema kept, its configs, runs and metrics multiplied, every value a plausible one around the
recording's and aggregated by kprof's core (``_core._aggregate``), so that rows, samples and
records are what a profile of that size writes. Each operation runs in a process of its own; the
table gives its wall time and peak memory (the process's maximum resident set), kprof's and the
baseline's, and their ratios:

  load          kprof.load(JSON)                         json.load + DataFrames of rows and samples
  to_dataframe  load, then results.to_dataframe()        the same + pd.DataFrame(rows)
  raw_dataframe load, then results.raw_dataframe()       the same + pd.DataFrame(samples)
  save_parquet  load, then results.save(x.parquet)       the same rows and samples to_parquet
  load_parquet  kprof.load(x.parquet)                    pd.read_parquet of that table
  csv           load, write_csv, read_csv back           DataFrames to_csv, read_csv back
  report_html   kprof report FILE --html (with plots)    a DataFrame to_html and one figure
  compare       kprof compare A B                        two json loads, rows merged on their keys
  merge         kprof merge of 64 rank files             64 json loads, columns concatenated, dumped

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

# Python run in a child: `A` is the first input file, `B` the second, `OUT` a folder to write in,
# `FILES` the rank files. Each prints nothing; the parent reads its time and peak memory.
KPROF = {
    "load": "import kprof; kprof.load(A)",
    "to_dataframe": "import kprof; kprof.load(A).to_dataframe()",
    "raw_dataframe": "import kprof; kprof.load(A).raw_dataframe()",
    "save_parquet": "import kprof; kprof.load(A).save(OUT + '/r.parquet')",
    "load_parquet": "import kprof; kprof.load(PARQUET)",
    "csv": (
        "import kprof; r = kprof.load(A); r.write_csv(OUT + '/', 't');"
        "kprof.ProfileResults.read_csv(OUT + '/', 't')"
    ),
    "report_html": "CLI report A --html OUT/r.html",
    "compare": "CLI compare A B",
    "merge": "CLI merge FILES --out OUT/merged.json",
}

BASELINE = {
    "load": (
        "import json, pandas as pd; d = json.load(open(A));"
        "pd.DataFrame(d['rows']); pd.DataFrame(d['samples'])"
    ),
    "to_dataframe": (
        "import json, pandas as pd; d = json.load(open(A));"
        "pd.DataFrame(d['samples']); pd.DataFrame(d['rows'])"
    ),
    "raw_dataframe": (
        "import json, pandas as pd; d = json.load(open(A));"
        "pd.DataFrame(d['rows']); pd.DataFrame(d['samples'])"
    ),
    "save_parquet": (
        "import json, pandas as pd; d = json.load(open(A));"
        "rows = pd.DataFrame({k: v for k, v in d['rows'].items() if k != 'info'});"
        "rows.insert(0, 'Kind', 'row'); s = pd.DataFrame(d['samples']);"
        "s.insert(0, 'Kind', 'sample');"
        "pd.concat([rows, s], ignore_index=True).to_parquet(OUT + '/b.parquet')"
    ),
    "load_parquet": "import pandas as pd; pd.read_parquet(BASE_PARQUET)",
    "csv": (
        "import json, pandas as pd; d = json.load(open(A));"
        "rows = pd.DataFrame({k: v for k, v in d['rows'].items() if k != 'info'});"
        "s = pd.DataFrame(d['samples']); r = pd.DataFrame(d['records']);"
        "[f.to_csv(OUT + f'/{n}.csv', index=False) for n, f in (('r', rows), ('s', s), ('k', r))];"
        "[pd.read_csv(OUT + f'/{n}.csv') for n in 'rsk']"
    ),
    "report_html": (
        "import json, pandas as pd, matplotlib; matplotlib.use('Agg');"
        "import matplotlib.pyplot as plt; d = json.load(open(A));"
        "rows = pd.DataFrame({k: v for k, v in d['rows'].items() if k != 'info'});"
        "open(OUT + '/b.html', 'w').write(rows.to_html());"
        "fig, ax = plt.subplots(); ax.plot(rows['mean'].to_numpy()); fig.savefig(OUT + '/b.png')"
    ),
    "compare": (
        "import json, pandas as pd; keys = ['annotation', 'metric', 'config', 'kernel_index'];"
        "a, b = (pd.DataFrame({k: v for k, v in json.load(open(p))['rows'].items() if k != 'info'})"
        " for p in (A, B));"
        "m = a.merge(b, on=keys, suffixes=('_a', '_b'));"
        "(m['mean_b'] / m['mean_a'] - 1) * 100"
    ),
    "merge": (
        "import json; parts = [json.load(open(p)) for p in FILES];"
        "out = {k: {c: sum((p[k][c] for p in parts), []) for c in parts[0][k]}"
        " for k in ('records', 'samples', 'rows', 'configs', 'runs', 'info')};"
        "json.dump(out, open(OUT + '/b.json', 'w'))"
    ),
}


def _child_code(code: str, names: dict[str, str]) -> list[str]:
    """The command of one operation: `CLI ...` runs the kprof command (a word that is a name, or
    a name and a path in it, stands for its value), anything else runs Python with the names
    defined."""
    if code.startswith("CLI "):
        words: list[str] = []
        for word in code[4:].split():
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
    return [sys.executable, "-c", prelude + code]


def _peak_of(command: list[str]) -> tuple[float, float]:
    """measure() in a fresh grandchild, so that every peak is the command's own."""
    wrapper = textwrap.dedent(
        """
        import json, resource, subprocess, sys, time
        t0 = time.perf_counter()
        done = subprocess.run(json.loads(sys.argv[1]), capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        if done.returncode:
            sys.exit(done.stderr[-2000:])
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
        "FILES": json.dumps([str(f) for f in files]),
    }
    table = []
    for op in only:  # save_parquet before load_parquet: the loads read what the saves wrote
        for path in (out / "r.html", out / "merged.json"):
            path.unlink(missing_ok=True)
        mine = _peak_of(_child_code(KPROF[op], names))
        base = _peak_of(_child_code(BASELINE[op], names))
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

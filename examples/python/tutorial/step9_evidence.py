"""Tutorial step 9: keep the evidence on disk, and compare two saved runs.

Profile a sweep, save it (JSON: options, device, versions, every run), load it back as a
baseline, profile a changed version, and let kprof.compare say, per row, what got faster or
slower (Mann-Whitney U over the runs). The same comparison is `kprof compare base.json new.json`
on any machine, GPU or not; `kprof report new.json --html new.html` shows one of them.
"""

import tempfile
from pathlib import Path

import kprof
import torch

SIZES = [1024, 2048, 4096]
inputs = {n: (torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")) for n in SIZES}


def sweep(dtype):
    @kprof.analyze.kernel(configs=SIZES, runs=10)
    def matmul(n):
        a, b = (t.to(dtype) for t in inputs[n])
        with kprof.annotate("matmul"):
            a @ b

    return matmul()


folder = Path(tempfile.mkdtemp(prefix="kprof-tutorial-"))
sweep(torch.float32).save(folder / "base.json")
baseline = kprof.load(folder / "base.json")  # needs no GPU
candidate = sweep(torch.bfloat16)
candidate.save(folder / "new.json")
verdicts = kprof.compare(baseline, candidate)
print(verdicts.to_string(index=False))
print(f"saved in {folder}")

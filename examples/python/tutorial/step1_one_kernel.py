"""Tutorial step 1: profile one kernel.

y = 2x over 2^26 floats (256 MiB in, 256 MiB out), 10 runs, each with a cold L2. The table
gives the mean, the median, the spread and a 95% interval of the kernel's duration.
"""

import kprof
import torch

x = torch.rand(2**26, device="cuda")
y = torch.empty_like(x)


@kprof.analyze.kernel(runs=10)
def scale():
    with kprof.annotate("scale"):
        torch.mul(x, 2.0, out=y)


results = scale()
print(results.table())
row = results.to_dataframe().iloc[0]
gbps = 2 * x.numel() * 4 / row["AvgValue"]  # bytes per ns = GB/s
print(f"scale: {row['AvgValue'] / 1e3:.1f} us, {gbps:.0f} GB/s moved")

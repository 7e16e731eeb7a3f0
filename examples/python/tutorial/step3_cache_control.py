"""Tutorial step 3: what does cache control do?

A 1 MiB y = 2x fits the L2 many times over. With cache_control="all" (the default) kprof evicts
the L2 before the kernel, so its input comes from DRAM; with "none" it comes from the L2 the
previous run left warm.
"""

import kprof
import torch

x = torch.rand(2**18, device="cuda")
y = torch.empty_like(x)


def profile(cache_control):
    @kprof.analyze.kernel(runs=31, cache_control=cache_control)
    def scale():
        with kprof.annotate("scale"):
            torch.mul(x, 2.0, out=y)

    return scale().to_dataframe().iloc[0]


cold, warm = profile("all"), profile("none")
print(f"cold L2 (cache_control='all'):  median {cold['Median']:.0f} ns")
print(f"warm L2 (cache_control='none'): median {warm['Median']:.0f} ns")
print(f"cold / warm: {cold['Median'] / warm['Median']:.2f}")

"""Paired comparison with replicates: python rep_paired.py 'A*.json' 'B*.json'.
Each bot's per-deal result is averaged over its files (bot seeds), then the per-deal
difference B - A gets a 95% t interval."""
import glob, json, sys
import numpy as np
from scipy import stats

def per_deal(pattern):
    files = sorted(glob.glob(pattern))
    table = {}
    spm = []
    for f in files:
        d = json.load(open(f))
        spm.append(d["summary"]["seconds_per_move"])
        for r in d["rows"]:
            table.setdefault(r["deal_seed"], []).append(r["result"])
    return files, table, np.mean(spm)

def ci(x):
    x = np.asarray(x, float); n = len(x); m = x.mean()
    h = stats.t.ppf(0.975, n - 1) * x.std(ddof=1) / np.sqrt(n)
    return m, m - h, m + h

fa, ta, sa = per_deal(sys.argv[1]); fb, tb, sb = per_deal(sys.argv[2])
deals = sorted(d for d in set(ta) & set(tb) if len(ta[d]) == len(fa) and len(tb[d]) == len(fb))
xa = np.array([np.mean(ta[d]) for d in deals]); xb = np.array([np.mean(tb[d]) for d in deals])
for name, files, x, s in ((sys.argv[1], fa, xa, sa), (sys.argv[2], fb, xb, sb)):
    m, lo, hi = ci(x)
    print(f"{name}: {len(files)} runs, mean {m:.2f} [{lo:.2f}, {hi:.2f}], {1000*s:.1f} ms/move")
m, lo, hi = ci(xb - xa)
print(f"paired B - A over {len(deals)} deals: {m:+.2f} [{lo:+.2f}, {hi:+.2f}]")

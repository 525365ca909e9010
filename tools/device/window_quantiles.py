# Window muons of `fastmu run --example ship` outputs (HDF5) or `fastmu validate`
# CSVs: status counts, then the |p|, x, y quantiles of the window muons.
import sys, h5py, numpy as np
def read(path):
    if path.endswith(".csv"):  # fast.csv / detailed.csv of `fastmu validate`
        with open(path) as f:
            cols = f.readline().strip().split(",")
        return cols, np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    with h5py.File(path, "r") as f:
        d = f["muons"]
        cols = d.attrs.get("columns", b"id,px,py,pz,x,y,z,pdg,weight,status")
        if isinstance(cols, (bytes, np.bytes_)):
            cols = cols.decode()
        if isinstance(cols, str):
            cols = cols.split(",")
        return [c.decode() if isinstance(c, bytes) else str(c) for c in cols], d[...]


for path in sys.argv[1:]:
    cols, a = read(path)
    c = {n.strip(): a[:, i] for i, n in enumerate(cols[: a.shape[1]])}
    if "status" in c:
        print(f"{path}: status counts", dict(zip(*[v.tolist() for v in np.unique(c["status"].astype(int), return_counts=True)])))
    sel = c["status"] == 0 if "status" in c else np.ones(len(a), bool)
    p = np.sqrt(c["px"] ** 2 + c["py"] ** 2 + c["pz"] ** 2)[sel]
    q = lambda v: "/".join(f"{x:.3f}" for x in np.quantile(v, [0.1, 0.5, 0.9]))

    def q_err(v):  # quantiles with the half-width of their 68 % order-statistics interval
        v = np.sort(v)
        n = len(v)
        out = []
        for f in (0.1, 0.5, 0.9):
            d = np.sqrt(f * (1 - f) / n)
            lo, hi = np.quantile(v, [max(f - d, 0), min(f + d, 1)])
            out.append(f"{np.quantile(v, f):.2f}+-{0.5 * (hi - lo):.2f}")
        return "/".join(out)

    print(f"{path}: window {sel.sum()}, |p| q10/50/90 {q_err(p)} GeV/c, x {q(c['x'][sel])} m, y {q(c['y'][sel])} m")
    x = c["x"][sel]; pdg = c["pdg"][sel]
    for name, m in (("mu-", pdg > 0), ("mu+", pdg < 0)):
        print(f"   {name}: {m.sum()} muons, x q10/50/90 {q(x[m])} m, |p| q50 {np.median(p[m]):.3f}")
    for lo, hi in ((-2, -1), (-1, -0.5), (-0.5, 0), (0, 0.5), (0.5, 1), (1, 2)):
        print(f"   x in [{lo}, {hi}): {np.sum((x >= lo) & (x < hi))}")

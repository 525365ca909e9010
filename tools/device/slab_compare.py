# The iron block's fast-transport outputs (iron_block_fast.f32 of `fastmu run
# --example iron-block`) against the Geant4 slab sample (first argument): stopped
# fraction, momentum-loss quantiles, x and px rms of the muons that got through.
import sys
import numpy as np


def summary(path):
    a = np.fromfile(path, dtype="<f4").reshape(-1, 7).astype(float)
    p = np.linalg.norm(a[:, 1:4], axis=1)
    ok = p > 0
    loss = a[ok, 0] - p[ok]
    n = len(a)
    q = "/".join(f"{x:.3f}" for x in np.quantile(loss, [0.1, 0.5, 0.9]))
    x_rms = np.sqrt(np.mean(a[ok, 4] ** 2))
    px_rms = np.sqrt(np.mean(a[ok, 1] ** 2))
    return (f"n {n}, stopped {1 - ok.sum() / n:.5f}, loss q10/50/90 {q} mean {loss.mean():.3f} GeV/c, "
            f"x rms {100 * x_rms:.3f} +- {100 * x_rms / np.sqrt(2 * ok.sum()):.3f} cm, px rms {px_rms:.4f} GeV/c")


for path in sys.argv[1:]:
    print(f"{path}: {summary(path)}")

#!/usr/bin/python3
"""Compare the detailed physics engine with the Geant4 reference samples.

Runs `fastmu physics sample` (2 cm spheres) and `fastmu physics transport`
(10 m iron slab) and prints, for each case, our quantiles next to Geant4's
with the relative difference and the tolerance of the acceptance tests.

  tools/validate_physics.py --fastmu build/fastmu [--n 50000] [--slab-n 5000]
  tools/validate_physics.py --compare ours.csv REF.f32      (compare two files)

Files: CSV with columns p0,px,py,pz,x,y,z (ours), or raw float32 (.f32, Geant4).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

REF = os.environ.get("FASTMU_REFERENCE_DIR",
                     os.path.join(os.path.dirname(__file__), "..", "..", "shared", "reference", "geant4"))
SPHERE_TOL = {25: 0.05, 50: 0.05, 75: 0.05, 90: 0.08, 99: 0.15}


def load(path):
    if path.endswith(".f32"):
        return np.fromfile(path, dtype="<f4").reshape(-1, 7).astype(np.float64)
    if path.endswith(".h5") or path.endswith(".hdf5"):
        import h5py
        with h5py.File(path, "r") as f:
            return np.asarray(f["muons"], dtype=np.float64)
    return np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)


def row(name, ours, ref, tol, abs_tol=0.0):
    diff = ours - ref
    rel = diff / ref if ref != 0 else float("inf")
    ok = abs(rel) <= tol or abs(diff) <= abs_tol
    print(f"  {name:<14s} ours {ours:12.6g}  g4 {ref:12.6g}  rel {100 * rel:+7.2f}%  "
          f"tol {100 * tol:4.1f}%{'' if abs_tol == 0 else f' or {abs_tol:g}'}  {'ok' if ok else 'FAIL'}")
    return ok


def compare_sphere(ours, ref):
    ok = True
    for label, f in (("loss p0-pz", lambda a: a[:, 0] - a[:, 3]),
                     ("pt", lambda a: np.hypot(a[:, 1], a[:, 2]))):
        qo = np.percentile(f(ours), list(SPHERE_TOL))
        qr = np.percentile(f(ref), list(SPHERE_TOL))
        for (q, tol), a, b in zip(SPHERE_TOL.items(), qo, qr):
            ok &= row(f"{label} q{q}", a, b, tol)
    return ok


def compare_slab(ours, ref):
    ok = True
    def stopped(a):
        return (a[:, 1] == 0) & (a[:, 2] == 0) & (a[:, 3] == 0)
    so, sr = stopped(ours).mean(), stopped(ref).mean()
    ok &= row("stopped frac", so, sr, 0.05, 0.004)
    lo = ours[~stopped(ours)]
    lr = ref[~stopped(ref)]
    loss = lambda a: a[:, 0] - np.sqrt(a[:, 1] ** 2 + a[:, 2] ** 2 + a[:, 3] ** 2)
    for q in (10, 50, 90):
        ok &= row(f"loss q{q}", np.percentile(loss(lo), q), np.percentile(loss(lr), q), 0.03)
    for col, name, atol in ((4, "x", 0.01), (1, "px", 0.02)):
        for q in (10, 25, 75, 90):
            ok &= row(f"{name} q{q}", np.percentile(lo[:, col], q), np.percentile(lr[:, col], q), 0.05, atol)
    ok &= row("x rms", np.sqrt(np.mean(lo[:, 4] ** 2)), np.sqrt(np.mean(lr[:, 4] ** 2)), 0.07)
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fastmu", default="build/fastmu", help="fastmu executable")
    ap.add_argument("--n", type=int, default=50000, help="muons per sphere case")
    ap.add_argument("--slab-n", type=int, default=5000, help="muons for the slab case")
    ap.add_argument("--materials", default="G4_Fe,G4_CONCRETE")
    ap.add_argument("--momenta", default="0.5,1,3,10,30,100,300")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-slab", action="store_true")
    ap.add_argument("--compare", nargs=2, metavar=("OURS", "REF"), help="only compare two files")
    args = ap.parse_args()

    if args.compare:
        ours, ref = load(args.compare[0]), load(args.compare[1])
        ok = compare_slab(ours, ref) if "slab" in os.path.basename(args.compare[1]) else compare_sphere(ours, ref)
        return 0 if ok else 1

    all_ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for mat in args.materials.split(","):
            for p in args.momenta.split(","):
                ref_path = os.path.join(REF, f"sphere2cm_{mat}_p{p}GeV_mu-.f32")
                if not os.path.exists(ref_path):
                    print(f"{mat} p={p}: no reference {ref_path}")
                    continue
                out = os.path.join(tmp, "s.csv")
                subprocess.run([args.fastmu, "physics", "sample", "--material", mat, "--p", p,
                                "--step", "0.02", "--n", str(args.n), "--seed", str(args.seed),
                                "--threads", str(args.threads), "--out", out], check=True)
                print(f"{mat} sphere 2 cm, p = {p} GeV/c")
                all_ok &= compare_sphere(load(out), load(ref_path))
        if not args.no_slab:
            ref_path = os.path.join(REF, "slab_G4_Fe_10m_50GeV_mu-.f32")
            out = os.path.join(tmp, "slab.csv")
            subprocess.run([args.fastmu, "physics", "transport", "--material", "G4_Fe", "--thickness", "10",
                            "--p", "50", "--n", str(args.slab_n), "--seed", str(args.seed),
                            "--threads", str(args.threads), "--out", out], check=True)
            print("G4_Fe slab 10 m, 50 GeV/c")
            all_ok &= compare_slab(load(out), load(ref_path))
    print("ALL OK" if all_ok else "SOME FAIL")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""fastmu.transport under mpi4py: each rank transports its slice of the
muons (`first_id` = the slice's first row, so its muons keep their ids and
random numbers) and rank 0 gathers the results in rank order. The gathered
result equals a one-process fastmu.transport of all the muons, which rank 0
checks with --check.

    mpirun -np 2 python3 examples/mpi_transport.py --n 200000 --samples-per-bin 20000 --check

Each rank uses its own cores (threads=0: all it sees; give mpirun
`--bind-to none` or `--map-by` options to share a node's cores) or, with
backend="cuda", its GPU (set CUDA_VISIBLE_DEVICES per rank, e.g. from
OMPI_COMM_WORLD_LOCAL_RANK, before importing fastmu).
"""

import argparse
import time

import numpy as np
from mpi4py import MPI

import fastmu


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000, help="muons in all")
    ap.add_argument("--samples-per-bin", type=int, default=20000,
                    help="table statistics (a quick table, built once by rank 0)")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--check", action="store_true", help="rank 0 compares with one process")
    args = ap.parse_args()
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()

    # Rank 0 builds the table, the others load it: no rank races on a file.
    table_file = "mpi_example_G4_Fe_2cm.h5"  # in the working folder
    if rank == 0:
        fastmu.build_table("G4_Fe", step=0.02, samples_per_bin=args.samples_per_bin).save(table_file)
    comm.Barrier()
    fe = fastmu.load_table(table_file)
    geo = fastmu.Geometry.from_dict(fastmu.examples.iron_block_geometry())

    # Every rank makes the same input (or reads its rows of a file).
    rng = np.random.default_rng(7)
    muons = np.zeros((args.n, 8), np.float32)
    muons[:, 2] = rng.uniform(5, 100, args.n)
    muons[:, 6] = np.where(rng.random(args.n) < 0.5, 13, -13)
    muons[:, 7] = 1.0
    begin, end = args.n * rank // size, args.n * (rank + 1) // size

    t0 = time.perf_counter()
    part = fastmu.transport(muons[begin:end], geo, tables=[fe], backend=args.backend, all=True,
                            first_id=begin)
    seconds = time.perf_counter() - t0
    parts = comm.gather(part, root=0)
    slowest = comm.reduce(seconds, op=MPI.MAX, root=0)
    if rank == 0:
        out = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        print(f"{size} ranks: {args.n} muons in {slowest:.3f} s (slowest rank); "
              f"{np.count_nonzero(out['status'] == 0)} at the plane")
        if args.check:
            one = fastmu.transport(muons, geo, tables=[fe], backend=args.backend, all=True)
            same = all(np.array_equal(one[k], out[k]) for k in one)
            print("identical to one process:", same)
            if not same:
                raise SystemExit(1)


if __name__ == "__main__":
    main()

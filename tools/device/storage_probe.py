#!/usr/bin/env python3
"""What the storage under DIR gives a process (issue 9: the iron-block run is
bound by writing its output): buffered writes of SIZE bytes into one new file
by 1, 2, 4 and 8 threads (positioned writes of 8 MiB blocks), the same through
a shared mmap of the file filled by the threads, and reads of the file back
(it is then in the page cache) by 1 and 4 threads. One line per case:
threads, seconds, GB/s.

    python3 tools/device/storage_probe.py DIR [--gb 2.7]
"""

import argparse
import mmap
import os
import subprocess
import threading
import time

BLOCK = 8 << 20


def split(n_blocks, threads):
    per = (n_blocks + threads - 1) // threads
    return [(t * per, min(n_blocks, (t + 1) * per)) for t in range(threads)]


def run_threads(threads, target):
    ts = [threading.Thread(target=target, args=(t,)) for t in range(threads)]
    t0 = time.perf_counter()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return time.perf_counter() - t0


def probe(path, size, threads, how, data):
    n_blocks = size // BLOCK
    parts = split(n_blocks, threads)
    if how == "read":
        fd = os.open(path, os.O_RDONLY)

        def body(t):
            buf = bytearray(BLOCK)
            for b in range(*parts[t]):
                os.preadv(fd, [buf], b * BLOCK)

        dt = run_threads(threads, body)
        os.close(fd)
        return dt
    if os.path.exists(path):
        os.unlink(path)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    t0 = time.perf_counter()
    if how == "pwrite":

        def body(t):
            for b in range(*parts[t]):
                os.pwrite(fd, data, b * BLOCK)

        run_threads(threads, body)
    else:  # mmap
        os.ftruncate(fd, n_blocks * BLOCK)
        m = mmap.mmap(fd, n_blocks * BLOCK)

        def body(t):
            for b in range(*parts[t]):
                m[b * BLOCK:(b + 1) * BLOCK] = data

        run_threads(threads, body)
        m.close()
    os.close(fd)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--gb", type=float, default=2.7)
    args = ap.parse_args()
    size = int(args.gb * 1e9) // BLOCK * BLOCK
    path = os.path.join(args.dir, "storage_probe.bin")
    fs = subprocess.run(["df", "-T", args.dir], capture_output=True, text=True).stdout
    print(f"storage_probe: {args.dir}, {size / 1e9:.2f} GB\n{fs.strip()}", flush=True)
    data = os.urandom(BLOCK)
    for how, counts in (("pwrite", (1, 2, 4, 8)), ("mmap", (1, 4, 8)), ("read", (1, 4))):
        for threads in counts:
            dt = probe(path, size, threads, how, data)
            print(f"{how:6s} threads {threads}: {dt:.3f} s, {size / dt / 1e9:.2f} GB/s", flush=True)
    os.unlink(path)


if __name__ == "__main__":
    main()

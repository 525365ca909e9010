#!/usr/bin/env python3
"""Hostile inputs through the `fastmu` command: every case is a command line,
the files it reads and the class of outcome it must have.

  error  exit status 1 or 2, one `fastmu: error:` line on stderr that names
         the input (`mention`), nothing after it
  ok     exit status 0
  any    either of the two (the case checks the invariants only)

Full-disk cases run with a file size limit (RLIMIT_FSIZE, SIGXFSZ ignored:
writes past it fail with EFBIG, as on a full disk, without root) and check
that the output is absent or, when it existed, unchanged.

Every case, whatever its class: no signal, at most --timeout seconds, no
`internal error`, HDF5 diagnostics or stack dumps on stderr, the input files
byte for byte unchanged and no temporary file (`.NAME.part<pid>`) left in its
folder. Interrupt cases send SIGINT, SIGTERM or SIGHUP mid-run and check
that the output's temporary file is gone.

usage: hostile_inputs.py FASTMU [--jobs N] [--timeout S] [--filter TEXT] [--list]
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

DUMPS = ("internal error", "HDF5-DIAG", "terminate called", "Traceback", "incompatible function",
         "Segmentation", "core dumped", "what():")

GEOMETRY = {
    "world": {"min": [-2.0, -2.0, -1.0], "max": [2.0, 2.0, 2.0], "material": "vacuum"},
    "volumes": [{"name": "sheet", "shape": "box", "min": [-1.0, -1.0, 0.0],
                 "max": [1.0, 1.0, 0.05], "material": "G4_Fe"}],
    "sensitive_planes": [{"z": 1.0, "x": [-2.0, 2.0], "y": [-2.0, 2.0]}],
}
MUON_HEADER = "px,py,pz,x,y,z,pdg"
MUON_ROWS = ["0,0,1.5,0,0,-0.5,13", "0.01,0,1.2,0.1,0,-0.5,-13", "0,0.02,1.8,0,0.2,-0.5,13"]
# Small, cheap tables: --p-max 2 (a few momentum bins) with FASTMU_CACHE_SAMPLES.
RUN_FAST = ["--p-max", "2", "--threads", "1"]


class Case:
    def __init__(self, name, argv, files=None, expect="error", mention=None, setup=None,
                 interrupt=None, check=None, file_limit=None, env=None):
        self.name, self.argv, self.files = name, argv, files or {}
        self.expect, self.mention, self.setup = expect, mention, setup
        self.interrupt, self.check = interrupt, check
        self.file_limit = file_limit  # bytes a written file may reach
        self.env = env  # extra environment; "{dir}" stands for the case's folder


def geometry(**changes):
    g = json.loads(json.dumps(GEOMETRY))
    for path, value in changes.items():
        node = g
        keys = path.split(".")
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        last = int(keys[-1]) if isinstance(node, list) else keys[-1]
        if value is DELETE:
            del node[last]
        else:
            node[last] = value
    return json.dumps(g)


DELETE = object()


def muons(rows=None, header=MUON_HEADER):
    return "\n".join([header] + (MUON_ROWS if rows is None else rows)) + "\n"


def run_case(argv, files, expect="error", mention=None, name=None, **kw):
    base = {"g.json": geometry(), "m.csv": muons()}
    base.update(files)
    return Case(name or " ".join(argv), argv, base, expect, mention, **kw)


def run_cmd(*extra, out="o.csv"):
    return (["run", "--geometry", "g.json", "--muons", "m.csv", "--out", out] + RUN_FAST +
            list(extra))


BAD_NUMBERS = ["nan", "inf", "-inf", "abc", "", "1e400", "1,5", "1e-400"]


# What an option's error line names when not the option itself.
MENTION = {"--material": "material"}


def option_cases():
    cases = []
    # (command prefix, option, bad values); the base command is valid.
    sample = ["physics", "sample", "--material", "G4_Fe", "--p", "10", "--n", "10", "--step", "0.1",
              "--out", "o.csv", "--threads", "1"]
    slab = ["physics", "transport", "--material", "G4_Fe", "--p", "10", "--n", "10",
            "--thickness", "0.1", "--out", "o.csv", "--threads", "1"]
    build = ["tables", "build", "--material", "G4_Fe", "--step", "0.1", "--p-min", "1", "--p-max",
             "2", "--p-bins", "2", "--samples-per-bin", "20", "--hist-bins", "4", "--threads", "1",
             "--out", "t.h5"]
    flux = ["flux", "--n", "10", "--out", "f.csv"]
    prepare = ["tables", "prepare", "G4_Fe", "--p-max", "2", "--dir", "cache"]
    example = ["run", "--example", "iron-block", "--out-dir", ".", "--no-plot", "--n-detailed",
               "0", "--p-max", "2"]
    table = [
        (run_cmd(), "--step", ["0", "-1", "1e300", "1001", "-0"] + BAD_NUMBERS),
        (run_cmd(), "--p-kill", ["0", "-1", "1e31"] + BAD_NUMBERS),
        (run_cmd(), "--max-steps", ["0", "-1", "2147483648", "1e300", "1.5", "abc"]),
        (run_cmd(), "--seed", ["-1", "1.5", "abc", "18446744073709551616", "1e300"]),
        (run_cmd(), "--long-steps", ["-1", "11", "abc", "1e300"]),
        (run_cmd(), "--threads", ["-1", "99999999", "abc", "1e300"]),
        (run_cmd(), "--gpus", ["-1", "2000", "abc"]),
        (run_cmd(), "--chunk-rows", ["-1", "1e300", "abc", "18446744073709551615"]),
        (run_cmd()[:-4] + ["--threads", "1"], "--p-max",
         ["0", "-1", "0.5", "1e30", "100001", "nan", "inf", "abc", ""]),
        (run_cmd(), "--material-step",
         ["G4_Fe=0", "G4_Fe=-1", "G4_Fe=1e300", "G4_Fe=1001", "G4_Fe=nan", "G4_Fe=inf", "G4_Fe=",
          "=1", "G4_Fe", "G4_Fe=abc"]),
        (run_cmd(), "--max-memory", ["-1", "abc", "0", "1e300GB", "5XB"]),
        (run_cmd(), "--compression", ["gzip:0", "gzip:10", "lzma", "abc", "gzip:-1"]),
        (run_cmd(), "--backend", ["gpu", "", "CPU"]),
        (run_cmd(), "--engine", ["slow", ""]),
        (run_cmd(), "--decay", ["maybe", ""]),
        (run_cmd(), "--above-tables", ["x"]),
        (example, "--n", ["0", "-1", "1e300", "18446744073709551615", "abc", "1000000001", "1.5"]),
        (example, "--n-detailed", ["-1", "abc", "1e300"]),
        (example, "--out", ["x.csv", "x.h5"]),
        (prepare, "--p-max", ["0", "-1", "0.5", "1e30", "100001", "nan", "abc"]),
        (prepare, "--step", ["0", "-1", "1e300"] + BAD_NUMBERS),
        (prepare, "--long-steps", ["-1", "11", "abc"]),
        (prepare, "--backend", ["gpu", ""]),
        (example, "--muons", ["m.csv"]),
        (example, "--geometry", ["g.json"]),
        (sample, "--p", ["0", "-1", "1e7", "1e30", "100001"] + BAD_NUMBERS),
        (sample, "--p-max", ["1", "1e7", "1e30", "nan", "abc"]),
        (sample, "--n", ["0", "-1", "1e300", "abc", "1000000001", "18446744073709551615"]),
        (sample, "--step", ["0", "-1", "1e300", "1001"] + BAD_NUMBERS),
        (sample, "--charge", ["0", "2", "-2", "abc"]),
        (sample, "--seed", ["-1", "abc", "1.5"]),
        (sample, "--threads", ["-1", "abc", "99999999"]),
        (sample, "--material", ["G4_Nothing", "", "vacuum2"]),
        (sample, "--compression", ["gzip:0", "abc"]),
        (slab, "--p", ["0", "-1", "1e7", "1e30"] + BAD_NUMBERS),
        (slab, "--n", ["0", "-1", "1e300", "abc"]),
        (slab, "--thickness", ["0", "-1", "1e300", "1e6"] + BAD_NUMBERS),
        (slab, "--field", ["1,2", "a,b,c", "nan,0,0", "1e300,0,0", "inf,0,0", "", "1,2,3,4"]),
        (build, "--p-max", ["1e30", "1e6", "nan", "abc", "0.5"]),
        (build, "--p-min", ["0", "-1", "3", "nan", "abc"]),
        (build, "--p-bins", ["0", "-1", "1e9", "100001", "abc", "2147483648"]),
        (build, "--hist-bins", ["0", "5000", "-1", "abc"]),
        (build, "--samples-per-bin", ["0", "-1", "abc"]),
        (build, "--step", ["0", "-1", "1e300", "abc"]),
        (build, "--seed", ["-1", "abc"]),
        (build, "--charge", ["0", "2"]),
        (build, "--threads", ["-1", "abc"]),
        (build, "--binning", ["cubic", ""]),
        (build, "--material", ["G4_Nothing"]),
        (flux, "--n", ["0", "-1", "1e300", "abc"]),
        (flux, "--seed", ["-1", "abc"]),
        (flux, "--threads", ["-1"]),
    ]
    for base, option, values in table:
        for v in values:
            argv = list(base)
            if option in argv:
                i = argv.index(option)
                argv[i + 1] = v
            else:
                argv += [option, v]
            cases.append(run_case(argv, {}, "error", MENTION.get(option, option)))
    # A mistyped command: the nearest commands, not "a subcommand is required".
    for material in ("G4_Nothing", "", "vacuum2"):
        cases.append(run_case(["tables", "prepare", material, "--dir", "cache"], {}, "error",
                              "material", name=f"tables prepare {material!r}"))
    for word, mention in (("runn", "did you mean 'run'"), ("tabels", "did you mean 'tables'"),
                          ("xyz", "commands: physics")):
        cases.append(run_case([word, "--help"], {}, "error", mention, name=f"command {word}"))
    return cases


def geometry_cases():
    cases = []

    def bad(name, text, mention=None, expect="error"):
        cases.append(run_case(run_cmd(), {"g.json": text}, expect, mention,
                              name="geometry " + name))

    for value, label in [("x", "string"), (None, "null"), ([], "array"), ({}, "object"),
                         ([1, 2], "short"), ([1, 2, 3, 4], "long")]:
        for key in ["world.min", "world.max", "volumes.0.min", "volumes.0.max"]:
            bad(f"{key}={label}", geometry(**{key: value}))
    for value in ["x", None, [], 1e300, -1e300, 0]:
        bad(f"plane z={value!r}", geometry(**{"sensitive_planes.0.z": value}),
            expect="error" if not isinstance(value, (int, float)) or value is None else "any")
    bad("missing volumes", geometry(volumes=DELETE), expect="any")
    for key in ["world", "world.min", "world.material", "volumes.0.shape",
                "volumes.0.material", "volumes.0.max"]:
        bad(f"missing {key}", geometry(**{key: DELETE}))
    for value in [1e300, -1e300, 1e30, 0.0]:
        for key in ["world.min.0", "world.max.2", "volumes.0.max.2", "volumes.0.min.0"]:
            bad(f"{key}={value}", geometry(**{key: value}), expect="any")
    for material in ["G4_Nothing", "", 7, None]:
        bad(f"material {material!r}", geometry(**{"volumes.0.material": material}))
    for density in [0, -1, 1e300, 1e15, 1e100, 1e-300, 1e4, "x", None]:
        g = json.loads(geometry(**{"volumes.0.material": "custom"}))
        g["materials"] = {"custom": {"density": density, "composition": {"Fe": 1}}}
        bad(f"density {density!r}", json.dumps(g), "density")
    for fraction, element in [(0, "Fe"), (-1, "Fe"), ("x", "Fe"), (1, "Xx"), (1e300, "Fe")]:
        g = json.loads(geometry(**{"volumes.0.material": "custom"}))
        g["materials"] = {"custom": {"density": 7.8, "composition": {element: fraction}}}
        bad(f"composition {element}={fraction!r}", json.dumps(g))
    for step in [0, -1, 1e300, 1e4, 1001, "x", None, []]:
        g = json.loads(geometry())
        g["steps"] = {"G4_Fe": step}
        bad(f"steps {step!r}", json.dumps(g), "step")
    g = json.loads(geometry())
    g["steps"] = {"G4_Nothing": 0.1}
    bad("steps of an unknown material", json.dumps(g), "G4_Nothing")
    for key in ["field_map", "terrain"]:
        g = json.loads(geometry())
        g[key] = {"file": "missing.h5"} if key == "field_map" else {"height_map": "missing.csv"}
        bad(f"{key} missing file", json.dumps(g))
    bad("unknown key", geometry(**{"colour": "red"}))
    for field in [[1e300, 0, 0], ["x", 0, 0], [0, 0]]:
        bad(f"volume field {field!r}", geometry(**{"volumes.0.field": field}),
            expect="error" if not isinstance(field[0], float) or len(field) != 3 else "any")
    text = geometry()
    for k in range(1, 40):
        bad(f"truncated at {k * len(text) // 40}", text[:k * len(text) // 40])
    bad("empty", "")
    bad("binary", "\x00\x01\xff" * 100)
    bad("nested 10000", "[" * 10000 + "]" * 10000)
    bad("top-level array", "[1, 2, 3]")
    bad("utf-8 garbage", b"\xc3\x28" * 10)
    return cases


def muon_cases():
    cases = []
    columns = MUON_HEADER.split(",")
    for c, col in enumerate(columns):
        for v in ["nan", "inf", "-inf", "1e300", "x", "", "1e40"]:
            row = MUON_ROWS[0].split(",")
            row[c] = v
            expect = "any" if col in "xyz" and v == "1e300" else "error"
            cases.append(run_case(run_cmd(), {"m.csv": muons([",".join(row)])}, expect, None,
                                  name=f"muons {col}={v!r}"))
    for v in ["0", "11", "13.5", "-11", "2147483648"]:
        row = MUON_ROWS[0].split(",")
        row[6] = v
        cases.append(run_case(run_cmd(), {"m.csv": muons([",".join(row)])}, "error", None,
                              name=f"muons pdg={v}"))
    variants = {
        "missing column": (muons(header="px,py,pz,x,y,z"), "error"),
        "duplicate column": (muons(header="px,px,pz,x,y,z,pdg"), "error"),
        "short row": (muons(["0,0,1"]), "error"),
        "long row": (muons(["0,0,1,0,0,0,13,5,6"]), "error"),
        "empty file": ("", "error"),
        "header only": (muons([]), "any"),
        "binary": ("\x00\xff\x13" * 500, "error"),
        "crlf": (muons().replace("\n", "\r\n"), "any"),
        "bom": ("\ufeff" + muons(), "any"),
        "wide header 100000": (",".join(["c%d" % k for k in range(100000)]) + "\n", "error"),
        "long line": (MUON_HEADER + "\n" + "1" * 1000000 + "\n", "error"),
        "blank lines": (muons() + "\n\n\n", "any"),
        "weight column": (muons(["0,0,1.5,0,0,-0.5,13,2"], header=MUON_HEADER + ",weight"), "ok"),
        "negative weight": (muons(["0,0,1.5,0,0,-0.5,13,-2"], header=MUON_HEADER + ",weight"),
                            "any"),
        "above the tables": (muons(["0,0,50,0,0,-0.5,13"]), "error"),
        "zero momentum": (muons(["0,0,0,0,0,-0.5,13"]), "any"),
    }
    for name, (text, expect) in variants.items():
        cases.append(run_case(run_cmd(), {"m.csv": text}, expect, None, name="muons " + name))
    cases.append(run_case(run_cmd(), {}, "ok", None, name="run baseline"))
    cases.append(run_case(run_cmd(out="o.h5"), {}, "ok", None, name="run baseline hdf5"))
    return cases


def data_loss_cases():
    cases = []
    for out in ["m.csv", "g.json", "./m.csv", "link.csv", "hard.csv"]:
        def setup(d, out=out):
            if out == "link.csv":
                os.symlink("m.csv", os.path.join(d, "link.csv"))
            if out == "hard.csv":
                os.link(os.path.join(d, "m.csv"), os.path.join(d, "hard.csv"))
        cases.append(run_case(run_cmd(out=out), {}, "error", "input", name=f"run --out {out}",
                              setup=setup))
    cases.append(run_case(run_cmd("--tables", "t.h5", out="t.h5"), {}, "error", "input",
                          name="run --out the --tables file", setup=copy_table))
    cases.append(run_case(run_cmd(out="d"), {}, "error", "folder", name="run --out a folder",
                          setup=lambda d: os.mkdir(os.path.join(d, "d"))))
    cases.append(run_case(run_cmd(out="fifo.csv"), {}, "error", "regular",
                          name="run --out a fifo",
                          setup=lambda d: os.mkfifo(os.path.join(d, "fifo.csv"))))
    cases.append(run_case(run_cmd(out="/dev/null"), {}, "error", "regular",
                          name="run --out /dev/null"))
    cases.append(run_case(run_cmd(out="nodir/o.csv"), {}, "error", "nodir",
                          name="run --out missing folder"))
    samples = "p0,px,py,pz,x,y,z\n" + "1.5,0,0,1.49,0,0,0.1\n" * 20
    cases.append(run_case(["tables", "build", "--material", "G4_Fe", "--step", "0.1",
                           "--from-samples", "s.csv", "--out", "s.csv", "--p-min", "1", "--p-max",
                           "2", "--p-bins", "2"], {"s.csv": samples}, "error", "input",
                          name="tables build --out its samples"))
    cases.append(run_case(["geometry", "export", "--geometry", "g.json", "--gdml", "g.gdml"], {},
                          "error", "input", name="geometry export onto a link to its input",
                          setup=lambda d: os.symlink("g.json", os.path.join(d, "g.gdml"))))
    cases.append(run_case(["physics", "sample", "--material", "G4_Fe", "--p", "10", "--n", "10",
                           "--step", "0.1", "--out", "/dev/null"], {}, "error", "regular",
                          name="physics sample --out /dev/null"))
    for sig in ("SIGINT", "SIGTERM", "SIGHUP"):
        big = MUON_HEADER + "\n" + "\n".join(MUON_ROWS * 100000) + "\n"
        cases.append(run_case(run_cmd("--chunk-rows", "1000", out="big.csv"), {"m.csv": big},
                              "any", None, name=f"run interrupted by {sig}", interrupt=sig))
    # Extending a cached ladder rewrites the cache's own file: not an input the output replaces.
    def copy_cache(d):
        shutil.copytree(os.environ["FASTMU_CACHE"], os.path.join(d, "cache"),
                        ignore=shutil.ignore_patterns("*.lock", ".*"))
    cases.append(run_case(run_cmd()[:-4] + ["--p-max", "4", "--threads", "1"], {}, "ok", None,
                          name="cache extends its own ladder", setup=copy_cache,
                          env={"FASTMU_CACHE": "{dir}/cache"}))
    cases.append(run_case(run_cmd(), {}, "ok", None, name="cache sweeps a dead process's .part",
                          setup=stale_part, check=stale_part_gone))
    return cases


def full_disk_cases():
    """Outputs larger than the file size limit: exit 1, one line naming the output, no
    output and no temporary file; an output that existed before is unchanged."""
    cases = []
    big = muons(MUON_ROWS * 3000)  # about 0.2 MB in, 0.6 MB out

    def absent(name):
        def check(d):
            return "output %s exists after a failed write" % name if os.path.exists(
                os.path.join(d, name)) else None
        return check

    limit = 64 * 1024
    for out, extra in [("o.csv", []), ("o.h5", []), ("o.h5", ["--compression", "gzip:1"])]:
        cases.append(run_case(run_cmd(*extra, out=out), {"m.csv": big}, "error", out,
                              name="full disk: run --out %s %s" % (out, " ".join(extra)),
                              check=absent(out), file_limit=limit))
    # An existing output stays as it was (the digest of every file is compared).
    cases.append(run_case(run_cmd(out="old.csv"), {"m.csv": big, "old.csv": "keep me\n"},
                          "error", "old.csv", name="full disk: run over an existing output",
                          file_limit=limit))
    build = ["tables", "build", "--material", "G4_Fe", "--step", "0.05", "--p-min", "0.18",
             "--p-max", "2", "--p-bins", "3", "--samples-per-bin", "50", "--hist-bins", "8",
             "--threads", "1", "--out", "t.h5"]
    for kb in (1, 8):
        cases.append(Case("full disk: tables build --out at %d KiB" % kb, build, {}, "error",
                          "t.h5", check=absent("t.h5"), file_limit=kb * 1024))
    sample = ["physics", "sample", "--material", "G4_Fe", "--p", "10", "--n", "20000", "--step",
              "0.1", "--threads", "1", "--out"]
    for out in ("s.csv", "s.h5"):
        cases.append(Case("full disk: physics sample --out " + out, sample + [out], {}, "error",
                          out, check=absent(out), file_limit=limit))
    # A cold table cache on a full disk: the cache file fails, nothing half-written stays.
    def cache_clean(d):
        cache = os.path.join(d, "cache")
        left = [f for f in os.listdir(cache) if not f.endswith(".lock")] if os.path.isdir(
            cache) else []
        return "cache holds %s after a failed write" % left if left else None
    cases.append(run_case(run_cmd(), {}, "error", "cache", name="full disk: a cold table cache",
                          check=cache_clean, file_limit=4096, env={"FASTMU_CACHE": "{dir}/cache"}))
    cases.append(run_case(["geometry", "export", "--geometry", "g.json", "--gdml", "g.gdml"], {},
                          "error", "g.gdml", name="full disk: geometry export --gdml",
                          check=absent("g.gdml"), file_limit=256))
    cases.append(Case("full disk: physics transport --out",
                      ["physics", "transport", "--material", "G4_Fe", "--p", "10", "--n", "20000",
                       "--thickness", "0.1", "--threads", "1", "--out", "t.h5"], {}, "error",
                      "t.h5", check=absent("t.h5"), file_limit=limit))
    cases.append(Case("full disk: flux --out", ["flux", "--n", "20000", "--out", "f.csv"], {},
                      "error", "f.csv", check=absent("f.csv"), file_limit=limit))
    return cases


def h5_muons(d, name="m.h5", **dataset):
    """A valid muon file as h5py writes it; `dataset` as for create_dataset."""
    import h5py
    import numpy as np
    rows = np.array([[float(v) for v in r.split(",")] for r in MUON_ROWS])
    with h5py.File(os.path.join(d, name), "w") as f:
        ds = f.create_dataset("muons", data=rows, **dataset) if "external" not in dataset else \
            f.create_dataset("muons", shape=rows.shape, dtype="f8", **dataset)
        ds.attrs["columns"] = MUON_HEADER
    return rows


def h5_link_setup(kind):
    """m.h5 whose 'muons' is not a plain dataset of the file itself."""
    def setup(d):
        import h5py
        h5_muons(d, "other.h5")
        if kind == "external storage":
            rows = h5_muons(d, external=[("raw.bin", 0, 3 * 7 * 8)])
            rows.astype("<f8").tofile(os.path.join(d, "raw.bin"))
            return
        if kind == "external storage outside":
            h5_muons(d, external=[("/etc/hostname", 0, 3 * 7 * 8)])
            return
        with h5py.File(os.path.join(d, "m.h5"), "w") as f:
            if kind == "external link":
                f["muons"] = h5py.ExternalLink("other.h5", "/muons")
            elif kind == "external link to a missing file":
                f["muons"] = h5py.ExternalLink("missing.h5", "/muons")
            elif kind == "external link to itself":
                f["muons"] = h5py.ExternalLink("m.h5", "/muons")
            elif kind == "soft link":
                f.create_dataset("data", data=[[0.0] * 7])
                f["muons"] = h5py.SoftLink("/data")
            elif kind == "dangling soft link":
                f["muons"] = h5py.SoftLink("/nothing")
            elif kind == "virtual":
                layout = h5py.VirtualLayout(shape=(3, 7), dtype="f8")
                layout[:] = h5py.VirtualSource("other.h5", "muons", shape=(3, 7))
                f.create_virtual_dataset("muons", layout)
    return setup


def h5_link_cases():
    cases = []
    try:
        import h5py  # noqa: F401
    except ImportError:
        return cases
    for kind, mention in [("external link", "external link"),
                          ("external link to a missing file", "external link"),
                          ("external link to itself", "external link"),
                          ("soft link", "soft link"), ("dangling soft link", "soft link"),
                          ("external storage", "external files"),
                          ("external storage outside", "external files"),
                          ("virtual", "virtual")]:
        cases.append(run_case(run_cmd()[:4] + ["m.h5"] + run_cmd()[5:], {}, "error", mention,
                              name="hdf5 muons: " + kind, setup=h5_link_setup(kind)))
    cases.append(run_case(run_cmd()[:4] + ["m.h5"] + run_cmd()[5:], {}, "ok", None,
                          name="hdf5 muons: written by h5py", setup=lambda d: h5_muons(d)))
    return cases


def table_link_setup(kind, dataset):
    """t.h5, a valid table whose `dataset` is moved out of the file."""
    def setup(d):
        import h5py
        import numpy as np
        copy_table(d)
        shutil.copy(os.path.join(d, "t.h5"), os.path.join(d, "other.h5"))
        with h5py.File(os.path.join(d, "t.h5"), "a") as f:
            data = f[dataset][()]
            del f[dataset]
            if kind == "external link":
                f[dataset] = h5py.ExternalLink("other.h5", dataset)
            elif kind == "soft link":
                f.create_dataset("copy", data=data)
                f[dataset] = h5py.SoftLink("/copy")
            else:
                raw = dataset + ".bin"
                np.ascontiguousarray(data).tofile(os.path.join(d, raw))
                f.create_dataset(dataset, shape=data.shape, dtype=data.dtype,
                                 external=[(raw, 0, data.nbytes)])
    return setup


def table_link_cases():
    cases = []
    try:
        import h5py  # noqa: F401
    except ImportError:
        return cases
    for kind, mention in [("external link", "external link"), ("soft link", "soft link"),
                          ("external storage", "external files")]:
        for dataset in ("mean_loss", "momentum_edges"):
            setup = table_link_setup(kind, dataset)
            cases.append(run_case(run_cmd("--tables", "t.h5"), {}, "error", mention,
                                  name="table %s: %s" % (dataset, kind), setup=setup))
            cases.append(Case("tables info, %s: %s" % (dataset, kind), ["tables", "info", "t.h5"],
                              {}, "any", None, setup=setup))
    return cases


def table_cases(table_bytes):
    cases = []
    if table_bytes is None:
        return cases
    n = len(table_bytes)
    for k in range(1, 41):
        cut = k * n // 41
        cases.append(run_case(run_cmd("--tables", "t.h5"), {"t.h5": table_bytes[:cut]}, "error",
                              "t.h5", name=f"table truncated at {cut}"))
        cases.append(Case(f"tables info truncated at {cut}", ["tables", "info", "t.h5"],
                          {"t.h5": table_bytes[:cut]}, "error", "t.h5"))
    for name, data in [("empty", b""), ("junk", b"\x89HDF\r\n\x1a\n" + b"\x00" * 1000),
                       ("text", b"hello")]:
        cases.append(run_case(run_cmd("--tables", "t.h5"), {"t.h5": data}, "error", "t.h5",
                              name=f"table {name}"))
        cases.append(Case(f"tables info {name}", ["tables", "info", "t.h5"], {"t.h5": data},
                          "error", "t.h5"))
    cases.append(run_case(run_cmd("--tables", "t.h5"), {"t.h5": table_bytes}, "ok", None,
                          name="table given"))
    return cases


TABLE = {}


def copy_table(d):
    with open(os.path.join(d, "t.h5"), "wb") as f:
        f.write(TABLE["bytes"])


def stale_part(d):
    """Parts of a build killed an hour ago (dead process) and two days ago (any id)."""
    cache = os.environ["FASTMU_CACHE"]
    os.makedirs(cache, exist_ok=True)
    now = time.time()
    for name, age in ((".old.h5.part4194000", 3600), (".old2.h5.part1", 2 * 86400)):
        path = os.path.join(cache, name)
        open(path, "w").close()
        os.utime(path, (now - age, now - age))


def stale_part_gone(d):
    cache = os.environ["FASTMU_CACHE"]
    left = [f for f in os.listdir(cache) if f.startswith(".old")]
    return "stale temporary files left in the cache: %s" % left if left else None


def digest(d):
    """Hashes of the case's files; its own table cache (`cache/`) is fastmu's to rewrite."""
    out = {}
    for root, dirs, names in os.walk(d):
        if root == d and "cache" in dirs:
            dirs.remove("cache")
        for n in names:
            p = os.path.join(root, n)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            with open(p, "rb") as f:
                out[os.path.relpath(p, d)] = hashlib.sha256(f.read()).hexdigest()
    return out


TEMP = re.compile(r"^\..*\.part\d+$|\.rank\d+\.part$")


def default_signals():
    """As in a terminal: a shell's background job ignores SIGINT, a user's command does not."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def limited_files(limit):
    """default_signals() and a file size limit: a write past `limit` bytes fails with EFBIG."""
    def start():
        default_signals()
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return start


def execute(binary, case, timeout, root, index):
    d = os.path.join(root, "case%04d" % index)
    os.makedirs(d)
    for name, data in case.files.items():
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    if case.setup:
        case.setup(d)
    inputs = digest(d)
    outputs = {a for i, a in enumerate(case.argv)
               if i > 0 and case.argv[i - 1] in ("--out", "--gdml")}
    env = None
    if case.env:
        env = dict(os.environ)
        env.update({k: v.replace("{dir}", d) for k, v in case.env.items()})
    proc = subprocess.Popen([binary] + case.argv, cwd=d, stdout=subprocess.PIPE, env=env,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            preexec_fn=limited_files(case.file_limit) if case.file_limit
                            else default_signals)
    sent = None
    try:
        if case.interrupt:
            # Wait for the output's temporary file, then interrupt.
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and proc.poll() is None:
                if any(TEMP.match(f) for f in os.listdir(d)):
                    break
                time.sleep(0.02)
            if proc.poll() is None:
                sent = getattr(signal, case.interrupt)
                proc.send_signal(sent)
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return "hang: more than %g s" % timeout
    err = err.decode("utf-8", "replace")
    problems = []
    rc = proc.returncode
    if rc < 0 and -rc != (sent or 0):
        problems.append("killed by signal %d" % -rc)
    if case.interrupt and (sent is None or rc != -sent):
        problems.append("not interrupted mid-run (exit %d)" % rc)
    for dump in DUMPS:
        if dump in err:
            problems.append("stderr holds %r" % dump)
    lines = [l for l in err.splitlines() if l.strip() and "\r" not in l]
    if case.expect == "ok" and rc != 0:
        problems.append("exit %d, expected success: %s" % (rc, lines[-1:] if lines else ""))
    if case.expect == "error":
        if rc not in (1, 2):
            problems.append("exit %d, expected an error" % rc)
    if rc in (1, 2) and case.expect != "ok":
        errors = [l for l in lines if l.startswith("fastmu: error:")]
        if len(errors) != 1 or not lines or not lines[-1].startswith("fastmu: error:"):
            problems.append("not one error line last on stderr: %r" % lines[-3:])
        elif case.mention and case.mention not in errors[0]:
            problems.append("error does not name %r: %s" % (case.mention, errors[0]))
    after = digest(d)
    for name, h in inputs.items():
        if name in outputs and rc == 0:
            continue
        if after.get(name) != h:
            problems.append("input %s changed or removed" % name)
    temps = [f for f in os.listdir(d) if TEMP.search(f)]
    if temps:
        problems.append("temporary files left: %s" % temps)
    if case.check:
        extra = case.check(d)
        if extra:
            problems.append(extra)
    shutil.rmtree(d, ignore_errors=True)
    return "; ".join(problems) if problems else None


def make_table(binary, root):
    d = os.path.join(root, "table")
    os.makedirs(d)
    r = subprocess.run([binary, "tables", "build", "--material", "G4_Fe", "--step", "0.05",
                        "--p-min", "0.18", "--p-max", "2", "--p-bins", "3", "--samples-per-bin",
                        "50", "--hist-bins", "8", "--threads", "1", "--out", "t.h5"],
                       cwd=d, capture_output=True, timeout=120)
    if r.returncode != 0:
        print("could not build the small table:", r.stderr.decode()[-300:])
        return None
    with open(os.path.join(d, "t.h5"), "rb") as f:
        return f.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fastmu")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--filter", default="")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    binary = os.path.abspath(args.fastmu)
    root = tempfile.mkdtemp(prefix="fastmu-hostile-")
    os.environ["FASTMU_CACHE"] = os.path.join(root, "cache")
    os.environ.setdefault("FASTMU_CACHE_SAMPLES", "200")
    os.environ["FASTMU_TABLE_BACKEND"] = "cpu"
    try:
        TABLE["bytes"] = make_table(binary, root) if not args.list else b""
        cases = (option_cases() + geometry_cases() + muon_cases() + data_loss_cases() +
                 full_disk_cases() + h5_link_cases() + table_cases(TABLE["bytes"]) +
                 (table_link_cases() if TABLE["bytes"] else []))
        cases = [c for c in cases if args.filter in c.name]
        if args.list:
            for c in cases:
                print(c.expect, c.name)
            print(len(cases), "cases")
            return 0
        # The first run fills the cache for every later one.
        warm = run_case(run_cmd(), {}, "ok", name="warm the cache")
        failures = []
        first = execute(binary, warm, 300, root, 9999)
        if first:
            failures.append((warm.name, first))
        t0 = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {pool.submit(execute, binary, c, args.timeout, root, i): c
                       for i, c in enumerate(cases)}
            for f in concurrent.futures.as_completed(futures):
                problem = f.result()
                if problem:
                    failures.append((futures[f].name, problem))
        for name, problem in sorted(failures):
            print("FAIL %s: %s" % (name, problem))
        print("%d hostile cases, %d failed, %.1f s" % (len(cases), len(failures),
                                                      time.monotonic() - t0))
        return 1 if failures else 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

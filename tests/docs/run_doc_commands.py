#!/usr/bin/env python3
"""Runs the command blocks of the user documentation, so that what the pages
show keeps working.

A fenced block opened with ```bash or ```console is run with bash (-e -o
pipefail), one opened with ```python with the given Python; ```text and
others (synopses, diagrams, output) are shown, not run. The blocks of a page
run in order, each in the page's own temporary folder (so a block may use
the files an earlier block of its page wrote) holding a link `examples` to
the repository's examples/ (as a user in the repository root has it), with
the build's `fastmu` first on PATH.

What differs from a user's machine, so that CI stays cheap:
  - the build's test table cache (FASTMU_CACHE, FASTMU_CACHE_SAMPLES=20000,
    as tests/TestCacheEnvironment.cc sets them): tables are built once at
    reduced statistics and shared with the other tests;
  - `python3` is the interpreter given by --python (first on PATH after
    fastmu), with the built package on PYTHONPATH;
  - OMPI_ALLOW_RUN_AS_ROOT and oversubscription, so that `mpirun -np 4`
    runs as root on a 2-core CI machine;
  - a block after the comment `<!-- doc-test: skip (REASON) -->` is not
    run (blocks whose first run takes CPU-hours here, such as tables for
    several new rocks); the reason is printed;
  - blocks holding set-up lines (installing, building, the test suite) are
    not run: CI has done them before this test; blocks that use a GPU
    (`--backend cuda`, `backend="cuda"`) run only where `nvidia-smi -L`
    lists one.
The last line counts the blocks run and skipped.

Usage: run_doc_commands.py --bin-dir BUILD --cache DIR [--python PY
       --pythonpath DIR] [--examples DIR] FILE.md ...
Exit status 1 when a block fails; each failure names the page, the block's
first line and its output.
"""
import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

SHELL_LANGUAGES = ("bash", "console")
RUN_LANGUAGES = SHELL_LANGUAGES + ("python",)
GPU_LINE = re.compile(r"(--backend cuda|backend=\"cuda\")")

# Set-up lines (installing packages, building, the whole test suite) are not
# run: CI has done them before this test runs, and repeating them here would
# rebuild the project inside its own test. A block holding one is skipped.
SETUP_LINE = re.compile(
    r"(tools/install-deps\.sh|tools/install-python\.sh|tools/test\.sh|apt-get|"
    r"\bcmake\b|\bpip3? install\b|-m pip\b)")

BLOCK_TIMEOUT_S = 900


# A page may keep a block out of this test with a comment on the line before
# it, giving the reason the test prints: `<!-- doc-test: skip (REASON) -->`.
SKIP_NOTE = re.compile(r"^<!-- doc-test: skip \((.+)\) -->\s*$")


def blocks(path):
    """(language, first line number, text, skip note or None) of each fenced
    block of a page."""
    found, lang, start, lines, note, previous = [], None, 0, [], None, ""
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fence = re.match(r"^```(\S*)\s*$", line)
            if fence and lang is None:
                lang, start, lines = fence.group(1) or "text", number + 1, []
                skip = SKIP_NOTE.match(previous)
                note = skip.group(1) if skip else None
            elif fence:
                found.append((lang, start, "".join(lines), note))
                lang = None
            elif lang is not None:
                lines.append(line)
            if line.strip():
                previous = line
    return found


def environment(args):
    env = dict(os.environ)
    # `python3` in a shell block is the interpreter given for python blocks.
    path = [args.bin_dir] + ([os.path.dirname(args.python)] if args.python else [])
    env["PATH"] = os.pathsep.join(path + [env.get("PATH", "")])
    env["FASTMU_CACHE"] = args.cache
    env["FASTMU_CACHE_SAMPLES"] = "20000"
    env["FASTMU_PROGRESS"] = "0"
    env["OMPI_ALLOW_RUN_AS_ROOT"] = env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    env["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
    if args.pythonpath:
        env["PYTHONPATH"] = args.pythonpath
    return env


def command(lang, text, args):
    if lang in SHELL_LANGUAGES:
        return ["bash", "-e", "-o", "pipefail", "-c", text]
    return [args.python, "-c", text]


def python_module_built(args):
    return bool(args.python and args.pythonpath and
                os.path.isdir(os.path.join(args.pythonpath, "fastmu")))


def children_cpu():
    """CPU seconds (user + system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def have_gpu():
    try:
        return subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        return False


def skip_reason(lang, text, args):
    """Why a block is not run here, or None."""
    lines = text.splitlines()
    if lang in SHELL_LANGUAGES and any(SETUP_LINE.search(l) for l in lines):
        return "set-up commands, done by CI"
    if lang == "python" and not python_module_built(args):
        return "the Python module is not built"
    if any(GPU_LINE.search(l) for l in lines) and not args.gpu:
        return "needs a GPU"
    return None


def run_page(page, args, env, counts):
    """Runs a page's blocks in order in one folder; returns the failures' reports."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="fastmu-doc-") as work:
        if args.examples:
            os.symlink(args.examples, os.path.join(work, "examples"))
        for lang, line, text, note in blocks(page):
            where = f"{page}:{line} ({lang})"
            if lang not in RUN_LANGUAGES:
                continue
            reason = note or skip_reason(lang, text, args)
            if reason:
                print(f"skipped {where}: {reason}", flush=True)
                counts["skipped"] += 1
                continue
            start, cpu_start = time.monotonic(), children_cpu()
            try:
                done = subprocess.run(command(lang, text, args), cwd=work, env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      text=True, timeout=BLOCK_TIMEOUT_S)
                status, output = done.returncode, done.stdout
            except subprocess.TimeoutExpired as e:
                status, output = "timeout", (e.stdout or "")
                if isinstance(output, bytes):
                    output = output.decode(errors="replace")
            counts["run"] += 1
            cpu = children_cpu() - cpu_start
            counts["cpu"] += cpu
            print(f"{'ok' if status == 0 else 'FAILED'} {where} "
                  f"({time.monotonic() - start:.1f} s, CPU {cpu:.1f} s)", flush=True)
            if status != 0:
                first = text.splitlines()[0] if text.strip() else ""
                failures.append(f"{where} exited {status}: block starting '{first}'\n{output}")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin-dir", required=True, help="folder holding the fastmu binary")
    parser.add_argument("--cache", required=True, help="table cache for the blocks")
    parser.add_argument("--python", help="interpreter for python blocks")
    parser.add_argument("--pythonpath", help="folder holding the built fastmu package")
    parser.add_argument("--examples", help="the repository's examples/ (linked into each folder)")
    parser.add_argument("pages", nargs="+")
    args = parser.parse_args()
    # The blocks run in other folders: relative paths would not reach.
    args.bin_dir, args.cache = os.path.abspath(args.bin_dir), os.path.abspath(args.cache)
    if args.pythonpath:
        args.pythonpath = os.path.abspath(args.pythonpath)
    if args.examples:
        args.examples = os.path.abspath(args.examples)
    args.gpu = have_gpu()
    if not os.access(os.path.join(args.bin_dir, "fastmu"), os.X_OK):
        sys.exit(f"no fastmu binary in {args.bin_dir}")
    os.makedirs(args.cache, exist_ok=True)
    env = environment(args)
    counts = {"run": 0, "skipped": 0, "cpu": 0.0}
    failures = [f for page in args.pages for f in run_page(page, args, env, counts)]
    for report in failures:
        print("\n" + report, file=sys.stderr)
    print(f"doc_commands: {counts['run']} blocks run ({len(failures)} failed), "
          f"{counts['skipped']} skipped, on {len(args.pages)} pages; CPU {counts['cpu']:.0f} s")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

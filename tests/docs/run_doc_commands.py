#!/usr/bin/env python3
"""Runs the command blocks of the user documentation, so that what the pages
show keeps working.

A fenced block opened with ```bash is run with bash (-e -o pipefail), one
opened with ```python with the given Python; ```console, ```text and others
are shown, not run. Each block runs in a fresh temporary folder with the
build's `fastmu` first on PATH and the build's test table cache
(FASTMU_CACHE, FASTMU_CACHE_SAMPLES=20000, as tests/TestCacheEnvironment.cc
sets them), so that tables are built once at reduced statistics and shared
with the other tests.

Usage: run_doc_commands.py --bin-dir BUILD --cache DIR [--python PY
       --pythonpath DIR] FILE.md ...
Exit status 1 when a block fails; each failure names the page, the block's
first line and its output.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

RUN_LANGUAGES = ("bash", "python")

# Set-up lines (installing packages, building, the whole test suite) are not
# run: CI has done them before this test runs, and repeating them here would
# rebuild the project inside its own test. A block holding one is skipped.
SETUP_LINE = re.compile(
    r"(tools/install-deps\.sh|tools/install-python\.sh|tools/test\.sh|apt-get|"
    r"\bcmake\b|\bpip3? install\b|-m pip\b)")

BLOCK_TIMEOUT_S = 900


def blocks(path):
    """(language, first line number, text) of each fenced block of a page."""
    found, lang, start, lines = [], None, 0, []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fence = re.match(r"^```(\S*)\s*$", line)
            if fence and lang is None:
                lang, start, lines = fence.group(1) or "text", number + 1, []
            elif fence:
                found.append((lang, start, "".join(lines)))
                lang = None
            elif lang is not None:
                lines.append(line)
    return found


def environment(args):
    env = dict(os.environ)
    env["PATH"] = args.bin_dir + os.pathsep + env.get("PATH", "")
    env["FASTMU_CACHE"] = args.cache
    env["FASTMU_CACHE_SAMPLES"] = "20000"
    env["FASTMU_PROGRESS"] = "0"
    if args.pythonpath:
        env["PYTHONPATH"] = args.pythonpath
    return env


def command(lang, text, args):
    if lang == "bash":
        return ["bash", "-e", "-o", "pipefail", "-c", text]
    return [args.python, "-c", text]


def python_module_built(args):
    return bool(args.python and args.pythonpath and
                os.path.isdir(os.path.join(args.pythonpath, "fastmu")))


def run_page(page, args, env):
    """Runs a page's blocks; returns the failures' reports."""
    failures = []
    for lang, line, text in blocks(page):
        where = f"{page}:{line} ({lang})"
        if lang not in RUN_LANGUAGES:
            continue
        if lang == "bash" and any(SETUP_LINE.search(l) for l in text.splitlines()):
            print(f"skipped {where}: set-up commands, done by CI")
            continue
        if lang == "python" and not python_module_built(args):
            print(f"skipped {where}: the Python module is not built")
            continue
        with tempfile.TemporaryDirectory(prefix="fastmu-doc-") as work:
            try:
                done = subprocess.run(command(lang, text, args), cwd=work, env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      text=True, timeout=BLOCK_TIMEOUT_S)
                status, output = done.returncode, done.stdout
            except subprocess.TimeoutExpired as e:
                status, output = "timeout", (e.stdout or "")
        print(f"{'ok' if status == 0 else 'FAILED'} {where}")
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
    parser.add_argument("pages", nargs="+")
    args = parser.parse_args()
    # The blocks run in other folders: relative paths would not reach.
    args.bin_dir, args.cache = os.path.abspath(args.bin_dir), os.path.abspath(args.cache)
    if args.pythonpath:
        args.pythonpath = os.path.abspath(args.pythonpath)
    if not os.access(os.path.join(args.bin_dir, "fastmu"), os.X_OK):
        sys.exit(f"no fastmu binary in {args.bin_dir}")
    os.makedirs(args.cache, exist_ok=True)
    env = environment(args)
    failures = [f for page in args.pages for f in run_page(page, args, env)]
    for report in failures:
        print("\n" + report, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

"""Builds the `fastmu` Python package with CMake (see pyproject.toml).

The extension fastmu/_fastmu*.so and the `fastmu` program are CMake targets of
this repository, built for the interpreter that runs pip (sys.executable); the
program goes into the package (fastmu/_bin/fastmu), with the plotting scripts
and their data (fastmu/scripts, fastmu/data), and the `fastmu` console script
runs it. The version is read from CMakeLists.txt, its one home.
"""

import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


def cmake_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"project\(\s*fastmu\s+VERSION\s+([0-9][0-9.]*)", text)
    if not match:
        raise RuntimeError("CMakeLists.txt: no project(fastmu VERSION x.y.z)")
    return match.group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        default = ROOT / "build" / f"pip-py{sys.version_info.major}.{sys.version_info.minor}"
        build_dir = pathlib.Path(os.environ.get("FASTMU_PIP_BUILD_DIR", default)).resolve()
        args = ["-DCMAKE_BUILD_TYPE=Release", "-DFASTMU_BUILD_TESTS=OFF",
                "-DFASTMU_BUILD_BENCH=OFF", "-DFASTMU_BUILD_PYTHON=ON",
                f"-DPython_EXECUTABLE={sys.executable}"]
        args += shlex.split(os.environ.get("FASTMU_CMAKE_ARGS", ""))
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build_dir), *args], check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", str(build_dir), "-j", jobs,
                        "--target", "fastmu_python", "fastmu"], check=True)
        built = sorted((build_dir / "python" / "fastmu").glob("_fastmu*.so"))
        if not built:
            raise RuntimeError(f"{build_dir}: CMake built no fastmu/_fastmu*.so "
                               "(is pybind11-dev installed? see tools/install-deps.sh)")
        dest = pathlib.Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[-1], dest)
        program = dest.parent / "_bin" / "fastmu"
        program.parent.mkdir(exist_ok=True)
        shutil.copy2(build_dir / "fastmu", program)
        # Beside _bin, where the program looks for them (cli/PythonScripts.cc).
        for folder in ("scripts", "data"):
            shutil.copytree(ROOT / folder, dest.parent / folder, dirs_exist_ok=True)


setup(
    version=cmake_version(),
    packages=["fastmu"],
    package_dir={"fastmu": "python/fastmu"},
    ext_modules=[Extension("fastmu._fastmu", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)

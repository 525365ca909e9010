"""Shared fixtures: small tables (a few thousand samples per bin, a handful of
momentum bins) so that the whole Python suite runs in seconds."""

import os
import pathlib

import numpy as np
import pytest

import fastmu


@pytest.fixture(autouse=True, scope="session")
def _private_table_cache(tmp_path_factory):
    # Tables the cache builds during tests go to a temporary folder, small.
    os.environ["FASTMU_CACHE"] = str(tmp_path_factory.mktemp("fastmu-cache"))
    os.environ["FASTMU_CACHE_SAMPLES"] = "2000"


@pytest.fixture(scope="session")
def fe_table():
    """G4_Fe, 2 cm steps, 30 log bins in [0.18, 100] GeV/c, 5000 samples per bin."""
    return fastmu.build_table("G4_Fe", step=0.02, p_min=0.18, p_max=100.0, p_bins=30,
                              samples_per_bin=5000, hist_bins=50, seed=7)


@pytest.fixture(scope="session")
def iron_block():
    return fastmu.Geometry.from_dict(fastmu.examples.iron_block_geometry())


@pytest.fixture(scope="session")
def reference_dir():
    d = os.environ.get("FASTMU_REFERENCE_DIR",
                       str(pathlib.Path(__file__).resolve().parents[2] / ".." / "shared" /
                           "reference" / "geant4"))
    path = pathlib.Path(d)
    if not path.is_dir():
        pytest.skip(f"Geant4 reference samples not found ({d}); set FASTMU_REFERENCE_DIR")
    return path


def read_reference(path):
    return np.fromfile(path, dtype="<f4").reshape(-1, 7)

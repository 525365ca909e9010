"""Muon files as the interfaces spec writes them: an HDF5 dataset `muons`
written by h5py with no attributes (columns px,py,pz,x,y,z,pdg[,weight]) is
read by fastmu.read_muons, fastmu.transport(path) and `fastmu run`."""

import json
import os
import pathlib
import subprocess

import h5py
import numpy as np
import pytest

import fastmu


def spec_muons(n=200):
    m = fastmu.examples.iron_block_muons(n).astype(np.float64)
    m[:, 2] = 20.0
    m[:, 6] = np.where(np.arange(n) % 2 == 0, 13, -13)
    m[:, 7] = np.arange(n) + 0.25
    return m


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ncol", [7, 8])
def test_h5py_dataset_without_attributes(tmp_path, dtype, ncol):
    m = spec_muons()
    path = tmp_path / "mu.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("muons", data=m[:, :ncol].astype(dtype))
    got = fastmu.read_muons(path)
    assert got.shape == (len(m), 8)
    np.testing.assert_array_equal(got[:, :7], m[:, :7].astype(dtype).astype(np.float32))
    np.testing.assert_array_equal(got[:, 7], m[:, 7].astype(dtype) if ncol == 8 else 1.0)


def test_columns_attribute_still_names_the_columns(tmp_path):
    m = spec_muons(10)
    path = tmp_path / "named.h5"
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("muons", data=m[:, [7, 6, 0, 1, 2, 3, 4, 5]])
        ds.attrs["columns"] = "weight,pdg,px,py,pz,x,y,z"
    np.testing.assert_array_equal(fastmu.read_muons(path), m.astype(np.float32).astype(np.float64))


def test_bad_spec_file_is_one_line_error(tmp_path):
    path = tmp_path / "nine.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("muons", data=np.zeros((3, 9)))
    with pytest.raises(fastmu.Error, match=r"nine\.h5.*9 columns"):
        fastmu.read_muons(path)


def test_transport_reads_h5py_file(tmp_path, fe_table, iron_block):
    m = spec_muons()
    path = tmp_path / "mu.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("muons", data=m.astype(np.float32))
    from_file = fastmu.transport(path, iron_block, tables=[fe_table], all=True, cache=False)
    from_array = fastmu.transport(m.astype(np.float32), iron_block, tables=[fe_table], all=True,
                                  cache=False)
    for k in from_array:
        np.testing.assert_array_equal(from_file[k], from_array[k])
    assert (from_file["status"] == 0).mean() > 0.5


def test_fastmu_run_reads_h5py_file(tmp_path, fe_table, iron_block):
    binary = os.environ.get("FASTMU_BINARY")
    if not binary or not pathlib.Path(binary).exists():
        pytest.skip("FASTMU_BINARY (the fastmu command) not set")
    m = spec_muons()
    mu = tmp_path / "mu.h5"
    with h5py.File(mu, "w") as f:
        f.create_dataset("muons", data=m)
    geo = tmp_path / "geo.json"
    geo.write_text(json.dumps(fastmu.examples.iron_block_geometry()))
    table = tmp_path / "fe.h5"
    fe_table.save(str(table))
    out = tmp_path / "out.h5"
    subprocess.run([binary, "run", "--geometry", str(geo), "--muons", str(mu), "--out", str(out),
                    "--tables", str(table), "--backend", "cpu", "--seed", "3"],
                   check=True, capture_output=True)
    # The ladder of shorter iron tables comes from the (test) cache in both.
    expected = fastmu.transport(m, iron_block, tables=[fe_table], seed=3, backend="cpu")
    with h5py.File(out, "r") as f:
        cols = f["muons"].attrs["columns"]
        cols = (cols.decode() if isinstance(cols, bytes) else cols).split(",")
        got = f["muons"][...]
    assert len(got) == len(expected["id"]) > 0
    for k in ("id", "px", "x", "pdg", "weight"):
        np.testing.assert_allclose(got[:, cols.index(k)], expected[k], rtol=0, atol=0)

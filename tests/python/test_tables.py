import numpy as np
import pytest

import fastmu


def test_info(fe_table):
    info = fe_table.info
    assert info["material"] == "G4_Fe"
    assert info["step"] == pytest.approx(0.02)
    assert info["binning"] == "log"
    assert info["p_bins"] == 30 and info["hist_bins"] == 50
    assert info["p_min"] == pytest.approx(0.18) and info["p_max"] == pytest.approx(100.0)
    assert info["samples"] == 30 * 5000
    assert info["seed"] == 7
    assert fe_table.material == "G4_Fe" and fe_table.step == pytest.approx(0.02)


def test_arrays(fe_table):
    edges, centres = fe_table.p_edges, fe_table.p_centres
    assert edges.shape == (31,) and centres.shape == (30,)
    assert np.all(np.diff(edges) > 0)
    assert np.all((centres >= edges[:-1]) & (centres <= edges[1:]))
    counts = fe_table.counts
    assert counts.shape == (30, 51, 51)
    assert np.all(counts.sum(axis=(1, 2)) <= fe_table.samples_per_bin)
    assert np.all(fe_table.mean_loss > 0)
    # Fractional loss per step falls with momentum (ionisation ~ const) at low p.
    assert fe_table.mean_loss[0] > fe_table.mean_loss[15]
    with pytest.raises(ValueError):
        fe_table.p_edges[0] = 1.0  # views are read-only


def test_save_load_roundtrip(fe_table, tmp_path):
    path = tmp_path / "fe.h5"
    fe_table.save(path)
    loaded = fastmu.load_table(path)
    assert loaded.info == fe_table.info
    for name in ("p_edges", "p_centres", "mean_loss", "counts"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(fe_table, name))
    fastmu.load_table(str(path), step=0.02)
    with pytest.raises(fastmu.Error, match="step"):
        fastmu.load_table(path, step=0.05)


def test_load_errors(tmp_path):
    with pytest.raises(fastmu.Error, match="missing.h5"):
        fastmu.load_table(tmp_path / "missing.h5")
    bad = tmp_path / "bad.h5"
    bad.write_text("not hdf5")
    with pytest.raises(fastmu.Error, match="bad.h5"):
        fastmu.load_table(bad)


def test_save_to_missing_folder_leaves_nothing(fe_table, tmp_path):
    target = tmp_path / "no" / "such" / "dir" / "t.h5"
    with pytest.raises(fastmu.Error):
        fe_table.save(target)
    assert not target.exists()


def test_sample_matches_table_means(fe_table):
    b = 20
    p = np.full(20000, fe_table.p_centres[b], dtype=np.float32)
    draws = fe_table.sample(p, seed=3)
    assert draws.shape == (20000, 2)
    assert np.all(draws >= 0)
    # At a bin centre the transport draws from that bin only: the mean of the
    # draws is the bin's sample mean up to the in-bin jitter and statistics.
    assert draws[:, 0].mean() == pytest.approx(fe_table.mean_loss[b], rel=0.1)
    assert draws[:, 1].mean() == pytest.approx(fe_table.mean_kick[b], rel=0.1)
    np.testing.assert_array_equal(draws, fe_table.sample(p, seed=3))


def test_build_options_and_errors():
    t = fastmu.build_table("G4_AIR", step=1.0, p_min=1.0, p_max=10.0, p_bins=3,
                           binning="uniform", samples_per_bin=500, hist_bins=10, threads=1)
    assert t.info["binning"] == "uniform"
    np.testing.assert_allclose(t.p_edges, [1.0, 4.0, 7.0, 10.0])
    with pytest.raises(fastmu.Error, match="binning"):
        fastmu.build_table("G4_Fe", binning="quadratic", samples_per_bin=10)
    with pytest.raises(fastmu.Error):
        fastmu.build_table("G4_Fe", step=-0.02, samples_per_bin=10)
    with pytest.raises(fastmu.Error, match="nope"):
        fastmu.build_table("nope", samples_per_bin=10)

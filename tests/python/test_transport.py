import numpy as np
import pytest

import fastmu
from conftest import read_reference

KEYS = ["id", "px", "py", "pz", "x", "y", "z", "pdg", "weight", "status"]


def muons(n, p=50.0, pdg=13):
    m = fastmu.examples.iron_block_muons(n)
    m[:, 2] = p
    m[:, 6] = pdg
    m[:, 7] = np.arange(n) + 0.5  # weights are carried through untouched
    return m


def momentum(out):
    return np.sqrt(out["px"] ** 2 + out["py"] ** 2 + out["pz"] ** 2)


def test_iron_block(fe_table, iron_block):
    out = fastmu.transport(muons(2000), iron_block, tables=[fe_table], all=True, cache=False)
    assert list(out) == KEYS + ["steps"]
    assert out["steps"].dtype == np.int32 and np.all(out["steps"] >= 1)
    assert out["id"].dtype == np.int64 and out["px"].dtype == np.float32
    assert out["pdg"].dtype == np.int32 and out["weight"].dtype == np.float64
    assert out["status"].dtype == np.int32
    np.testing.assert_array_equal(out["id"], np.arange(2000))
    np.testing.assert_array_equal(out["weight"], np.arange(2000) + 0.5)
    assert np.all(out["pdg"] == 13)
    at_plane = out["status"] == 0
    assert at_plane.mean() > 0.99
    np.testing.assert_allclose(out["z"][at_plane], 10.0, atol=1e-4)
    p = momentum(out)[at_plane]
    # About 1.8 GeV lost per metre of iron at these momenta (Groom et al. 2001).
    assert 25 < p.mean() < 38
    assert 0.01 < out["x"][at_plane].std() < 0.1


def test_default_output_is_status_zero_only(fe_table, iron_block):
    m = muons(300)
    m[:, 2] = np.linspace(5.0, 30.0, 300)  # the range of a 15 GeV/c muon in iron is about 10 m
    everything = fastmu.transport(m, iron_block, tables=[fe_table], all=True, cache=False)
    only = fastmu.transport(m, iron_block, tables=[fe_table], cache=False)
    keep = everything["status"] == 0
    assert 0 < keep.sum() < 300
    assert np.any(everything["status"] == 1)
    stopped = everything["status"] == 1
    assert np.all(momentum(everything)[stopped] == 0)
    for k in KEYS:
        np.testing.assert_array_equal(only[k], everything[k][keep])


def test_reproducible_and_thread_independent(fe_table, iron_block):
    m = muons(500)
    a = fastmu.transport(m, iron_block, tables=[fe_table], all=True, threads=1, seed=4,
                         cache=False)
    b = fastmu.transport(m, iron_block, tables=[fe_table], all=True, threads=2, seed=4,
                         cache=False)
    c = fastmu.transport(m, iron_block, tables=[fe_table], all=True, seed=5, cache=False)
    for k in KEYS:
        np.testing.assert_array_equal(a[k], b[k])
    assert not np.array_equal(a["pz"], c["pz"])
    # A muon's history depends on its id only, not on the batch around it.
    d = fastmu.transport(m[:100], iron_block, tables=[fe_table], all=True, seed=4, cache=False)
    np.testing.assert_array_equal(d["pz"], a["pz"][:100])


def test_gpu_count_checked(fe_table, iron_block):
    m = muons(10)
    with pytest.raises(fastmu.Error, match="gpus"):
        fastmu.transport(m, iron_block, tables=[fe_table], gpus=-1, cache=False)
    # More GPUs than visible (none here without CUDA): one-line error.
    with pytest.raises(fastmu.Error):
        fastmu.transport(m, iron_block, tables=[fe_table], backend="cuda", gpus=1024,
                         cache=False)
    # The CPU backend ignores the GPU count.
    a = fastmu.transport(m, iron_block, tables=[fe_table], backend="cpu", gpus=3, all=True,
                         cache=False)
    assert len(a["pz"]) == 10


def test_input_forms(fe_table, iron_block, tmp_path):
    m = muons(50)
    ref = fastmu.transport(m, iron_block, tables=[fe_table], all=True, cache=False)
    path = tmp_path / "fe.h5"
    fe_table.save(path)
    variants = [
        dict(muons=m.astype(np.float64), tables=fe_table),
        dict(muons=m.tolist(), tables=[str(path)]),
        dict(muons=np.asfortranarray(m), tables={"G4_Fe": path}),
    ]
    for v in variants:
        out = fastmu.transport(v["muons"], iron_block, tables=v["tables"], all=True, cache=False)
        np.testing.assert_array_equal(out["pz"], ref["pz"])
    seven = fastmu.transport(m[:, :7], fastmu.examples.iron_block_geometry(), tables=[fe_table],
                             all=True, cache=False)
    np.testing.assert_array_equal(seven["pz"], ref["pz"])
    assert np.all(seven["weight"] == 1.0)


def test_field_bends_opposite_charges(fe_table):
    geo = fastmu.examples.iron_block_geometry()
    geo["volumes"][0]["field"] = [0.0, 1.7, 0.0]
    neg = fastmu.transport(muons(200, pdg=13), geo, tables=[fe_table], all=True, cache=False)
    pos = fastmu.transport(muons(200, pdg=-13), geo, tables=[fe_table], all=True, cache=False)
    assert neg["x"].mean() * pos["x"].mean() < 0
    # p_T kick of 0.3 * 1.7 T * 10 m = 5.1 GeV/c: a deflection of metres.
    assert abs(neg["x"].mean()) > 0.5
    assert np.all(pos["pdg"] == -13)


def test_field_map_argument_acts_like_volume_field(fe_table):
    uniform = fastmu.examples.iron_block_geometry()
    uniform["volumes"][0]["field"] = [0.0, 1.7, 0.0]
    B = np.zeros((2, 2, 2, 3), np.float32)
    B[..., 1] = 1.7
    fmap = fastmu.FieldMap(B, [-25, -25, -1], [25, 25, 11])
    m = muons(300)
    a = fastmu.transport(m, uniform, tables=[fe_table], all=True, cache=False)
    b = fastmu.transport(m, fastmu.examples.iron_block_geometry(), tables=[fe_table], all=True,
                         cache=False, field_map=fmap)
    assert b["x"].mean() == pytest.approx(a["x"].mean(), rel=0.02)
    assert abs(b["x"].mean()) > 0.5


def test_several_planes_give_plane_column(fe_table):
    geo = fastmu.examples.iron_block_geometry()
    geo["world"]["max"][2] = 13.0
    geo["sensitive_planes"] = [{"z": 12.0, "x": [-0.01, 0.01], "y": [-20, 20]},
                               {"z": 10.5, "x": [-20, 20], "y": [-20, 20]}]
    out = fastmu.transport(muons(100), geo, tables=[fe_table], all=True, cache=False)
    assert "plane" in out
    # The first plane crossed is z = 10.5 (index 1), inside its window.
    assert np.all(out["plane"][out["status"] == 0] == 1)


def test_tables_from_cache(iron_block, tmp_path):
    def cached():
        files = sorted((tmp_path / "long").glob("G4_Fe_step*mm_*_v1.h5"))
        return {round(fastmu.load_table(f).info["step"] * 1000, 3): fastmu.load_table(f)
                for f in files}

    out = fastmu.transport(muons(20), iron_block, all=True, cache=tmp_path / "long")
    assert out["status"].shape == (20,)
    # The 2 cm table, its ladder (transport/step/StepLengths.hh: 10, 5, 2.5, 1.25 mm)
    # and the long steps of fast muons: 4, 8, ..., 32 cm from 5, 10, ..., 40 GeV/c,
    # on the cache's grid up to the first edge above the muons' 50 GeV/c (p_max="auto").
    # (File names: material, step and a hash of everything that made the table.)
    tables = cached()
    assert sorted(tables) == [1.25, 2.5, 5.0, 10.0, 20.0, 40.0, 80.0, 160.0, 320.0]
    assert tables[20.0].info["samples"] == 70 * 2000
    # To the grid's top, 100 TeV/c (163 bins): the same files extended, and the
    # long steps up to 256 cm from 320 GeV/c added.
    fastmu.transport(muons(20), iron_block, cache=tmp_path / "long", p_max=1e5)
    tables = cached()
    assert sorted(tables) == [1.25, 2.5, 5.0, 10.0, 20.0, 40.0, 80.0, 160.0, 320.0, 640.0,
                              1280.0, 2560.0]
    assert tables[20.0].info["samples"] == 163 * 2000
    assert tables[160.0].info["samples"] < tables[20.0].info["samples"]  # from 20 GeV/c only
    assert str(fastmu.table_cache_dir(tmp_path)) == str(tmp_path)
    # 50 GeV/c muons through 10 m of iron: 32 cm steps, or 2 cm ones without long steps.
    fixed = fastmu.transport(muons(20), iron_block, all=True, cache=tmp_path / "fixed",
                             long_steps=0)
    assert len(list((tmp_path / "fixed").glob("G4_Fe_step*mm_*_v1.h5"))) == 5
    assert out["steps"].mean() < 80 < 450 < fixed["steps"].mean()
    with pytest.raises(fastmu.Error, match="long_steps"):
        fastmu.transport(muons(2), iron_block, cache=tmp_path / "fixed", long_steps=11)


@pytest.mark.parametrize("bad,needle", [
    (np.zeros((3, 5), np.float32), "shape"),
    (np.zeros((3, 8), np.float32), "pdg"),
])
def test_bad_muons(fe_table, iron_block, bad, needle):
    with pytest.raises(fastmu.Error, match=needle):
        fastmu.transport(bad, iron_block, tables=[fe_table], cache=False)


def test_non_finite_muon(fe_table, iron_block):
    m = muons(3)
    m[1, 4] = np.nan
    with pytest.raises(fastmu.Error, match="row 1, column y"):
        fastmu.transport(m, iron_block, tables=[fe_table], cache=False)
    # Rows are checked on all cores; the first bad row is the one named.
    big = fastmu.examples.iron_block_muons(700000)
    big[600001, 6] = 11
    big[300001, 0] = np.inf
    with pytest.raises(fastmu.Error, match="row 300001, column px"):
        fastmu.transport(big, iron_block, tables=[fe_table], cache=False)
    big[300001, 0] = 0.0
    with pytest.raises(fastmu.Error, match="row 600001, column pdg: 11 is not a muon PDG code"):
        fastmu.transport(big, iron_block, tables=[fe_table], cache=False)


@pytest.mark.parametrize("column,value,needle", [
    (0, 1e39, "row 1, column px: value 1e\\+39 is beyond the float range"),
    (0, 1e30, "row 1, [|]p[|] = 1e\\+30 GeV/c is above the tables' top"),
    (2, 1e15, "row 1, [|]p[|] = 1e\\+15 GeV/c is above the tables' top"),
    (2, -1e25, "above the tables' top"),
])
def test_extreme_rows_refused(fe_table, iron_block, column, value, needle):
    for dtype in (np.float64, np.float32):
        if dtype == np.float32 and abs(value) > 3.4e38:
            continue  # not a float32
        m = muons(3).astype(dtype)
        m[1, column] = value
        with pytest.raises(fastmu.Error, match=needle):
            fastmu.transport(m, iron_block, tables=[fe_table], cache=False)


def test_extreme_rows_transported(fe_table, iron_block):
    # Far outside the world, tiny and denormal momenta: a status, no NaN.
    m = muons(5).astype(np.float64)
    m[1, 3] = 1e30
    m[2, 5] = -1e30
    m[3, 2] = 1e-30
    m[4, 2] = 1e-40
    out = fastmu.transport(m, iron_block, tables=[fe_table], cache=False, all=True)
    assert list(out["status"]) == [0, 2, 2, 1, 1]
    for k in ("px", "py", "pz", "x", "y", "z"):
        assert np.all(np.isfinite(out[k]))
    # Above the tables' top under above_tables="stop": status 5, the row as given.
    m = muons(3).astype(np.float64)
    m[1, 2] = 1e20
    m[2, 0] = 1e30
    out = fastmu.transport(m, iron_block, tables=[fe_table], cache=False, all=True,
                           above_tables="stop")
    assert list(out["status"]) == [0, 5, 5]
    assert out["pz"][1] == np.float32(1e20)
    with pytest.raises(fastmu.Error, match="^above_tables: 'clamp' is not refuse or stop"):
        fastmu.transport(m, iron_block, tables=[fe_table], cache=False, above_tables="clamp")


def test_step_options_checked_as_on_the_command_line(fe_table, iron_block):
    # The command line's checks, naming the Python arguments.
    m = muons(2)
    for kw, needle in [(dict(max_steps=0), "^max_steps: 0 is not an integer in \\[1, 2147483647\\]"),
                       (dict(max_steps=2**31), "^max_steps"),
                       (dict(p_kill=0.0), "^p_kill: 0 GeV/c is not a positive momentum"),
                       (dict(p_kill=float("nan")), "^p_kill"),
                       (dict(long_steps=-1), "^long_steps")]:
        with pytest.raises(fastmu.Error, match=needle):
            fastmu.transport(m, iron_block, tables=[fe_table], cache=False, **kw)


def test_bad_options(fe_table, iron_block):
    m = muons(3)
    with pytest.raises(fastmu.Error, match="backend"):
        fastmu.transport(m, iron_block, tables=[fe_table], backend="tpu", cache=False)
    with pytest.raises(fastmu.Error, match="G4_Fe"):
        fastmu.transport(m, iron_block, tables=[], cache=False)
    # A table sets its material's step (any --step); a non-positive step is an error.
    with pytest.raises(fastmu.Error, match="step"):
        fastmu.transport(m, iron_block, tables=[fe_table], step=-0.05, cache=False)
    with pytest.raises(fastmu.Error, match="two tables"):
        fastmu.transport(m, iron_block, tables=[fe_table, fe_table], cache=False)
    with pytest.raises(fastmu.Error, match="G4_CONCRETE"):
        fastmu.transport(m, iron_block, tables={"G4_CONCRETE": fe_table}, cache=False)
    if not fastmu.cuda_available():
        with pytest.raises(fastmu.Error, match="cuda"):
            fastmu.transport(m, iron_block, tables=[fe_table], backend="cuda", cache=False)


def test_iron_block_against_geant4(fe_table, iron_block, reference_dir):
    ref = read_reference(reference_dir / "slab_G4_Fe_10m_50GeV_mu-.f32")
    ref_moving = np.any(ref[:, 1:4] != 0, axis=1)
    ref_p = np.linalg.norm(ref[ref_moving, 1:4], axis=1)
    out = fastmu.transport(muons(20000), iron_block, tables=[fe_table], all=True, cache=False)
    ok = out["status"] == 0
    p = momentum(out)[ok]
    # Small test tables (30 bins x 5000 samples): a few per cent is the target.
    assert p.mean() == pytest.approx(ref_p.mean(), rel=0.05)
    assert np.median(p) == pytest.approx(np.median(ref_p), rel=0.05)
    assert out["x"][ok].std() == pytest.approx(ref[ref_moving, 4].std(), rel=0.15)


def test_device_arrays_detected():
    assert not fastmu.is_device_array(np.zeros((2, 8)))

    class FakeCuda:
        __cuda_array_interface__ = {"shape": (2, 8), "typestr": "<f4", "data": (0, False),
                                    "version": 3}

    assert fastmu.is_device_array(FakeCuda())
    with pytest.raises(fastmu.Error, match="torch and CuPy"):
        fastmu.transport(FakeCuda(), fastmu.examples.iron_block_geometry(), cache=False)


def _cuda_torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for torch")
    return torch


def test_torch_cuda_round_trip(fe_table, iron_block):
    torch = _cuda_torch()
    m = torch.from_numpy(muons(1000)).cuda()
    if not fastmu.cuda_available():
        pytest.skip("this fastmu has no CUDA backend or sees no GPU")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback through host memory
        out = fastmu.transport(m, iron_block, tables=[fe_table], all=True, cache=False)
    assert out["pz"].is_cuda and out["pz"].shape == (1000,)
    assert out["id"].is_cuda and int(out["id"][-1]) == 999
    host = fastmu.transport(muons(1000), iron_block, tables=[fe_table], all=True, cache=False)
    # Same ids, same random numbers, same backend: equal up to float details
    # (a last-bit difference can flip a bin choice for a rare muon).
    same = np.isclose(out["pz"].cpu().numpy(), host["pz"], rtol=1e-4, atol=1e-4)
    assert same.mean() > 0.99


def test_concurrent_calls_from_python_threads(fe_table, iron_block):
    # The GIL is released while muons fly: calls from several Python threads
    # run side by side and give the same results as one after the other.
    from concurrent.futures import ThreadPoolExecutor
    m = muons(400)
    seeds = [21, 22, 23, 24]
    run = lambda s: fastmu.transport(m, iron_block, tables=[fe_table], all=True, seed=s,  # noqa: E731
                                     threads=1, cache=False)
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(run, seeds))
    for s, out in zip(seeds, parallel):
        np.testing.assert_array_equal(out["pz"], run(s)["pz"])


def test_detailed_engine_through_a_geometry(iron_block):
    muons = fastmu.examples.iron_block_muons(300)
    out = fastmu.transport(muons, iron_block, engine="detailed", all=True, seed=3)
    moving = out["status"] == 0
    assert moving.sum() >= 295  # 50 GeV/c through 10 m of iron: ~0.16 % stop
    assert np.all(out["z"][moving] == np.float32(10.0))
    p = np.sqrt(out["px"] ** 2 + out["py"] ** 2 + out["pz"] ** 2)[moving]
    assert 30.0 < p.mean() < 34.0  # Geant4: 31.96 GeV/c
    again = fastmu.transport(muons, iron_block, engine="detailed", all=True, seed=3, threads=1)
    assert np.array_equal(out["px"], again["px"]) and np.array_equal(out["x"], again["x"])
    with pytest.raises(fastmu.Error, match="engine"):
        fastmu.transport(muons, iron_block, engine="geant4")
    # The backend argument picks the detailed engine's side too.
    if not fastmu.cuda_available():
        with pytest.raises(fastmu.Error, match="cuda"):
            fastmu.transport(muons, iron_block, engine="detailed", backend="cuda")
    else:
        gpu = fastmu.transport(muons, iron_block, engine="detailed", all=True, seed=3,
                               backend="cuda")
        assert (gpu["status"] == 0).sum() >= 295
        assert np.all(gpu["z"][gpu["status"] == 0] == np.float32(10.0))


def test_equal_geometry_dicts_and_files_reuse_parameters(fe_table, tmp_path):
    # A loop that passes the geometry as a dict (or a JSON path) builds once.
    import json
    m = muons(50)
    d = fastmu.examples.iron_block_geometry()
    fastmu.transport(m, d, tables=[fe_table], backend="cpu", seed=21)
    builds = fastmu._fastmu._transport_params_builds()
    fastmu.transport(m, json.loads(json.dumps(d)), tables=[fe_table], backend="cpu", seed=21)
    assert fastmu._fastmu._transport_params_builds() == builds
    path = tmp_path / "g.json"
    path.write_text(json.dumps(d))
    fastmu.transport(m, path, tables=[fe_table], backend="cpu", seed=21)
    fastmu.transport(m, str(path), tables=[fe_table], backend="cpu", seed=21)
    assert fastmu._fastmu._transport_params_builds() == builds + 1
    # A changed dict is a new geometry.
    d["volumes"][0]["max"][2] = 5.0
    fastmu.transport(m, d, tables=[fe_table], backend="cpu", seed=21)
    assert fastmu._fastmu._transport_params_builds() == builds + 2


def test_repeated_call_reuses_parameters_and_slices_keep_ids(fe_table, iron_block):
    m = muons(2000)
    m[:, 2] = np.linspace(5, 60, len(m))
    whole = fastmu.transport(m, iron_block, tables=[fe_table], backend="cpu", all=True, seed=11)
    builds = fastmu._fastmu._transport_params_builds()
    # Same geometry, tables and options: no rebuild; a slice with first_id is
    # the same muons (same ids, same random numbers) as in the whole batch.
    tail = fastmu.transport(m[700:], iron_block, tables=[fe_table], backend="cpu", all=True,
                            seed=11, first_id=700)
    assert fastmu._fastmu._transport_params_builds() == builds
    for k in whole:
        np.testing.assert_array_equal(tail[k], whole[k][700:])
    # Other options build anew.
    fastmu.transport(m[:10], iron_block, tables=[fe_table], backend="cpu", seed=12)
    assert fastmu._fastmu._transport_params_builds() == builds + 1


def test_decay_keyword_and_status(tmp_path):
    # 1 GeV/c over 5 km of vacuum (decay length 6.2 km): 55 % decay on the way,
    # status 6 where they decayed; decay=False: none. Both engines.
    geo = {"world": {"min": [-20, -20, -1], "max": [20, 20, 6000], "material": "vacuum"},
           "sensitive_planes": [{"z": 5000, "x": [-20, 20], "y": [-20, 20]}]}
    n = 4000
    m = np.zeros((n, 8))
    m[:, 2], m[:, 6], m[:, 7] = 1.0, 13, 1.0
    survival = np.exp(-5000 * 0.1056583755 / (1.0 * 2.1969811e-6 * 299792458.0))
    sd = np.sqrt(survival * (1 - survival) / n)
    assert fastmu.STATUS[6] == "decayed"
    for engine in ("fast", "detailed"):
        out = fastmu.transport(m, geo, backend="cpu", engine=engine, all=True, cache=False)
        decayed = out["status"] == 6
        assert np.all((out["status"] == 0) | decayed)
        assert abs(np.mean(out["status"] == 0) - survival) < 4 * sd, engine
        assert np.all((out["z"][decayed] > 0) & (out["z"][decayed] < 5000))
        assert np.allclose(out["pz"][decayed], 1.0)  # the momentum it decayed with
        off = fastmu.transport(m, geo, backend="cpu", engine=engine, all=True, cache=False,
                               decay=False)
        assert np.all(off["status"] == 0), engine
    with pytest.raises(fastmu.Error, match="decay: 'on' is not True or False"):
        fastmu.transport(m, geo, cache=False, decay="on")

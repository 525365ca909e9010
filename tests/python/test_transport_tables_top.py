"""fastmu.transport's p_max: tables from the cache only as far up as the
muons (or p_max) need, never rebuilt where the cache covers them, and a row
above what any table reaches refused before a table is built."""

import os
import time

import numpy as np
import pytest

import fastmu


def _muons(p, n=200):
    m = np.zeros((n, 8))
    m[:, 2] = p
    m[:, 5] = -1.0
    m[:, 6] = 13
    m[:, 7] = 1
    return m


def _cached(folder):
    return {f: os.path.getmtime(os.path.join(folder, f))
            for f in os.listdir(folder) if f.endswith(".h5")}


def test_p_max_auto_builds_only_to_the_muons(tmp_path, iron_block, fe_table):
    folder = str(tmp_path)
    out = fastmu.transport(_muons(5.0), iron_block, tables=[fe_table], cache=folder, all=True)
    assert len(out["status"]) == 200
    files = _cached(folder)
    assert files, "the shorter steps of G4_Fe come from the cache"
    for f in files:
        top = fastmu.load_table(os.path.join(folder, f)).info["p_max"]
        assert 5.0 <= top < 6.0, (f, top)  # the first grid edge at or above 5 GeV/c
    # Lower tops are covered: nothing built, nothing rewritten.
    fastmu.transport(_muons(2.0), iron_block, tables=[fe_table], cache=folder)
    fastmu.transport(_muons(2.0), iron_block, tables=[fe_table], cache=folder, p_max=4)
    assert _cached(folder) == files


def test_higher_p_max_extends_the_cached_tables(tmp_path, iron_block, fe_table):
    folder = str(tmp_path)
    fastmu.transport(_muons(2.0), iron_block, tables=[fe_table], cache=folder)
    before = _cached(folder)
    fastmu.transport(_muons(2.0), iron_block, tables=[fe_table], cache=folder, p_max=8)
    after = _cached(folder)
    assert set(after) == set(before)  # the same entries, extended in place
    for f in after:
        assert fastmu.load_table(os.path.join(folder, f)).info["p_max"] >= 8.0


def test_row_above_every_table_is_refused_before_tables(tmp_path, iron_block):
    folder = str(tmp_path)
    m = _muons(5.0, 10)
    m[7, 2] = 1e20
    t0 = time.monotonic()
    with pytest.raises(fastmu.Error, match=r"row 7, \|p\| = 1e\+20 GeV/c is above the tables' top"):
        fastmu.transport(m, iron_block, cache=folder)
    assert time.monotonic() - t0 < 2.0
    assert _cached(folder) == {}


@pytest.mark.parametrize("bad", [0.5, 2e5, "high", float("nan")])
def test_p_max_must_be_auto_or_a_momentum(iron_block, fe_table, bad):
    with pytest.raises(fastmu.Error, match="p_max"):
        fastmu.transport(_muons(5.0, 4), iron_block, tables=[fe_table], cache=False, p_max=bad)

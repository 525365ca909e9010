import numpy as np
import pytest

import fastmu


def linear_map():
    # B = (0, x + 2 y + 3 z, 0) on [0, 1]^3: trilinear interpolation is exact.
    x, y, z = np.meshgrid(np.linspace(0, 1, 3), np.linspace(0, 1, 4), np.linspace(0, 1, 5),
                          indexing="ij")
    B = np.zeros(x.shape + (3,), np.float32)
    B[..., 1] = x + 2 * y + 3 * z
    return B


def test_linear_interpolation_is_exact_for_linear_fields():
    f = fastmu.FieldMap(linear_map(), [0, 0, 0], [1, 1, 1])
    assert f.shape == (3, 4, 5) and f.interpolation == "linear" and f.symmetry == "none"
    pts = np.array([[0.3, 0.6, 0.1], [0.9, 0.2, 0.7]], np.float32)
    b = f(pts)
    np.testing.assert_allclose(b[:, 1], pts[:, 0] + 2 * pts[:, 1] + 3 * pts[:, 2], rtol=1e-5)
    assert np.all(f([[2.0, 0.5, 0.5]]) == 0)  # zero outside the map


def test_quadrant_symmetry():
    B = np.zeros((2, 2, 2, 3), np.float32)
    B[...] = [1.0, 2.0, 3.0]
    f = fastmu.FieldMap(B, [0, 0, 0], [1, 1, 1], symmetry="quadrant")
    pts = np.array([[0.5, 0.5, 0.5], [-0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [-0.5, -0.5, 0.5]])
    b = f(pts)
    # (sx Bx, By, sz Bz) with sx = sign(x y), sz = sign(y).
    np.testing.assert_allclose(b, [[1, 2, 3], [-1, 2, 3], [-1, 2, -3], [1, 2, -3]])


def test_hdf5_roundtrip(tmp_path):
    f = fastmu.FieldMap(linear_map(), [-1, -2, 0], [1, 2, 4], interpolation="nearest")
    path = tmp_path / "field.h5"
    f.save(path)
    g = fastmu.FieldMap.from_hdf5(path, interpolation="nearest")
    np.testing.assert_array_equal(g.B, f.B)
    assert g.min == pytest.approx([-1, -2, 0]) and g.max == pytest.approx([1, 2, 4])
    h5py = pytest.importorskip("h5py")
    with h5py.File(path, "r") as h:
        assert h["B"].shape == (3, 4, 5, 3)
        np.testing.assert_allclose(h["B"].attrs.get("min", h.attrs.get("min")), [-1, -2, 0])


@pytest.mark.parametrize("args,needle", [
    ((np.zeros((3, 3, 3)), [0, 0, 0], [1, 1, 1]), "shape"),
    ((np.zeros((3, 3, 3, 3)), [0, 0, 0], [1, 1, 1], "cubic"), "interpolation"),
    ((np.zeros((3, 3, 3, 3)), [0, 0, 0], [1, 1, 1], "linear", "octant"), "symmetry"),
    ((np.zeros((3, 3, 3, 3)), [0, 0, 0], [0, 1, 1]), ""),
    ((np.zeros((1, 3, 3, 3)), [0, 0, 0], [1, 1, 1]), ""),
])
def test_bad_maps(args, needle):
    with pytest.raises(fastmu.Error, match=needle):
        fastmu.FieldMap(*args)


def test_missing_file(tmp_path):
    with pytest.raises(fastmu.Error, match="nofield.h5"):
        fastmu.FieldMap.from_hdf5(tmp_path / "nofield.h5")

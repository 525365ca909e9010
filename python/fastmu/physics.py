"""The detailed physics engine (condensed-history Monte Carlo with Geant4's
muon EM processes): the slow reference the histogram tables are built from.

Both functions return an (n, 7) float64 array with columns
p0, px, py, pz, x, y, z (GeV/c, metres); a stopped muon has px = py = pz = 0.

    s = fastmu.physics.sample("G4_Fe", p=10.0, step=0.02, n=10000)
    loss = s[:, 0] - s[:, 3]                      # p0 - pz
    kick = np.hypot(s[:, 1], s[:, 2])

    t = fastmu.physics.transport("G4_Fe", thickness=10.0, p=50.0, n=1000)
"""

from ._checks import MAX_FIELD, MAX_STEP, TOP_MOMENTUM, integer, positive, reals, text
from ._fastmu import Error  # noqa: F401 - kept: fastmu.physics.Error as before
from ._fastmu import physics as _p

COLUMNS = ("p0", "px", "py", "pz", "x", "y", "z")


def sample(material, p, p_max=None, step=0.02, n=10000, charge=-1, seed=1, threads=0,
           photonuclear=False, decay=False):
    """Single-step samples: muons start at the centre of a sphere of radius
    `step` [m] filled with `material`, momentum (0, 0, p0) with p0 uniform in
    [p, p_max] (p_max = p by default), recorded where they leave it.
    Returns an (n, 7) array p0, px, py, pz, x, y, z."""
    return _p.sample(text("material", material), positive("p", p, TOP_MOMENTUM),
                     None if p_max is None else positive("p_max", p_max, TOP_MOMENTUM),
                     positive("step", step, MAX_STEP),
                     integer("n", n), integer("charge", charge), integer("seed", seed),
                     integer("threads", threads), bool(photonuclear), bool(decay))


def transport(material, thickness, p, p_max=None, n=10000, charge=-1, field=(0.0, 0.0, 0.0),
              seed=1, threads=0, photonuclear=False, decay=False):
    """Slab transport: muons start at the origin along +z through `material`
    filling 0 <= z <= thickness [m] (|x|, |y| <= 20 m) with a uniform field
    [T], recorded where they leave it. Returns an (n, 7) array."""
    field = reals("field", field, 3, -MAX_FIELD, MAX_FIELD)
    return _p.transport(text("material", material), positive("thickness", thickness, 1e5),
                        positive("p", p, TOP_MOMENTUM),
                        None if p_max is None else positive("p_max", p_max, TOP_MOMENTUM),
                        integer("n", n),
                        integer("charge", charge), field, integer("seed", seed),
                        integer("threads", threads), bool(photonuclear), bool(decay))


__all__ = ["sample", "transport", "COLUMNS"]

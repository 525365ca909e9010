"""The sea-level cosmic-muon flux: the parametrisation of Guan et al. (2015,
arXiv:1509.06176; Gaisser's formula with a curved-Earth zenith angle and a
low-energy correction) and muons sampled from it with per-muon weights
(docs/cosmic-muons.md).

    muons = fastmu.flux(100000, e_min=1, e_max=1e5, area=(-5, 5, -5, 5))
    rate = muons[:, 7].sum()            # muons per second through the 100 m^2
    fastmu.flux_intensity(10.0, 0.0)    # m^-2 s^-1 sr^-1 GeV^-1, vertical, 10 GeV

Conventions: z is up and the muons move down (pz < 0); energies are total
energies in GeV; positions in metres. A muon's weight is the number of such
muons per second through the area (s^-1): the sum of the weights of a sample
estimates the rate through the area in the sampled energy and zenith range.
"""

import numbers

import numpy as np

from . import _fastmu
from ._checks import integer, real, reals
from ._fastmu import Error

COLUMNS = ("px", "py", "pz", "x", "y", "z", "pdg", "weight")
CHARGE_RATIO = _fastmu._flux_charge_ratio  # mu+ / mu-


def _area(area):
    values = reals("area", area, 4, -1e5, 1e5)
    if len(values) != 4:
        raise Error(f"flux: area must be (x0, x1, y0, y1), got {len(values)} values")
    return values


def flux(n, e_min=1.0, e_max=1e5, zenith_max=85.0, gamma=2.0, area=(-0.5, 0.5, -0.5, 0.5),
         z=0.0, seed=1, cos_power=0.0, threads=0):
    """n muons crossing the horizontal rectangle `area` = (x0, x1, y0, y1) [m]
    at height z [m], moving down: an (n, 8) float64 array with columns
    px,py,pz,x,y,z,pdg,weight (the muon file format, fastmu.transport's input).

    Energies (total, GeV) are drawn from E^-gamma on [e_min, e_max] (e_max at
    most 1e7), cos(zenith) from cos^cos_power on [cos(zenith_max), 1]
    (zenith_max in degrees, at most 85), the azimuth uniformly. weight =
    flux / (n x sampling density): muons per second through the area, so
    that the weights sum to the rate (fastmu.flux_rate). Row i depends on
    seed and i only (its weight also on n), not on the thread count
    (threads 0: all cores).
    """
    if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n < 0:
        raise Error(f"flux: n must be an integer >= 0, got {n!r}")
    return _fastmu._flux_sample(integer("n", n), real("e_min", e_min), real("e_max", e_max),
                                real("zenith_max", zenith_max), real("gamma", gamma),
                                real("cos_power", cos_power), _area(area), real("z", z, -1e5, 1e5),
                                integer("seed", seed), integer("threads", threads))


def flux_intensity(energy, zenith_deg):
    """The differential intensity dN/(dE dOmega dA dt) of muons of both charges
    at sea level, in m^-2 s^-1 sr^-1 GeV^-1 (area perpendicular to the
    direction), for total energies `energy` [GeV] and zenith angles
    `zenith_deg` [degrees]: arrays of any broadcastable shapes, or scalars.
    0 where the zenith angle is 90 degrees or more or the energy is at most
    the muon mass."""
    try:
        e, t = np.broadcast_arrays(np.asarray(energy, dtype=np.float64),
                                   np.asarray(zenith_deg, dtype=np.float64))
    except (TypeError, ValueError) as err:
        raise Error(f"flux_intensity: energy and zenith_deg must be numbers or arrays of "
                    f"broadcastable shapes ({str(err).splitlines()[0]})") from None
    c = np.where(t < 90.0, np.cos(np.radians(t)), 0.0)  # cos(90 deg) rounds above 0
    out = _fastmu._flux_intensity(np.ascontiguousarray(e).ravel(),
                                  np.ascontiguousarray(c).ravel()).reshape(e.shape)
    return float(out) if out.ndim == 0 else out


def flux_rate(e_min=1.0, e_max=1e5, zenith_max=85.0, area=(-0.5, 0.5, -0.5, 0.5)):
    """The rate (s^-1) of muons with total energy in [e_min, e_max] GeV and
    zenith angle below zenith_max degrees through the horizontal rectangle
    `area` [m]: the flux integrated numerically, which the sum of the
    weights of fastmu.flux(...) estimates."""
    return _fastmu._flux_rate(real("e_min", e_min), real("e_max", e_max),
                              real("zenith_max", zenith_max), _area(area))


__all__ = ["flux", "flux_intensity", "flux_rate", "COLUMNS", "CHARGE_RATIO"]

"""The SHiP-like shield's loss as shield optimisations use it: the smoothed
window count times a cost factor, with smooth length and cavern terms.

    loss = H * (1 + exp(10 (W - W0) / W0)) * (1 + P_length + P_cavern)

H is fastmu.ship.objective's smoothed (weighted) window count. The cost
factor is the one of the SHiP shield optimisation (Baranov et al.,
"Optimising the Active Muon Shield for the SHiP Experiment at CERN",
J. Phys. Conf. Ser. 934 (2017) 012050; the same form in the later GAN-based
work, "Fast simulation of muons produced at the SHiP experiment using
Generative Adversarial Networks", JINST 14 (2019) P11028): the loss stays
close to H while the magnets cost less than W0 and grows steeply above.
W is the magnets' cost in tonnes of iron equivalent:

    W = rho_Fe V_iron + coil_cost * sum_i sqrt(B_i^2 + 0.01 T^2) * l_i

V_iron the summed volume of the ARB8 blocks (exact: the cross-section of an
ARB8 is quadratic in z, so Simpson's rule integrates it), rho_Fe = 7.874
g/cm3 (G4_Fe), and a coil model of our own (the papers' coil model is not
published with its constants): each magnet has two racetrack coils around
its cores, of length l = 2 (4 dZ + dXIn + dXOut), whose conductor grows with
the ampere-turns, taken proportional to |B| (smoothed at B = 0).
P_length = softplus((L - length_max) / length_width) with L the shield's
length (sum of zgap + 2 dZ); P_cavern = cavern_weight * sum softplus(e /
cavern_width) over the magnets' outer corners, e how far a corner lies beyond
the cavern's tunnel (docs/ship-like-muon-shield.md) at the upstream and
downstream faces (and where the tunnel widens, z = 18.378 m). A block that
reaches the concrete cannot be transported (the volumes would overlap), so
the cavern term keeps a design away from it.
"""

import numpy as np

from . import _fastmu
from ._fastmu import Error

IRON_DENSITY = 7.874   # g/cm3 = t/m3, G4_Fe (Geant4 NIST)
COIL_COST = 1.0        # t of iron equivalent per (T m) of coil length
LENGTH_MAX = 35.0      # m
LENGTH_WIDTH = 0.5     # m
CAVERN_WEIGHT = 0.1
CAVERN_WIDTH = 0.01    # m
_CM = 0.01
# The tunnel (docs/ship-like-muon-shield.md): the nearest walls to a block
# symmetric about the axis are the left one (x0) and the floor (y0).
_TUNNEL_STEP_Z = 18.378                    # m
_TUNNEL_UP = (3.57, 1.70)                  # |x0|, |y0| for z <= 18.378 m
_TUNNEL_DOWN = (4.57, 3.36)


def _as_params(params):
    p = np.array(params, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] != 15:
        raise Error(f"ship parameters: expected an array of shape (n_magnets, 15), got {p.shape}")
    if not np.all(np.isfinite(p)):
        raise Error("ship parameters: parameters must be finite")
    return p


def _all_pairs(p):
    return np.array([(m, c) for m in range(p.shape[0]) for c in range(15)], np.int32)


def _blocks(p):
    """The magnets' ARB8 blocks in the geometry's vertex order (counter-
    clockwise): lower and upper faces (B, 4, 2), z_lo and z_hi (B,), metres."""
    from .ship import geometry_dict
    vols = [v for v in geometry_dict(p)["volumes"] if v["shape"] == "arb8"]
    verts = np.array([v["vertices"] for v in vols], dtype=np.float64)  # (B, 8, 2)
    lo, hi = verts[:, :4], verts[:, 4:]
    clockwise = (_area(lo) < 0) | (_area(hi) < 0)
    order = np.array([0, 3, 2, 1])
    lo[clockwise] = lo[clockwise][:, order]
    hi[clockwise] = hi[clockwise][:, order]
    zc = np.array([v["z_center"] for v in vols])
    dz = np.array([v["dz"] for v in vols])
    return lo, hi, zc - dz, zc + dz


def _area(q):
    """Signed area of quadrilaterals (..., 4, 2) (shoelace)."""
    x, y = q[..., 0], q[..., 1]
    return 0.5 * np.sum(x * np.roll(y, -1, -1) - np.roll(x, -1, -1) * y, -1)


def _darea(q, dq):
    """The derivative of _area(q) along dq (..., 4, 2)."""
    x, y = q[..., 0], q[..., 1]
    dx, dy = dq[..., 0], dq[..., 1]
    xn, yn = np.roll(x, -1, -1), np.roll(y, -1, -1)
    dxn, dyn = np.roll(dx, -1, -1), np.roll(dy, -1, -1)
    return 0.5 * np.sum(dx * yn + x * dyn - dxn * y - xn * dy, -1)


def iron_mass(params, density=IRON_DENSITY):
    """The magnets' iron mass [t] and its gradient (params' shape, t per cm
    and per T): the ARB8 volumes, integral over z of the area of the
    interpolated cross-section (quadratic in z: Simpson's rule is exact),
    differentiated through the vertices (_fastmu._ship_parameter_tangents,
    exact: the vertices are linear in the dimensions)."""
    p = _as_params(params)
    lo, hi, z_lo, z_hi = _blocks(p)
    nb = len(z_lo)
    _, dshape = _fastmu._ship_parameter_tangents(p, _all_pairs(p))
    d = dshape[:nb]                                   # (B, P, 18)
    dlo = np.stack([d[..., 0:4], d[..., 8:12]], -1)   # (B, P, 4, 2)
    dhi = np.stack([d[..., 4:8], d[..., 12:16]], -1)
    h = (z_hi - z_lo)[:, None]
    dh = d[..., 17] - d[..., 16]
    mid, dmid = 0.5 * (lo + hi), 0.5 * (dlo + dhi)
    a = (_area(lo) + 4 * _area(mid) + _area(hi))[:, None] / 6
    da = (_darea(lo[:, None], dlo) + 4 * _darea(mid[:, None], dmid)
          + _darea(hi[:, None], dhi)) / 6
    volume = float(np.sum(h * a))
    grad = np.sum(dh * a + h * da, 0).reshape(p.shape)
    return density * volume, density * grad


def coil_cost(params, coil=COIL_COST):
    """The coil model's cost [t of iron equivalent] and its gradient:
    coil * sum sqrt(B^2 + 0.01) * 2 (4 dZ + dXIn + dXOut) [m]."""
    p = _as_params(params)
    b = np.sqrt(p[:, 14] ** 2 + 0.01)
    length = 2 * (4 * p[:, 1] + p[:, 2] + p[:, 3]) * _CM
    grad = np.zeros_like(p)
    grad[:, 1] = coil * b * 8 * _CM
    grad[:, 2] = grad[:, 3] = coil * b * 2 * _CM
    grad[:, 14] = coil * length * p[:, 14] / b
    return float(coil * np.sum(b * length)), grad


def cost(params, density=IRON_DENSITY, coil=COIL_COST):
    """W, the magnets' cost [t of iron equivalent], and its gradient."""
    mi, gi = iron_mass(params, density)
    mc, gc = coil_cost(params, coil)
    return mi + mc, gi + gc


def _softplus(x):
    return np.logaddexp(0.0, x)


def _corner_excess(p):
    """How far each magnet's outer corners lie beyond the tunnel's nearest
    walls [m] (negative inside), at both faces and where the tunnel widens."""
    x_out = (p[:, 12:14] + p[:, 2:4] + p[:, 6:8] + p[:, 8:10]) * _CM  # (n, 2): In, Out
    y_out = (p[:, 4:6] + p[:, 10:12]) * _CM
    start = np.cumsum(p[:, 0] + 2 * p[:, 1]) - 2 * p[:, 1]            # cm, upstream faces
    z = np.stack([start, start + 2 * p[:, 1]], 1) * _CM
    excess = []
    for f in range(2):
        walls = np.where(z[:, f:f + 1] <= _TUNNEL_STEP_Z, _TUNNEL_UP, _TUNNEL_DOWN)
        excess += [x_out[:, f] - walls[:, 0], y_out[:, f] - walls[:, 1]]
    # At the step, the upstream walls still hold: the extent interpolated there.
    span = np.maximum(z[:, 1] - z[:, 0], 1e-9)
    t = np.clip((_TUNNEL_STEP_Z - z[:, 0]) / span, 0.0, 1.0)
    inside = (z[:, 0] < _TUNNEL_STEP_Z) & (z[:, 1] > _TUNNEL_STEP_Z)
    far = -10.0  # m: no such corner
    excess += [np.where(inside, x_out[:, 0] + t * (x_out[:, 1] - x_out[:, 0]) - _TUNNEL_UP[0], far),
               np.where(inside, y_out[:, 0] + t * (y_out[:, 1] - y_out[:, 0]) - _TUNNEL_UP[1], far)]
    return np.concatenate(excess)


def penalties(params, length_max=LENGTH_MAX, length_width=LENGTH_WIDTH,
              cavern_weight=CAVERN_WEIGHT, cavern_width=CAVERN_WIDTH):
    """P_length + P_cavern of a design (dimensionless) and its gradient
    (central differences of this closed form, 1e-4 cm: the terms are smooth
    and cheap)."""
    p = _as_params(params)

    def value(q):
        length = np.sum(q[:, 0] + 2 * q[:, 1]) * _CM
        return (_softplus((length - length_max) / length_width)
                + cavern_weight * np.sum(_softplus(_corner_excess(q) / cavern_width)))

    grad = np.zeros_like(p)
    h = 1e-4
    for m in range(p.shape[0]):
        for c in range(14):
            up, dn = p.copy(), p.copy()
            up[m, c] += h
            dn[m, c] -= h
            grad[m, c] = (value(up) - value(dn)) / (2 * h)
    return float(value(p)), grad


def loss(muons, params, W0=None, density=IRON_DENSITY, coil=COIL_COST, length_max=LENGTH_MAX,
         length_width=LENGTH_WIDTH, cavern_weight=CAVERN_WEIGHT, cavern_width=CAVERN_WIDTH,
         details=False, **options):
    """The shield's loss H (1 + exp(10 (W - W0) / W0)) (1 + P_length + P_cavern)
    and its gradient (params' shape: per cm and per T).

    H: fastmu.ship.objective(muons, params, **options) (its smoothing, seed,
    backend, columns...). W0 [t]: the reference cost; None takes the cost of
    warm_baseline (so that the cost factor is 2 there). The constants are
    the module's (IRON_DENSITY, COIL_COST, LENGTH_MAX, ...); see its
    docstring for the model and the sources. With details=True a third item,
    a dict: hits (H), cost (W), cost_factor, penalty, objective (the
    objective's details)."""
    from .ship import objective, parameters
    p = _as_params(params)
    if W0 is None:
        W0 = cost(parameters("warm_baseline"), density, coil)[0]
    if not W0 > 0:
        raise Error(f"loss: W0 must be a positive cost, got {W0}")
    result = objective(muons, p, gradient=True, details=details, **options)
    hits, dhits = result[0], result[1]
    w, dw = cost(p, density, coil)
    e = np.exp(10.0 * (w - W0) / W0)
    factor, dfactor = 1.0 + e, e * 10.0 / W0 * dw
    pen, dpen = penalties(p, length_max, length_width, cavern_weight, cavern_width)
    value = hits * factor * (1.0 + pen)
    grad = dhits * factor * (1.0 + pen) + hits * dfactor * (1.0 + pen) + hits * factor * dpen
    if details:
        return value, grad, dict(hits=hits, cost=w, cost_factor=factor, penalty=pen,
                                 objective=result[2])
    return value, grad


_TORCH_LOSS = None


def loss_function():
    """The torch.autograd.Function of loss(): apply(params, muons, options),
    as fastmu.ship.objective_function() (columns not computed give 0)."""
    global _TORCH_LOSS
    if _TORCH_LOSS is not None:
        return _TORCH_LOSS
    import torch

    class ShipLoss(torch.autograd.Function):
        @staticmethod
        def forward(ctx, params, muons, options):
            p = params.detach().to("cpu", torch.float64).numpy()
            value, grad = loss(muons, p, **(options or {}))
            g = torch.as_tensor(np.nan_to_num(grad, nan=0.0), dtype=params.dtype,
                                device=params.device)
            ctx.save_for_backward(g)
            return torch.tensor(value, dtype=params.dtype, device=params.device)

        @staticmethod
        def backward(ctx, grad_output):
            (g,) = ctx.saved_tensors
            return grad_output * g, None, None

    _TORCH_LOSS = ShipLoss
    return ShipLoss


def torch_loss(params, muons, **options):
    """loss() of a torch tensor `params`, differentiable (loss_function())."""
    return loss_function().apply(params, muons, options)

#!/usr/bin/env python3
"""Writes examples/ship_warm.json and examples/ship_hybrid.json, the SHiP-like
active muon shield of docs/ship-like-muon-shield.md, as fastmu
geometry files (interfaces.md "Geometry (JSON)"). Standard library only.

The C++ function fastmu::make_ship_shield_json (src/fastmu/geometry/ShipShield.cc,
used by `fastmu run --example ship`) transcribes the same page; the geometry tests
check that the committed JSON files and the C++ function agree, so edit both.

    /usr/bin/python3 examples/make_ship_geometry.py [--world-material vacuum] [--out-dir DIR]
"""
import argparse
import json
import os

# [zgap, dZ, dXIn, dXOut, dYIn, dYOut, gapIn, gapOut,
#  xYokeIn, xYokeOut, dYYokeIn, dYYokeOut, midGapIn, midGapOut, B]   (cm, T)
PARAMETER_SETS = {
    "warm": [
        [0.0, 120.5, 50.0, 50.0, 119.0, 119.0, 2.0, 2.0, 50.0, 50.0, 50.0, 50.0, 0.0, 0.0, 1.9],
        [10.0, 250.0, 72.0, 51.0, 29.0, 46.0, 10.0, 7.0, 72.0, 51.0, 72.0, 51.0, 0.0, 0.0, 1.9],
        [10.0, 250.0, 54.0, 38.0, 46.0, 130.0, 14.0, 9.0, 54.0, 38.0, 54.0, 38.0, 0.0, 0.0, 1.9],
        [10.0, 250.0, 10.0, 31.0, 35.0, 31.0, 51.0, 11.0, 10.0, 31.0, 10.0, 31.0, 0.0, 0.0, 1.9],
        [10.0, 150.0, 5.0, 32.0, 54.0, 24.0, 8.0, 8.0, 5.0, 32.0, 5.0, 32.0, 0.0, 0.0, -1.9],
        [10.0, 150.0, 22.0, 32.0, 130.0, 35.0, 8.0, 13.0, 22.0, 32.0, 22.0, 32.0, 30.0, 30.0, -1.9],
        [10.0, 251.0, 33.0, 77.0, 85.0, 90.0, 9.0, 26.0, 33.0, 77.0, 33.0, 77.0, 0.0, 0.0, -1.9],
    ],
    "hybrid": [
        [0.0, 120.5, 50.0, 50.0, 119.0, 119.0, 2.0, 2.0, 50.0, 50.0, 50.0, 50.0, 0.0, 0.0, 1.9],
        [40.0, 350.0, 45.0, 45.0, 25.0, 25.0, 35.0, 35.0, 120.15, 120.15, 120.15, 120.15, 0.0, 0.0, 5.1],
        [145.0, 200.0, 5.263, 55.632, 39.86, 5.278, 2.0, 2.0, 5.263, 50.069, 5.263, 50.069, 0.1, 0.1, -1.9],
        [10.0, 200.0, 33.016, 12.833, 123.27, 78.523, 22.414, 2.001, 31.663, 12.230, 31.663, 12.233,
         30.0, 30.0, -1.9],
        [10.0, 195.0, 15.755, 77.293, 69.398, 152.828, 2.0, 35.402, 15.755, 69.564, 15.755, 69.564,
         0.0, 0.0, -1.9],
    ],
}

CM = 0.01  # m
# Cavern: concrete outside a tunnel whose cross-section widens at z = 18.378 m.
TUNNEL_STEP_Z = 18.378
TUNNEL_UPSTREAM = (-3.57, 6.43, -1.70, 5.80)  # x0, x1, y0, y1
TUNNEL_DOWNSTREAM = (-4.57, 11.43, -3.36, 10.64)
# World: the tunnel plus at least 3.5 m of concrete around it, from 1 m
# upstream of the target to 1 m beyond the sensitive plane.
WORLD_LO = (-15.0, -15.0, -1.0)
WORLD_HI = (15.0, 15.0, 83.0)
PLANE_Z = 82.0
PLANE_WINDOW = (-2.0, 2.0, -3.0, 3.0)


def arb8(name, zc, dz, face_in, face_out, bx, by):
    return {"name": name, "shape": "arb8", "z_center": zc, "dz": dz,
            "vertices": [list(p) for p in face_in] + [list(p) for p in face_out],
            "material": "G4_Fe", "field": [bx, by, 0.0]}


def box(name, x0, x1, y0, y1, z0, z1):
    return {"name": name, "shape": "box", "min": [x0, y0, z0], "max": [x1, y1, z1],
            "material": "G4_CONCRETE"}


def face(a, X, Y, g, w, h):
    """The x > 0 core, return yoke and top connector of one face (spec corner order)."""
    core = [(a, -(Y + h)), (a, Y + h), (a + X, Y), (a + X, -Y)]
    yoke = [(a + X + g, -Y), (a + X + g, Y), (a + X + g + w, Y + h), (a + X + g + w, -(Y + h))]
    top = [(a + X, Y), (a, Y + h), (a + X + g + w, Y + h), (a + X + g, Y)]
    return core, yoke, top


def point_reflect(quad):
    """(x, y) -> (-x, -y): a rotation, the corner order keeps its sense."""
    return [(-x, -y) for x, y in quad]


def mirror_x(quad):
    """(x, y) -> (-x, y): a mirror, corners listed backwards to keep the sense."""
    return [(-x, y) for x, y in reversed(quad)]


def magnet(index, p, zc):
    dz = p[1] * CM
    core_in, yoke_in, top_in = face(p[12] * CM, p[2] * CM, p[4] * CM, p[6] * CM, p[8] * CM, p[10] * CM)
    core_out, yoke_out, top_out = face(p[13] * CM, p[3] * CM, p[5] * CM, p[7] * CM, p[9] * CM, p[11] * CM)
    d = (p[8] + p[9]) / (p[2] + p[3])    # yoke dilution
    v = (p[10] + p[11]) / (p[2] + p[3])  # connector dilution
    b = p[14] * d if p[14] < 0 else p[14]
    m = "magnet%d_" % index
    top_l_in, top_l_out = mirror_x(top_in), mirror_x(top_out)
    return [
        arb8(m + "core_r", zc, dz, core_in, core_out, 0, b),
        arb8(m + "core_l", zc, dz, point_reflect(core_in), point_reflect(core_out), 0, b),
        arb8(m + "yoke_r", zc, dz, yoke_in, yoke_out, 0, -b / d),
        arb8(m + "yoke_l", zc, dz, point_reflect(yoke_in), point_reflect(yoke_out), 0, -b / d),
        arb8(m + "top_r", zc, dz, top_in, top_out, b / v, 0),
        arb8(m + "top_l", zc, dz, top_l_in, top_l_out, -b / v, 0),
        arb8(m + "bottom_r", zc, dz, point_reflect(top_l_in), point_reflect(top_l_out), -b / v, 0),
        arb8(m + "bottom_l", zc, dz, point_reflect(top_in), point_reflect(top_out), b / v, 0),
    ]


def cavern():
    out = []
    for s, (z0, z1, t) in enumerate([(WORLD_LO[2], TUNNEL_STEP_Z, TUNNEL_UPSTREAM),
                                      (TUNNEL_STEP_Z, WORLD_HI[2], TUNNEL_DOWNSTREAM)]):
        p = "cavern%d_" % s
        out.append(box(p + "left", WORLD_LO[0], t[0], WORLD_LO[1], WORLD_HI[1], z0, z1))
        out.append(box(p + "right", t[1], WORLD_HI[0], WORLD_LO[1], WORLD_HI[1], z0, z1))
        out.append(box(p + "floor", t[0], t[1], WORLD_LO[1], t[2], z0, z1))
        out.append(box(p + "ceiling", t[0], t[1], t[3], WORLD_HI[1], z0, z1))
    return out


def ship_geometry(parameter_set, world_material="G4_AIR"):
    volumes = []
    z = 0.0  # cm
    for i, p in enumerate(PARAMETER_SETS[parameter_set]):
        z += p[0] + p[1]
        # dZ or dXIn below 1 cm: no magnet; its zgap + dZ still advance Z (the spec's words).
        if p[1] < 1.0 or p[2] < 1.0:
            continue
        volumes += magnet(i, p, z * CM)
        z += p[1]
    volumes += cavern()
    return {
        "description": "SHiP-like muon shield, parameter set %s_baseline (ship-like-muon-shield.md)"
                       % parameter_set,
        "world": {"min": list(WORLD_LO), "max": list(WORLD_HI), "material": world_material},
        "volumes": volumes,
        "sensitive_planes": [{"z": PLANE_Z, "x": list(PLANE_WINDOW[:2]), "y": list(PLANE_WINDOW[2:])}],
    }


def to_text(doc):
    """JSON with one volume per line (readable diffs, compact file)."""
    lines = ["{"]
    for k, v in doc.items():
        if k == "volumes":
            lines.append(' "volumes": [')
            lines.append(",\n".join("  " + json.dumps(x) for x in v))
            lines.append(" ],")
        else:
            lines.append(" %s: %s," % (json.dumps(k), json.dumps(v)))
    lines[-1] = lines[-1].rstrip(",")
    return "\n".join(lines) + "\n}\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--world-material", default="G4_AIR", help="G4_AIR (default) or vacuum")
    parser.add_argument("--out-dir", default=os.path.dirname(os.path.abspath(__file__)))
    args = parser.parse_args()
    for name in PARAMETER_SETS:
        path = os.path.join(args.out_dir, "ship_%s.json" % name)
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(to_text(ship_geometry(name, args.world_material)))
        os.replace(tmp, path)
        print("wrote", path)


if __name__ == "__main__":
    main()

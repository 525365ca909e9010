import json

import pytest

import fastmu

BOX_WORLD = {"min": [-5, -5, -1], "max": [5, 5, 20], "material": "G4_AIR"}


def slab(name, z0, z1, material="G4_Fe", **extra):
    v = {"name": name, "shape": "box", "min": [-5, -5, z0], "max": [5, 5, z1],
         "material": material}
    v.update(extra)
    return v


def test_from_dict_and_from_json_agree(tmp_path):
    doc = {"world": BOX_WORLD,
           "volumes": [slab("a", 0, 2, field=[0, 1.7, 0]), slab("b", 3, 4, "G4_CONCRETE")],
           "sensitive_planes": [{"z": 5, "x": [-1, 1], "y": [-2, 2]},
                                {"z": 10, "x": [-5, 5], "y": [-5, 5]}]}
    path = tmp_path / "g.json"
    path.write_text(json.dumps(doc))
    g1 = fastmu.Geometry.from_dict(doc)
    g2 = fastmu.Geometry.from_json(path)
    for g in (g1, g2):
        assert g.material_names[0] == "G4_AIR"
        assert set(g.material_names) == {"G4_AIR", "G4_Fe", "G4_CONCRETE"}
        assert [v["name"] for v in g.volumes] == ["a", "b"]
        assert g.volumes[0]["field"] == pytest.approx([0, 1.7, 0])
        assert g.sensitive_planes[0] == {"z": 5.0, "x": (-1.0, 1.0), "y": (-2.0, 2.0)}
        assert g.field_map is None
    assert g1.volumes == g2.volumes
    assert str(path) in g2.source


def test_arb8_volume():
    verts = [[-1, -1], [-1, 1], [1, 1], [1, -1], [-2, -2], [-2, 2], [2, 2], [2, -2]]
    g = fastmu.Geometry.from_dict({"world": BOX_WORLD, "volumes": [
        {"name": "trap", "shape": "arb8", "z_center": 5, "dz": 1, "vertices": verts,
         "material": "G4_Fe"}]})
    v = g.volumes[0]
    assert v["shape"] == "arb8" and len(v["vertices"]) == 8
    assert v["min"] == pytest.approx([-2, -2, 4]) and v["max"] == pytest.approx([2, 2, 6])


def test_custom_materials_in_geometry():
    g = fastmu.Geometry.from_dict({
        "world": BOX_WORLD, "volumes": [slab("s", 0, 1, "geo_steel")],
        "materials": {"geo_steel": {"density": 7.9, "composition": {"Fe": 0.7, "Cr": 0.2,
                                                                    "Ni": 0.1}}}})
    assert "geo_steel" in g.material_names
    assert g.material("geo_steel").startswith("geo_steel: 7.9 g/cm3")


def test_overlap_names_both_volumes():
    with pytest.raises(fastmu.Error) as info:
        fastmu.Geometry.from_dict({"world": BOX_WORLD,
                                   "volumes": [slab("first", 0, 2), slab("second", 1, 3)]})
    msg = str(info.value)
    assert "first" in msg and "second" in msg and "\n" not in msg


@pytest.mark.parametrize("doc,needle", [
    ({"volumes": []}, "world"),
    ({"world": dict(BOX_WORLD, material="G4_Nope")}, "G4_Nope"),
    ({"world": BOX_WORLD, "volumes": [dict(slab("s", 0, 1), shape="sphere")]}, "shape"),
])
def test_bad_geometry(doc, needle):
    with pytest.raises(fastmu.Error, match=needle):
        fastmu.Geometry.from_dict(doc)


def test_bad_json_file(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{ not json")
    with pytest.raises(fastmu.Error, match="broken.json"):
        fastmu.Geometry.from_json(path)
    with pytest.raises(fastmu.Error, match="nothere.json"):
        fastmu.Geometry.from_json(tmp_path / "nothere.json")


def test_gdml_round_trip(tmp_path):
    doc = {"world": BOX_WORLD,
           "materials": {"Steel2": {"density": 7.8, "composition": {"Fe": 0.99, "C": 0.01}}},
           "volumes": [slab("a", 0, 2, "Steel2", field=[0, 1.7, 0]),
                       {"name": "w", "shape": "arb8", "z_center": 6, "dz": 1, "material": "G4_Fe",
                        "vertices": [[-1, -1], [1, -1], [1, 1], [-1, 1],
                                     [-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]}],
           "sensitive_planes": [{"z": 10, "x": [-1, 1], "y": [-2, 2]}]}
    g1 = fastmu.Geometry.from_dict(doc)
    path = tmp_path / "g.gdml"
    g1.to_gdml(path)
    assert (tmp_path / "g.gdml.json").exists()
    g2 = fastmu.Geometry.from_gdml(path)
    assert g2.material_names == g1.material_names
    assert g2.world_min == pytest.approx(g1.world_min, abs=1e-12)
    assert g2.world_max == pytest.approx(g1.world_max, abs=1e-12)
    assert g2.sensitive_planes == g1.sensitive_planes
    for a, b in zip(g1.volumes, g2.volumes):
        assert a["name"] == b["name"] and a["material"] == b["material"]
        assert b["field"] == pytest.approx(a["field"])
        assert b["min"] == pytest.approx(a["min"], abs=1e-12)
        assert b["max"] == pytest.approx(a["max"], abs=1e-12)


def test_gdml_error_names_line(tmp_path):
    path = tmp_path / "bad.gdml"
    path.write_text('<?xml version="1.0"?>\n<gdml>\n<solids>\n<sphere name="s"/>\n</solids>\n</gdml>\n')
    with pytest.raises(Exception, match=r"bad.gdml:4: <sphere>: unsupported solid"):
        fastmu.Geometry.from_gdml(path)

import pytest

import fastmu


def test_builtin_names_and_lookup():
    names = fastmu.materials.names()
    for name in ("G4_Fe", "G4_CONCRETE", "G4_W", "G4_Pb", "G4_AIR", "G4_Galactic"):
        assert name in names
    fe = fastmu.materials.find("G4_Fe")
    assert fe["name"] == "G4_Fe"
    assert fe["density"] == pytest.approx(7.874)
    assert fe["mean_excitation_ev"] == pytest.approx(286.0)
    assert fe["composition"] == {"Fe": pytest.approx(1.0)}
    # Tsai radiation length of iron: 13.84 g/cm2 (PDG) -> 1.757 cm.
    assert fe["radiation_length_m"] == pytest.approx(0.01757, rel=5e-3)


def test_vacuum_alias():
    assert fastmu.materials.contains("vacuum")
    assert fastmu.materials.find("vacuum")["density"] < 1e-20


def test_ice_and_sea_water_by_name_and_alias():
    ice, sea = fastmu.materials.find("ice"), fastmu.materials.find("sea_water")
    assert ice["name"] == "Ice" and sea["name"] == "SeaWater"
    assert ice["density"] == pytest.approx(0.918)
    assert sea["density"] == pytest.approx(1.040)
    assert set(ice["composition"]) == {"H", "O"}
    assert sea["composition"]["Cl"] == pytest.approx(0.01935, abs=1e-5)
    # Water's radiation length (36.08 g/cm2) over the density; salts shorten it.
    assert ice["radiation_length_m"] == pytest.approx(0.3608 / 0.918, rel=2e-3)
    assert sea["radiation_length_m"] < 0.3608 / 1.040


def test_composition_of_a_mixture_sums_to_one():
    c = fastmu.materials.find("G4_CONCRETE")["composition"]
    assert sum(c.values()) == pytest.approx(1.0)
    assert {"O", "Si", "Ca"} <= set(c)


def test_unknown_material_raises_fastmu_error():
    with pytest.raises(fastmu.Error, match="G4_Unobtainium") as info:
        fastmu.materials.find("G4_Unobtainium")
    assert isinstance(info.value, ValueError) and isinstance(info.value, RuntimeError)
    assert "\n" not in str(info.value)


def test_add_custom_normalises_and_is_visible():
    m = fastmu.materials.add_custom("py_test_steel", 7.9, {"Fe": 7, "Cr": 2, "Ni": 1})
    assert m["density"] == pytest.approx(7.9)
    assert m["composition"]["Fe"] == pytest.approx(0.7)
    assert sum(m["composition"].values()) == pytest.approx(1.0)
    # I by Bragg additivity lies between those of the components.
    assert 250 < m["mean_excitation_ev"] < 320
    assert "py_test_steel" in fastmu.materials.names()
    assert fastmu.materials.find("py_test_steel")["definition"].startswith("py_test_steel")
    with pytest.raises(fastmu.Error):
        fastmu.materials.add_custom("py_test_steel", 7.9, {"Fe": 1})


@pytest.mark.parametrize("density,composition", [(-1.0, {"Fe": 1}), (7.0, {"Xx": 1}),
                                                 (7.0, {"Fe": -0.5})])
def test_add_custom_rejects_bad_input(density, composition):
    with pytest.raises(fastmu.Error):
        fastmu.materials.add_custom("py_bad_material", density, composition)

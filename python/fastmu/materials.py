"""The material library: Geant4 NIST names (G4_Fe, G4_CONCRETE, ...; 'vacuum'
is G4_Galactic) plus custom materials defined by density and composition.

    fastmu.materials.names()                       # list of names
    fastmu.materials.find("G4_Fe")["density"]      # 7.874 (g/cm3)
    fastmu.materials.add_custom("my_steel", 7.9, {"Fe": 0.7, "Cr": 0.2, "Ni": 0.1})

find() returns a dict: name, density [g/cm3], mean_excitation_ev (I),
composition {symbol: mass fraction}, components [{z, a, mass_fraction}],
radiation_length_m, z_over_a [mol/g], electron_density_per_cm3, definition.
Custom materials live for the process and are visible to build_table,
physics.* and transport.
"""

from ._fastmu import materials as _m

names = _m.names
find = _m.find
contains = _m.contains
add_custom = _m.add_custom

__all__ = ["names", "find", "contains", "add_custom"]

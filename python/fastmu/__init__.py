"""fastmu: GPU-fast muon transport through matter and magnetic fields by
histogram sampling.

Units everywhere: metres, GeV/c, tesla (densities in g/cm3, as in the
geometry JSON).

    import numpy as np, fastmu
    geo = fastmu.Geometry.from_json("geometry.json")
    muons = np.array([[0, 0, 50, 0, 0, 0, 13, 1]], dtype=np.float32)  # px,py,pz,x,y,z,pdg,weight
    out = fastmu.transport(muons, geo, all=True)
    out["pz"], out["status"]

Submodules: fastmu.materials (the material library), fastmu.physics (the
detailed reference engine), fastmu.ship (the SHiP-like shield from its
parameter table), fastmu.examples (the built-in workloads); fastmu.flux()
samples sea-level cosmic muons with weights (docs/cosmic-muons.md);
fastmu.underground() gives the muon flux in a laboratory under rock, water
or ice (docs/underground.md). Bad input
raises fastmu.Error (a ValueError and a RuntimeError) with the same one-line
message as the command line.
"""

from . import _fastmu  # noqa: F401 - the extension, for advanced use
from ._fastmu import (Error, FieldMap, Geometry, Table, __version__, have_cuda, cuda_available)
from . import examples, materials, physics, ship
from ._guards import guard_class as _guard_class, guard_module as _guard_module
from .tables import build_table, load_table, table_cache_dir
from .transport import transport, is_device_array, read_muons, STATUS
from .flux import flux, flux_intensity, flux_rate
from .underground import underground

# Wrong argument types give one fastmu.Error line, not pybind11's dump.
for _cls in (FieldMap, Geometry, Table):
    _guard_class(_cls, _cls.__name__)
_guard_module(materials, "materials")

__all__ = [
    "Error", "FieldMap", "Geometry", "Table", "STATUS",
    "build_table", "load_table", "read_muons", "table_cache_dir", "transport", "is_device_array",
    "flux", "flux_intensity", "flux_rate", "underground",
    "examples", "materials", "physics", "ship", "have_cuda", "cuda_available", "__version__",
]

"""Histogram tables: one material, one step length (the paper's offline phase).

    t = fastmu.build_table("G4_Fe", step=0.02, p_bins=20, samples_per_bin=10000)
    t.info["p_bins"], t.mean_loss          # metadata dict, per-bin arrays
    t.save("fe_2cm.h5")
    t = fastmu.load_table("fe_2cm.h5")
    t.sample(np.full(1000, 10.0))          # (n, 2): -dPz/P and dPt/P per step
"""

from . import _fastmu
from ._checks import TOP_MOMENTUM, MAX_STEP, integer, positive, real, text
from ._checks import path as file_name



def load_table(path, *args, **kwargs):
    return _fastmu.load_table(file_name("path", path), *args, **kwargs)


load_table.__doc__ = _fastmu.load_table.__doc__


def build_table(material, step=0.02, p_min=0.18, p_max=400.0, p_bins=95, binning="log",
                samples_per_bin=1_000_000, hist_bins=100, seed=1, threads=0, charge=-1,
                epsilon=0.08, pilot_muons=2000, pilot_probes=400, progress=False):
    """Builds the tables of `material` for step length `step` [m] with the
    detailed engine: `p_bins` momentum bins from p_min to p_max [GeV/c]
    ('log' | 'uniform' | 'adaptive' binning; adaptive uses epsilon, pilot_muons,
    pilot_probes), `samples_per_bin` muons per bin, `hist_bins` log bins per
    axis. The defaults are those of `fastmu tables build` (95 bins x 1e6
    samples: minutes on many cores); use fewer samples for quick studies.
    Runs on `threads` threads (0: all cores) with the GIL released."""
    return _fastmu._build_table(
        text("material", material), positive("step", step, MAX_STEP),
        positive("p_min", p_min, TOP_MOMENTUM), positive("p_max", p_max, TOP_MOMENTUM),
        integer("p_bins", p_bins), text("binning", binning),
        integer("samples_per_bin", samples_per_bin),
        integer("hist_bins", hist_bins), integer("seed", seed), integer("threads", threads),
        integer("charge", charge), real("epsilon", epsilon, 0.0, 1.0, lo_open=True),
        integer("pilot_muons", pilot_muons),
        integer("pilot_probes", pilot_probes), bool(progress))


def table_cache_dir(dir=None):
    """The folder of the table cache that transport() uses for materials
    without a given table (the command line's: $FASTMU_CACHE, else
    $XDG_CACHE_HOME/fastmu, else ~/.cache/fastmu). Tables it builds use
    $FASTMU_CACHE_SAMPLES samples per bin (default 1e6)."""
    return _fastmu._table_cache_dir(None if dir is None else str(dir))


__all__ = ["build_table", "load_table", "table_cache_dir"]

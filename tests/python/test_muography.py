"""The muography example (examples/muography.py) at a tiny size: it runs,
muons cross the hill, and it writes its PNG."""

import os
import pathlib
import subprocess
import sys


def test_muography_example_runs(tmp_path):
    script = pathlib.Path(__file__).resolve().parents[2] / "examples" / "muography.py"
    out = tmp_path / "muography.png"
    r = subprocess.run([sys.executable, str(script), "--n", "3000", "--samples-per-bin", "100",
                        "--bins", "8", "--backend", "cpu", "--workdir", str(tmp_path),
                        "--out", str(out)],
                       capture_output=True, text=True, env=dict(os.environ), timeout=300)
    assert r.returncode == 0, r.stderr
    assert "reached the detector" in r.stdout and "wrote" in r.stdout
    reached = int(r.stdout.split(" reached the detector")[0].split()[-1])
    assert 0 < reached < 3000  # the hill stops some, not all
    assert (tmp_path / "hill.csv").is_file() and (tmp_path / "hill.json").is_file()
    assert out.stat().st_size > 10000

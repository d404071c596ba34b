"""Write requirements.lock (pip freeze of .venv) and environment.yml from it: `make lock`.

One lock for the whole environment (the science, its notebooks extra and their dependencies): as
pip constraints it pins `pip install -c requirements.lock .` (the science alone) as well as `make setup`.
"""
import subprocess
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[1]
freeze = subprocess.run([sys.executable, "-m", "pip", "freeze", "--exclude-editable"],
                        capture_output=True, text=True, check=True).stdout.splitlines()
pins = sorted((l.replace("+cpu", "") for l in freeze if "==" in l and not l.lower().startswith("pearl")),
              key=str.lower)
(root / "requirements.lock").write_text(
    "# Pinned environment (pip freeze of a working .venv, Python 3.11). Used as pip constraints by the Makefile.\n"
    + "\n".join(pins) + "\n")
body = "\n".join(f"      - {p}" for p in pins)
(root / "environment.yml").write_text(f"""# Conda description of the same pinned environment as requirements.lock (tests/test_setup.py checks they agree).
# Regenerate both with `make lock`. torch==2.13.0 resolves to the CPU build here; on a GPU box
# install the CUDA wheel of the same version first.
name: pearl
channels:
  - conda-forge
dependencies:
  - python=3.11
  - pip
  - pip:
{body}
      - -e .[notebooks]
      - -e lib/harness
""")
print(f"pinned {len(pins)} packages")

"""RELIABILITY.md names, for each promise, the tests that check it: every file and test it names exists."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_file_and_test_reliability_md_names_exists():
    text = (ROOT / "RELIABILITY.md").read_text()
    missing, current = [], None
    for m in re.finditer(r"`((?:tests|perf|lib|results|scripts)/[^`:\s]+)(?:::(\w+))?`|`::(\w+)`", text):
        path, name, continued = m.groups()
        if path and ("*" in path or "<" in path):  # a pattern, not a file
            continue
        if path:
            current = path
            if not (ROOT / path).exists():
                missing.append(path)
                continue
        name = name or continued
        if name and current and current.endswith(".py") and (ROOT / current).is_file():
            if not re.search(rf"^def {name}\(", (ROOT / current).read_text(), re.M):
                missing.append(f"{current}::{name}")
    assert not missing, f"RELIABILITY.md names what does not exist: {missing}"

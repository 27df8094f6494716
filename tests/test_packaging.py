"""The wheel installs the three folders under `kgroup` (no top-level `cli`) with the fixtures inside."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_wheel_layout(tmp_path: Path) -> None:
    # Build from a copy: setuptools writes build/ and *.egg-info next to the sources it builds.
    source = tmp_path / "src"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis"
        ),
    )
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    (wheel,) = tmp_path.glob("kgroup-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops <= {"kgroup", next(n for n in tops if n.endswith(".dist-info"))}
    for expected in (
        "kgroup/cli/app.py",
        "kgroup/assignors/client/range.py",
        "kgroup/inspectors/fixtures/group_file.py",
        "kgroup/fixtures/demo.yaml",
        "kgroup/fixtures/seed-legacy.yaml",
    ):
        assert expected in names
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "kgroup = kgroup.cli.app:main" in zipfile.ZipFile(wheel).read(entry).decode()


def test_every_code_folder_is_a_listed_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    mapping = config["package-dir"]
    found = set()
    for package, folder in mapping.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((package, *relative)))
    assert found == listed


def test_installed_namespace_resolves_to_this_checkout() -> None:
    import kgroup.assignors
    import kgroup.cli

    assert Path(kgroup.cli.__file__).resolve().parent == ROOT / "cli"
    assert Path(kgroup.assignors.__file__).resolve().parent == ROOT / "assignors"

"""scripts/check_kit.py's own checks, before it installs anything: the kit must be this tree's
(its wheel file for file, its notebooks byte for byte), and the packages the kit installs must
be at requirements.txt's pins. (The install and the runs are `make kit-check`'s.)"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"


@pytest.fixture(scope="module")
def check_kit():
    # check_kit imports check_wheel, its neighbour in scripts/, as a script does
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(SCRIPTS))
        spec = importlib.util.spec_from_file_location("check_kit", SCRIPTS / "check_kit.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module


def tracked(folder: str) -> list[str]:
    return subprocess.run(["git", "ls-files", folder], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.split()


def tree_files() -> dict[str, Path]:
    """What a wheel built from this tree holds under queuetune/: name -> the tree's file."""
    files = {Path(p).relative_to("src").as_posix(): ROOT / p for p in tracked("src/queuetune")
             if (ROOT / p).is_file() and not (ROOT / p).is_symlink()}
    for folder in ("data", "results"):
        files |= {f"queuetune/_{folder}/{Path(p).relative_to(folder).as_posix()}": ROOT / p
                  for p in tracked(folder)}
    return files


def write_wheel(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
        archive.writestr("queuetune-0.0.0.dist-info/METADATA", "Name: queuetune\n")
    return path


def make_kit(folder: Path, files: dict[str, bytes]) -> Path:
    (folder / "wheels").mkdir(parents=True)
    write_wheel(folder / "wheels" / "queuetune-0.0.0-py3-none-any.whl", files)
    shutil.copytree(ROOT / "notebooks", folder / "notebooks",
                    ignore=shutil.ignore_patterns("*.md", ".*"))
    return folder


@pytest.fixture(scope="module")
def contents():
    return {name: path.read_bytes() for name, path in tree_files().items()}


def test_a_kit_of_this_tree_passes(check_kit, contents, tmp_path, capsys):
    check_kit.check_of_this_tree(make_kit(tmp_path / "kit", contents))
    assert "the kit is this tree's" in capsys.readouterr().out


def test_a_changed_package_file_is_refused(check_kit, contents, tmp_path):
    name = next(n for n in sorted(contents) if n.startswith("queuetune/_data/"))
    altered = contents | {name: contents[name] + b"\n"}
    with pytest.raises(SystemExit, match="not built from this tree"):
        check_kit.check_of_this_tree(make_kit(tmp_path / "kit", altered))
    wheel = tmp_path / "kit" / "wheels" / "queuetune-0.0.0-py3-none-any.whl"
    assert check_kit.differing_files(wheel) == [name]  # exact: file names


def test_a_missing_module_and_a_file_not_in_the_tree_are_refused(check_kit, contents, tmp_path):
    module = "queuetune/models/__init__.py"
    assert module in contents
    stale = {n: c for n, c in contents.items() if n != module} | {"queuetune/gone.py": b""}
    wheel = write_wheel(tmp_path / "queuetune-0.0.0-py3-none-any.whl", stale)
    assert check_kit.differing_files(wheel) == ["queuetune/gone.py", module]


def test_a_wheel_without_a_data_file_is_refused(check_kit, contents, tmp_path):
    name = next(n for n in sorted(contents) if n.startswith("queuetune/_results/"))
    without = {n: c for n, c in contents.items() if n != name}  # exact: file names
    with pytest.raises(SystemExit, match="lacks 1 files"):
        check_kit.check_of_this_tree(make_kit(tmp_path / "kit", without))


def test_a_changed_notebook_is_refused(check_kit, contents, tmp_path):
    kit = make_kit(tmp_path / "kit", contents)
    notebook = sorted((kit / "notebooks").glob("*.ipynb"))[0]
    notebook.write_bytes(notebook.read_bytes() + b"\n")
    with pytest.raises(SystemExit, match=notebook.name):
        check_kit.check_of_this_tree(kit)
    notebook.unlink()
    with pytest.raises(SystemExit, match=notebook.name):
        check_kit.check_of_this_tree(kit)


def install_report(path: Path, installed: dict[str, str]) -> Path:
    path.write_text(json.dumps({"install": [{"metadata": {"name": n, "version": v}}
                                            for n, v in installed.items()]}), encoding="utf-8")
    return path


def test_only_a_package_off_its_pin_is_named(check_kit, tmp_path):
    pins = check_kit.pins()
    assert pins["jupyterlab"] and pins["pandas"]
    report = install_report(tmp_path / "report.json", {
        "JupyterLab": pins["jupyterlab"],       # pinned, at its pin
        "Pandas": pins["pandas"] + ".1",        # pinned, at another (names compare normalized)
        "not-pinned-anywhere": "1.0",           # not pinned by requirements.txt
    })
    assert check_kit.off_pin(report) == [f"Pandas {pins['pandas']}.1 (pinned {pins['pandas']})"]

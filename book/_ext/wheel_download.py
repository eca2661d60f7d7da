"""The site offers the ``queuetune`` wheel as a download, built from this tree by the book build.

A page links it with the role ``{wheel}`text` ``: a link to ``downloads/<wheel>`` at the root of
the site, where ``<wheel>`` is ``queuetune-<version>-py3-none-any.whl`` for the version in
``src/queuetune/__init__.py``. When an HTML build ends without error, the extension builds that
wheel (``pip wheel --no-deps --no-build-isolation``, with the build environment's setuptools and
no download) and copies it there, so the link and the file always agree; a build that cannot
make the wheel fails.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from docutils import nodes

ROOT = Path(__file__).resolve().parents[2]
FOLDER = "downloads"


def package_version() -> str:
    """``queuetune.__version__`` as the package's ``__init__.py`` sets it (setuptools reads the
    same attribute), without importing the package."""
    text = (ROOT / "src" / "queuetune" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"$', text, re.MULTILINE)
    if not match:
        raise RuntimeError("src/queuetune/__init__.py sets no __version__")
    return match.group(1)


def wheel_name() -> str:
    return f"queuetune-{package_version()}-py3-none-any.whl"


def wheel_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{wheel}`text```: a link to the wheel the build puts under ``downloads/``."""
    docname = inliner.document.settings.env.docname
    uri = "../" * docname.count("/") + f"{FOLDER}/{wheel_name()}"
    node = nodes.reference(rawtext, text or wheel_name(), refuri=uri,
                           classes=["wheel-download"])
    return [node], []


def build_wheel(target: Path) -> Path:
    """Build the wheel of this tree into ``target`` and return its path."""
    with tempfile.TemporaryDirectory(prefix="queuetune-site-wheel-") as tmp:
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                        "--no-build-isolation", "--disable-pip-version-check",
                        "--wheel-dir", tmp, str(ROOT)], check=True)
        built = Path(tmp) / wheel_name()
        if not built.is_file():
            found = sorted(p.name for p in Path(tmp).glob("*.whl"))
            raise RuntimeError(f"pip built {found}, not {built.name}")
        target.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copy2(built, target / built.name))


def copy_wheel(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        build_wheel(Path(app.outdir) / FOLDER)


def setup(app):
    app.add_role("wheel", wheel_role)
    app.connect("build-finished", copy_wheel)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

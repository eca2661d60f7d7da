"""The launch buttons: off in the committed book, one set of keys away in a published copy.

The committed _config.yml leaves ``repository.url`` and every launch service empty, so the site
links to no notebook service. A published copy sets ``repository.url`` (and ``branch``) and one
or more of ``launch_buttons.binderhub_url``, ``jupyterhub_url`` and ``colab_url`` (README,
"Running the notebooks"). Jupyter Book hands those keys to the theme; a value set again under
``sphinx.config.html_theme_options`` would silently override them (an empty
``repository_url`` there makes the theme's launch-button code fail the build).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from jupyter_book.config import get_final_config

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "_config.yml"
SERVICES = ("binderhub_url", "jupyterhub_url", "colab_url")
PUBLISHED = {"url": "https://github.com/example-org/queuetune", "branch": "main"}


def committed() -> dict:
    return yaml.safe_load(CONFIG.read_text(encoding="utf-8"))


def theme_options(config: dict) -> dict:
    final, _ = get_final_config(user_yaml=config, cli_config={"latex_individualpages": False},
                                sourcedir=ROOT, raise_on_invalid=True)
    return final["html_theme_options"]


def test_committed_book_links_to_no_notebook_service():
    config = committed()
    assert config["repository"]["url"] == ""
    for key in SERVICES:
        assert config["launch_buttons"][key] == "", key
    assert config["launch_buttons"]["thebe"] is False  # thebe would load its code from a CDN


def test_theme_options_do_not_override_the_repository_and_launch_keys():
    options = committed()["sphinx"]["config"].get("html_theme_options", {})
    for key in ("repository_url", "repository_branch", "path_to_docs", "launch_buttons"):
        assert key not in options, f"html_theme_options.{key} would override _config.yml keys"


@pytest.mark.parametrize("service,url", [("binderhub_url", "https://mybinder.org"),
                                         ("jupyterhub_url", "https://hub.example.org"),
                                         ("colab_url", "https://colab.research.google.com")])
def test_setting_the_documented_keys_reaches_the_theme(service, url):
    config = committed()
    config["repository"].update(PUBLISHED)
    config["launch_buttons"][service] = url
    options = theme_options(config)
    assert options["repository_url"] == PUBLISHED["url"]
    assert options["repository_branch"] == PUBLISHED["branch"]
    assert options["launch_buttons"][service] == url
    assert options["launch_buttons"]["notebook_interface"] == "jupyterlab"

# queuetune: two commands do everything (see README.md).
#   make book  - set up the environment, build the offline site into _build/html
#   make test  - set up the environment, run every check (lint, unit, notebooks, book, browser)
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := book

VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
NODE_STAMP := node_modules/.installed-stamp
ASSETS := book/_static/vendor/.stamp
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: check-code-paths
.PHONY: book test setup test-setup system-packages assets peers chromium tomcat \
        database octave lint unit unit-parallel unit-lab wheel-checks notebooks-check nbval \
        build-book site-tests kit kit-check execute-notebooks lab measure validate benchmark clean

## Environment ------------------------------------------------------------
$(STAMP): requirements.txt pyproject.toml
	@test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt -e .
	@touch $@

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# vega + vega-lite + vega-embed, generated from the installed packages (the mathjax npm package
# is run by the build itself: it writes the formulas as MathML, see book/_ext/mathml_math.py)
$(ASSETS): $(STAMP) scripts/build_assets.py
	$(PY) scripts/build_assets.py

setup: $(STAMP) $(NODE_STAMP) $(ASSETS)

# The peer solvers the tests compare with (tests/helpers/peers.py). LINE (line-solver, pure
# Python; its JMT backend, which needs Java, stays out) is pinned in requirements-peers.txt and
# installed without its declared dependencies: it declares pandas<3 beside the book's pandas 3,
# and matplotlib, networkx, mcp and websockets for plots and its AI server, none of which its
# solvers that the tests call import; its peer tests show that they run on this environment.
PEER_STAMP := $(VENV)/.peers-stamp
$(PEER_STAMP): requirements-peers.txt $(STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-peers.txt
	$(PY) -c "import line_solver"
	@touch $@

peers: $(PEER_STAMP)

assets: setup

chromium:
	@command -v chromium >/dev/null || { $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }
	@command -v chromium

# The lab's server and packet capture: Debian's Tomcat 10 and a Java runtime (no service is
# started: the lab runs Tomcat itself), and tcpdump.
tomcat:
	@{ test -x /usr/share/tomcat10/bin/catalina.sh && command -v java && command -v tcpdump; } \
	  >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	  $(SUDO) apt-get install -y -qq tomcat10 openjdk-17-jre-headless tcpdump >/dev/null; }
	@/usr/share/tomcat10/bin/version.sh 2>/dev/null | grep "Server version"

# The lab's database experiment: Debian's PostgreSQL 15 (no cluster or service is used: the lab
# makes a throwaway cluster itself), HikariCP and the PostgreSQL JDBC driver (HikariCP needs
# slf4j-api at run time: libhikaricp-java depends on libslf4j-java, which gives it).
database:
	@{ test -x /usr/lib/postgresql/15/bin/initdb && test -f /usr/share/java/HikariCP.jar \
	  && test -f /usr/share/java/postgresql.jar && test -f /usr/share/java/slf4j-api.jar; } \
	  >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	  $(SUDO) apt-get install -y -qq postgresql libhikaricp-java libpostgresql-jdbc-java \
	  libslf4j-java >/dev/null; }
	@/usr/lib/postgresql/15/bin/postgres --version

# Octave and its queueing package (Debian's octave-queueing), a peer of the models
# (tests/models/test_octave_peer.py): 72 MB of packages, about 250 MB installed, without the
# recommended ones (documentation, the GUI).
octave:
	@{ command -v octave-cli && test -d /usr/share/octave/packages/queueing-*; } >/dev/null \
	  2>&1 || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get \
	  install -y -qq --no-install-recommends octave-queueing >/dev/null; }
	@octave-cli --version | head -1

# Debian's packages above, checked (and installed if missing) one after another even under a
# parallel make: apt holds a lock, so two apt-get runs at once would fail.
ifdef SERIAL
.NOTPARALLEL:
endif
system-packages:
	+@$(MAKE) --no-print-directory SERIAL=1 chromium tomcat database octave

## The book ---------------------------------------------------------------
build-book: setup
	rm -rf _build/html _build/.doctrees
	$(VENV)/bin/jupyter-book build . --warningiserror --nitpick --keep-going
	@echo
	@echo "Built the site into _build/html. To view it:"
	@echo "  $(PY) -m http.server --bind 127.0.0.1 --directory _build/html 8000   # then open http://127.0.0.1:8000"
	@echo "  or open _build/html/index.html directly in a browser (works from file:// too)"

book: build-book

## Tests ------------------------------------------------------------------
lint: setup
	$(VENV)/bin/ruff check src tests scripts notebooks book/_ext

# Unit, property and data tests, the chapter checks, and every docstring example of src/ (run
# once, from src/), in two parts: everything but the lab's tests, spread over the cores by
# pytest-xdist (XDIST, e.g. XDIST="-n 4"; XDIST= runs them in one process; whole files to a
# worker, so that a module's fixtures are computed once), then the lab's tests (marked `lab`,
# all under tests/lab: tests/conftest.py refuses one elsewhere) in one process: each starts a
# real Tomcat pinned to a core and checks that the core is not busy, so they run one at a time
# with nothing else beside them. A missing peer solver fails its tests here instead of skipping
# them (QUEUETUNE_PEERS=required).
XDIST ?= -n 2 --dist loadfile
PEERS_REQUIRED := QUEUETUNE_PEERS=required
unit: unit-parallel unit-lab

unit-parallel: setup peers octave
	$(PEERS_REQUIRED) $(PY) -m pytest -q $(XDIST) -m "not browser and not lab" --ignore=tests/site

unit-lab: setup tomcat database
	$(PY) -m pytest -q -m lab tests/lab

notebooks-check: setup
	$(PY) -m pytest -q tests/book/test_notebooks_stored.py

# Strict nbval over every notebook, run where a reader runs a downloaded one: the wheel built
# from this tree, installed from the package index in a fresh virtual environment outside the
# repository. A quick check of the wheel alone: `make test` runs the same strict nbval in the
# environment that kit-check installs from the offline kit (below), not this one too.
nbval: setup
	$(PY) scripts/check_wheel.py

# The site's tests wait on the browser more than they compute: workers (each with its own
# Chromium and server of the built site) overlap those waits. On this 2-core machine three took
# 155 s, two 197 s (the cores 91 % and about 70 % busy), four 177 s.
SITE_XDIST ?= -n 3 --dist load
site-tests: chromium
	$(PY) -m pytest -q $(SITE_XDIST) tests/site

# The numerical tests and two chapters' strict nbval again with OpenBLAS's kernels of other
# processor families and NumPy's dispatch limited to its baseline (CONTRIBUTING.md, "Numbers
# are portable"); CODE_PATHS="nehalem-baseline" (or --tests, --nbval) for a part.
check-code-paths: setup
	$(PY) scripts/check_code_paths.py $(CODE_PATHS)

## The offline kit --------------------------------------------------------
# One folder for a USB stick (_build/kit): the site, the notebooks and every wheel that runs them
# on this platform, with the instructions for the student (README.txt there; see README.md).
# KIT_ARGS="--python 3.12 --python 3.13" adds the wheels of those Pythons (see book/workshop.md).
kit: build-book
	$(PY) scripts/build_kit.py $(KIT_ARGS)

# The kit checked to be this tree's (its wheel, built from this tree, with all of data/ and
# results/; its notebooks), installed in a fresh virtual environment outside the repository
# with the package index disabled, a chapter run there with its charts drawn live, then, with
# pytest and nbval added, strict nbval over every notebook in that environment.
kit-check: kit
	$(PY) scripts/check_kit.py

# The checks of the wheel built from this tree: the book, the offline kit and its check (strict
# nbval over every notebook in the kit's environment included).
wheel-checks: kit-check

# The setup of `make test`, two jobs at a time (each part's output printed when it ends): pip's
# install beside npm's and Debian's packages (these one after another), then the assets beside
# the peers, then the lint. One make builds every stamp, so no two pip runs share .venv at once.
test-setup: setup peers system-packages lint

# Everything, as CI runs it, stopping at the first failure. The setup (above), then three
# phases on 2 cores:
#  1. the unit tests (xdist, 2 workers) beside the wheel's checks (book, kit, the kit's check
#     with strict nbval): no timing-sensitive test runs in this phase; each part's output is
#     printed when it ends;
#  2. the lab's tests alone (a real Tomcat on core 1, Locust on core 0, busy-core checks);
#  3. the site's tests alone (Chromium against the built book: waits and timeouts).
test:
	$(MAKE) --no-print-directory -j2 --output-sync=target test-setup
	$(MAKE) --no-print-directory -j2 --output-sync=target unit-parallel wheel-checks
	$(MAKE) --no-print-directory unit-lab
	$(MAKE) --no-print-directory site-tests
	@echo "All checks passed."

## Maintenance ------------------------------------------------------------
# Re-run every chapter (notebooks/<name>.md) top to bottom and store notebooks/<name>.ipynb with
# its outputs (after changing a chapter, code or data). An unchanged tree stays unchanged.
execute-notebooks: setup
	$(PY) scripts/execute_notebooks.py

# JupyterLab in the project's environment; charts render offline in live kernels.
lab: setup
	QUEUETUNE_LIVE=1 $(VENV)/bin/jupyter lab notebooks

# The lab: re-measure the Imre et al. experiment on Tomcat (about 85 min for the default
# campaign, `python -m queuetune.lab plan` prints it; writes a new data set under data/lab/,
# whose status says whether every run passed the runner's checks). CAMPAIGN=smoke for a short
# check, CAMPAIGN=path/to/file.toml for any experiment's campaign, LAB_ARGS for more (see:
# .venv/bin/python -m queuetune.lab run --help).
CAMPAIGN ?= imre
measure: setup tomcat database
	$(PY) -m queuetune.lab run $(CAMPAIGN) --out data/lab $(LAB_ARGS)

# Model validation against discrete-event simulation (minutes; writes results/validation_models.*)
validate: setup
	$(PY) scripts/validate_models.py

# Speed of the analytic models, the sizing and the calculator page (writes
# results/benchmark_models.*, benchmark_sizing.*, benchmark_calculator.*)
benchmark: setup chromium
	$(PY) scripts/benchmark_models.py
	$(PY) scripts/benchmark_sizing.py
	@test -f _build/html/index.html || $(MAKE) --no-print-directory build-book
	$(PY) scripts/benchmark_calculator.py
	$(PY) scripts/readme_numbers.py

# Printable PDF of every chapter, charts drawn offline by Debian's chromium (_build/handout/).
# HANDOUT_ARGS="--solutions" adds the solutions, "--hide-code" leaves out the code cells.
.PHONY: handout
handout: build-book chromium
	$(PY) scripts/build_handout.py $(HANDOUT_ARGS)

clean:
	rm -rf _build book/_static/vendor node_modules

# Lorebase: the commands the README uses. `make help` lists them.
SHELL := /bin/bash
export UV_SYSTEM_CERTS := 1
# Compiled modules are kept (__pycache__): these machines set PYTHONDONTWRITEBYTECODE, and then
# every Python process of the tests (xdist workers, CLI and Keeper subprocesses) compiled its
# imports from source again, about 1 s each (docs/testing.md).
unexport PYTHONDONTWRITEBYTECODE
UV ?= uv
RUN := $(UV) run --frozen

.PHONY: help install test-deps web web-test demo test test-counts lint unasync typecheck imports pytest bench security format

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

install: ## create the environment (.venv) with every package and tool
	@command -v $(UV) >/dev/null || python3 -m pip install --quiet uv==0.13.8
	$(UV) sync --frozen

# The tests' Node packages: the OpenID Connect provider the OIDC tests sign in at (tests/oidc).
# `npm ci` runs only when the lock file is newer than what is installed.
test-deps:
	@[ tests/oidc/node_modules/.package-lock.json -nt tests/oidc/package-lock.json ] || npm ci --prefix tests/oidc --no-audit --no-fund

# The web app (web/, docs/web.md): its Node packages (`npm ci`, when the lock file is newer than
# what is installed) and its build in web/dist, remade only when a source file changed. Keeper
# serves that build at / (keeper.web.dist).
WEB_SOURCES := $(shell find web/src web/index.html web/vite.config.ts web/tsconfig.json web/package.json -type f 2>/dev/null)

web/node_modules/.package-lock.json: web/package-lock.json
	npm ci --prefix web --no-audit --no-fund

web/dist/index.html: web/node_modules/.package-lock.json $(WEB_SOURCES)
	npm run --prefix web build

web: web/dist/index.html ## build the web app (web/dist) when a source changed

web-test: web/node_modules/.package-lock.json ## the web app's component tests (vitest)
	npm test --prefix web

# The demo's Keeper records the agent trace of the requests that opt in (Herald and the example
# agent do; docs/trace.md) and runs Scribe's jobs in its process (docs/scribe.md). Guide starts
# beside it when the chat model of inference.llm answers (docs/guide.md), and stops with it.
demo: install web ## import the supply example, give it an agent, a reviewer and an admin, start Keeper, Scribe and (with a model) Guide
	$(RUN) lorebase import examples/supply --create-only
	$(RUN) lorebase log supply
	LOREBASE__GUIDE__HTTP__ALLOWED_ORIGINS='["http://127.0.0.1:8080"]' \
	$(RUN) lorebase-guide serve --when-model & guide=$$!; \
	trap 'kill $$guide 2>/dev/null' EXIT; \
	LOREBASE__KEEPER__TRACE__ENABLED=true LOREBASE__KEEPER__WEB__DIST=web/dist \
	LOREBASE__KEEPER__WEB__GUIDE_URL=http://127.0.0.1:8091 $(RUN) lorebase demo --scribe

lint: web/node_modules/.package-lock.json ## ruff check and format check; the web app's ESLint and Prettier check
	$(RUN) ruff check .
	$(RUN) ruff format --check .
	$(RUN) python scripts/unasync.py --check
	npm run lint --prefix web

# The sync client (packages/client/src/lorebase_client/_sync) is written from the async one
# (_async) by scripts/unasync.py; `make lint` checks the two are in step (docs/client.md).
unasync: ## write the sync client from the async one (lorebase_client/_async -> _sync)
	$(RUN) python scripts/unasync.py

imports: ## the import contracts of .importlinter (which package may import which)
	$(RUN) lint-imports

typecheck: ## mypy strict on the packages
	$(RUN) mypy

# pytest-xdist on every core (`--dist loadgroup`: the model tests and the browser tests each keep to
# one worker; tests/suite/workers.py), the 25 slowest tests printed at the end and every time
# in test-results/pytest.xml (scripts/test-breakdown.py sums it per package; docs/testing.md).
# The tests' files in memory when /dev/shm has 2 GiB free: SQLite copies and logs are written
# by every test (a test that passed leaves nothing behind: tmp_path_retention_policy).
PYTEST_WORKERS ?= auto
PYTEST_BASETEMP ?= $(shell [ -w /dev/shm ] && df -Pk /dev/shm | awk -v d=/dev/shm/lorebase-pytest-$$(id -u) 'NR == 2 && $$4 >= 2097152 { print d }')
pytest: ## every test (PostgreSQL ones need LOREBASE_TEST_POSTGRES_DSN)
	$(RUN) pytest -q -n $(PYTEST_WORKERS) --dist loadgroup --durations=25 --junitxml=test-results/pytest.xml $(if $(PYTEST_BASETEMP),--basetemp=$(PYTEST_BASETEMP))

test-counts: ## record how many tests a whole run collects (tests/suite/collection-counts.json)
	$(RUN) pytest -q --collect-only --record-collection-counts >/dev/null
	@cat tests/suite/collection-counts.json

test: install test-deps web web-test lint imports typecheck pytest ## everything CI runs: lint, import contracts, types, the web app's build and tests, pytest (its browser tests included)

bench: install ## benchmarks (bench/README.md): the store, Keeper's reads, context packs and search, writes, the agent trace, Herald, an agent's reads, the event stream, Guide's plumbing (its real-model run: bench/guide/run.py), the web app in Chromium
	$(RUN) python bench/store/run.py
	$(RUN) python bench/reads/run.py
	$(RUN) python bench/context/run.py
	$(RUN) python bench/writes/run.py
	$(RUN) python bench/trace/run.py
	$(RUN) python bench/herald/run.py
	$(RUN) python bench/agent_reads/run.py
	$(RUN) python bench/feed/run.py
	$(RUN) python bench/feed/webhooks.py
	$(RUN) python bench/guide/run.py --scripted
	$(RUN) python bench/web/run.py

security: install test-deps ## schemathesis against a live Keeper, per role (docs/security.md; LOREBASE_SECURITY_BUDGET_S)
	$(RUN) python scripts/security.py

format: web/node_modules/.package-lock.json ## rewrite the code in the house format (the web app's with Prettier and ESLint --fix)
	$(RUN) ruff format .
	$(RUN) ruff check --fix .
	npm run format --prefix web

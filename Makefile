# Two commands on a fresh machine: `make run` (the demo table) and `make test` (everything).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck pytest setup system-deps clean bench rules-coverage model quantize

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(BIN)/tableside run

# Debian packages the browser and PostgreSQL tests use (and a Japanese font for the screenshots);
# skipped quietly where apt is not ours to use.
system-deps:
	@if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  need=""; \
	  command -v chromium >/dev/null 2>&1 || need="$$need chromium"; \
	  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need="$$need postgresql"; \
	  ls /usr/share/fonts/opentype/ipafont-gothic >/dev/null 2>&1 || need="$$need fonts-ipafont-gothic"; \
	  if [ -n "$$need" ]; then \
	    echo "installing Debian packages:$$need"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$need >/dev/null) \
	      || echo "could not install$$need; those tests will skip"; \
	  fi; \
	fi

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy --strict engine vision calibration hardware web tableside

# One worker per core, a test file per worker (module fixtures such as the browser start once): on this
# project's 2-core machine the suite takes 10 minutes instead of 15. `pytest` alone still runs serially.
pytest: $(STAMP)
	$(BIN)/python -m pytest -q -n auto --dist loadfile

test: $(STAMP) system-deps lint typecheck pytest

# Every M.* rule ID of ../shared/RULES.md with the code and the tests that cite it.
rules-coverage: $(STAMP)
	$(BIN)/python -m tests.test_rules_coverage

bench: $(STAMP)
	$(BIN)/python bench/vision.py

# The dice net's models (vision/models/): PyTorch in its own venv, CPU only; not needed to run or test.
# `make model` trains them and then makes their 8-bit twins (training/quantize.py).
TRAIN_VENV := .venv-train
$(TRAIN_VENV)/.installed:
	test -x $(TRAIN_VENV)/bin/python || $(PYTHON) -m venv $(TRAIN_VENV)
	$(TRAIN_VENV)/bin/python -m pip install -q --upgrade pip
	$(TRAIN_VENV)/bin/python -m pip install -q torch==2.13.0 onnx onnxscript -e .
	touch $@

model: $(TRAIN_VENV)/.installed
	$(TRAIN_VENV)/bin/python -m training.train
	$(TRAIN_VENV)/bin/python -m training.quantize

# Only the 8-bit twins of the models in vision/models (what ONNX Runtime runs), from the float models there.
quantize: $(TRAIN_VENV)/.installed
	$(TRAIN_VENV)/bin/python -m training.quantize

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

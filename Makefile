# The README's two commands: `make demo` (main job on the bundled samples) and `make test`.
PYTHON ?= python3.11
VENV ?= .venv
VENV_TRAIN ?= .venv-train
PY := $(VENV)/bin/python
OUT ?= out/demo
WORKERS ?= 2

.PHONY: setup system venv cdn train-env demo demo-cli prefect-up prefect-down test bench clean

setup: system venv cdn

system:
	PYTHON=$(PYTHON) bash scripts/install-system.sh

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

cdn: venv
	$(PY) -m webmend.cdn.install

# The training environment beside .venv (docs/training.md): torch (CPU here), LlamaFactory, DeepSpeed.
train-env: $(VENV_TRAIN)/.installed

$(VENV_TRAIN)/.installed: requirements/train.txt scripts/install-train.sh
	PYTHON=$(PYTHON) bash scripts/install-train.sh $(VENV_TRAIN)
	touch $@

# The main job on embedded defaults (docs/flows.md): local Prefect server + process worker,
# deploy prefect.yaml, run build-refined-pool/default on the samples, print a DuckDB summary.
demo: setup train-env
	VENV=$(VENV) scripts/prefect-local.sh demo

# The same evaluation without Prefect: results.jsonl + summary.json in $(OUT).
demo-cli: setup
	$(VENV)/bin/webmend evaluate data/samples/pages --responses data/samples/responses.jsonl \
		--tests data/samples/items.jsonl --out $(OUT) --workers $(WORKERS)

prefect-up: venv
	VENV=$(VENV) scripts/prefect-local.sh up

prefect-down:
	VENV=$(VENV) scripts/prefect-local.sh down

# Two runs, one per environment: the pipeline's suite, then the torch tests of the training
# environment (tests/training/trainenv; the first run leaves them out, tests/conftest.py).
test: setup train-env
	$(PY) -m pytest -q -p no:cacheprovider
	OMP_NUM_THREADS=1 $(VENV_TRAIN)/bin/python -m pytest -q -p no:cacheprovider --noconftest tests/training/trainenv

bench: setup
	$(PY) bench/evaluator_throughput.py --quick

clean:
	rm -rf out

# The README's two commands: `make demo` (main job on the bundled samples) and `make test`.
PYTHON ?= python3.11
VENV ?= .venv
PY := $(VENV)/bin/python
OUT ?= out/demo
WORKERS ?= 2

.PHONY: setup system venv cdn demo test bench clean

setup: system venv cdn

system:
	bash scripts/install-system.sh

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

cdn: venv
	$(PY) -m webmend.cdn.install

demo: setup
	$(VENV)/bin/webmend evaluate data/samples/pages --responses data/samples/responses.jsonl \
		--tests data/samples/items.jsonl --out $(OUT) --workers $(WORKERS)

test: setup
	$(PY) -m pytest -q -p no:cacheprovider

bench: setup
	$(PY) bench/evaluator_throughput.py --quick

clean:
	rm -rf out

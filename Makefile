# streamlearn — developer and reproduction targets.
# Everything runs inside .venv, created on first use.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# Real datasets: ../shared/datasets when it exists (override with STREAMLEARN_DATA=...;
# the tests read the same folder unless STREAMLEARN_TEST_DATA says otherwise, and skip
# the datasets it lacks). Exported only when set: an empty STREAMLEARN_TEST_DATA made a
# test module read the current directory as the data folder (its tests failed).
SHARED := $(wildcard ../shared/datasets)
ifneq ($(SHARED),)
export STREAMLEARN_DATA ?= $(SHARED)
endif
ifneq ($(STREAMLEARN_DATA),)
export STREAMLEARN_TEST_DATA ?= $(STREAMLEARN_DATA)
endif
export MPLBACKEND := Agg
JOBS ?= 2

.PHONY: install quickstart test test-all lint smoke bench reproduce-online-bls clean

$(BIN)/streamlearn: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

install: $(BIN)/streamlearn

quickstart: install
	$(BIN)/streamlearn run configs/quickstart.yaml

# MOA baselines (the `moa` extra, CapyMOA): in their own environment, because CapyMOA pins
# pandas < 3; skipped, with the reason, where no Java runtime is found.
MOA_VENV ?= .venv-moa
.PHONY: install-moa test-moa quickstart-moa example-my-learner example-river example-capymoa
$(MOA_VENV)/bin/streamlearn: pyproject.toml
	$(PYTHON) -m venv $(MOA_VENV)
	$(MOA_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(MOA_VENV)/bin/python -m pip install --quiet -e '.[dev,moa]'
	touch $@

install-moa: $(MOA_VENV)/bin/streamlearn

test-moa:
	@if ! command -v java >/dev/null 2>&1 && [ ! -x "$${JAVA_HOME:-/nonexistent}/bin/java" ]; then \
	  echo "test-moa: SKIPPED: no Java runtime (java on PATH or JAVA_HOME); see README, MOA baselines"; \
	  exit 0; fi; \
	$(MAKE) --no-print-directory install-moa && \
	$(MOA_VENV)/bin/python -m pytest -q tests/algorithms/external/test_moa_baselines.py tests/algorithms/external/test_moa_regressors.py tests/checks/test_conformance.py -k moa && \
	$(MOA_VENV)/bin/python -m pytest -q tests/interop/test_capymoa.py

quickstart-moa: install-moa
	$(MOA_VENV)/bin/streamlearn run configs/quickstart.yaml --out results/quickstart_moa

# The Dask backend (`streamlearn run --backend dask`): the `dask` extra, then its tests on a
# real LocalCluster (2 worker processes on 127.0.0.1). `make install` stays `.[dev]`.
.PHONY: test-dask
test-dask: install
	$(BIN)/python -m pip install --quiet -e '.[dev,dask]'
	$(BIN)/python -m pytest -q tests/evaluation/test_dask_backend.py \
	  tests/evaluation/test_method_runs.py::test_dask_backend_gives_the_fold_records_of_jobs_1

# The example of README "Your own learner": runs from its own directory, no package change.
example-my-learner: install
	cd examples/my_learner && ../../$(BIN)/streamlearn run config.yaml --quiet

# README "Use the learners in River or CapyMOA": Online-BLS in a River pipeline under
# River's progressive validation (River is a core dependency: .venv), and beside MOA's ARF
# in CapyMOA's evaluation (the moa extra: .venv-moa; SKIPPED, with the reason, without Java).
example-river: install
	$(BIN)/python examples/river_pipeline.py

example-capymoa:
	@if ! command -v java >/dev/null 2>&1 && [ ! -x "$${JAVA_HOME:-/nonexistent}/bin/java" ]; then \
	  echo "example-capymoa: SKIPPED: no Java runtime (java on PATH or JAVA_HOME); see README, MOA baselines"; \
	  exit 0; fi; \
	$(MAKE) --no-print-directory install-moa && \
	$(MOA_VENV)/bin/python examples/capymoa_side_by_side.py

# pytest-xdist: one test process per core (TEST_WORKERS=0 runs them in this process).
TEST_WORKERS ?= auto
test: install
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS)

test-all: install
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) -m ''

# The float-path tests (marker `floatpath`: two floating-point paths compared, e.g. fused
# chunk vs per-sample loop, kernel vs NumPy reference, --jobs 1 vs 2) under each OpenBLAS
# kernel in BLAS_KERNELS that this CPU can execute. OpenBLAS takes a forced
# OPENBLAS_CORETYPE without checking the CPU (SkylakeX on a CPU without AVX-512 dies of an
# illegal instruction), so a kernel runs only when /proc/cpuinfo lists the instructions it
# needs, and only when NumPy's OpenBLAS reports that kernel in use; the others are listed
# as skipped. Without any (another BLAS, another architecture) the default kernel runs.
# SKIP_DEFAULT_KERNEL=1 (CI, right after make test): the kernel this CPU picks by itself is
# not forced again, since make test has just run every float-path test under it, unless
# make test compiled 512-bit vectors here (Intel from Sapphire Rapids on,
# streamlearn/kernels/_jit_target.py): then that pass runs, with Numba's 256-bit code for
# the kernel's CPU (skylake-avx512, as on Skylake-SP to Ice Lake). Like make
# test, it leaves out the `slow` and `paper` ones (FLOATPATH_MARK; `make test-blas-kernels
# FLOATPATH_MARK=floatpath` runs them all).
# Each run also has Numba compile for that kernel's CPU (NUMBA_CPU_NAME, the third field,
# with that CPU's own features), so the JIT kernels' vector width and fused multiply-adds
# are those of an AVX2 or an AVX-without-FMA machine too, not only this one's: the
# float-path tests must hold for every CPU's code, and a test that paired two different
# helpers held on AVX-512 and AVX2 but not on AVX without FMA (30 Nov).
FLOATPATH_MARK ?= floatpath and not slow and not paper
BLAS_KERNELS ?= Haswell:avx2,fma:haswell Sandybridge:avx:sandybridge SkylakeX:avx512f,avx512cd,avx512bw,avx512dq,avx512vl:skylake-avx512
.PHONY: test-blas-kernels
test-blas-kernels: install
	@files=$$(grep -rl --include='test_*.py' 'floatpath' tests); \
	flags=" $$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "; ran=""; \
	default=$$($(BIN)/python -c "import numpy; from threadpoolctl import threadpool_info; print(' '.join(str(i.get('architecture')) for i in threadpool_info() if i.get('internal_api') == 'openblas'))"); \
	wide=$$($(BIN)/python -c "from streamlearn.kernels._jit_target import in_force; print(int(in_force()))"); \
	for spec in $(BLAS_KERNELS); do \
	  core=$${spec%%:*}; jit=$${spec##*:}; need=$${spec#*:}; need=$${need%:*}; missing=""; \
	  for f in $$(echo "$$need" | tr , ' '); do \
	    case "$$flags" in *" $$f "*) ;; *) missing="$$missing $$f";; esac; done; \
	  if [ -n "$$missing" ]; then \
	    echo "test-blas-kernels: $$core skipped: this CPU lacks$$missing"; continue; fi; \
	  got=$$(OPENBLAS_CORETYPE=$$core $(BIN)/python -c "import numpy; from threadpoolctl import threadpool_info; print(' '.join(str(i.get('architecture')) for i in threadpool_info() if i.get('internal_api') == 'openblas'))"); \
	  case " $$got " in *" $$core "*) ;; *) \
	    echo "test-blas-kernels: $$core skipped: OPENBLAS_CORETYPE=$$core gives '$$got'"; continue;; esac; \
	  if [ -n "$(SKIP_DEFAULT_KERNEL)" ] && [ "$$core" = "$$default" ] && [ "$$wide" = 1 ]; then \
	    echo "test-blas-kernels: $$core runs although it is this CPU's default kernel: make test compiled 512-bit vectors here (streamlearn/kernels/_jit_target.py), this pass compiles $$jit's"; \
	  elif [ -n "$(SKIP_DEFAULT_KERNEL)" ] && [ "$$core" = "$$default" ]; then \
	    echo "test-blas-kernels: $$core skipped: it is this CPU's default kernel, which make test ran"; \
	    ran="$$ran $$core(make test)"; continue; fi; \
	  echo "== test-blas-kernels: OPENBLAS_CORETYPE=$$core NUMBA_CPU_NAME=$$jit"; \
	  OPENBLAS_CORETYPE=$$core NUMBA_CPU_NAME=$$jit NUMBA_CPU_FEATURES= \
	    $(BIN)/python -m pytest -q -m '$(FLOATPATH_MARK)' $$files || exit $$?; \
	  ran="$$ran $$core"; \
	done; \
	if [ -z "$$ran" ]; then \
	  echo "== test-blas-kernels: no OpenBLAS kernel could be forced here; the default BLAS"; \
	  $(BIN)/python -m pytest -q -m '$(FLOATPATH_MARK)' $$files || exit $$?; ran=" default"; fi; \
	echo "test-blas-kernels: the float-path tests passed under:$$ran"

# ruff, mypy on the core, and the import-layer contracts of pyproject.toml (no circle, no
# import up the layers; README "How the code is laid out").
lint: install
	$(BIN)/ruff check streamlearn tests benchmarks scripts
	$(BIN)/mypy
	$(BIN)/lint-imports

# Every config in configs/ in smoke mode (small cap, one repetition): proves none has rotted.
# $(JOBS) configs at a time (each writes its own smoke/ folder); stops at the first failure.
smoke: install
	$(BIN)/python scripts/smoke.py --jobs $(JOBS)

bench: install
	mkdir -p benchmarks/out
	$(BIN)/python benchmarks/bench_runner.py --json benchmarks/out/runner.json
	$(BIN)/python benchmarks/bench_bls.py --json benchmarks/out/bls.json
	$(BIN)/python benchmarks/bench_bls.py --floor --json benchmarks/out/bls_floor.json
	$(BIN)/python benchmarks/bench_bls.py --growth --json benchmarks/out/bls_growth.json
	$(BIN)/python benchmarks/bls_kernel_layouts.py --json benchmarks/out/bls_kernel_layouts.json
	$(BIN)/python benchmarks/bench_forks.py --json benchmarks/out/forks.json
	$(BIN)/python benchmarks/bench_ridge_bls.py
	$(BIN)/python benchmarks/bench_fast_ons.py --json benchmarks/out/fast_ons.json
	$(BIN)/python benchmarks/bench_metric_kinds.py
	$(BIN)/python benchmarks/bench_kinds_run.py
	$(BIN)/python benchmarks/bench_methods.py
	$(BIN)/python benchmarks/bench_report.py
	$(BIN)/python benchmarks/bench_interop.py
	$(BIN)/python benchmarks/limits_table.py   # issue 25's table -> benchmarks/out/limits.md

.PHONY: reproduce-forks
# FORKS paper (issue 11): Tables 1-3, Fig. 2, the protocol-switch sensitivity; KuaiRec
# (Figs. 3, 5) is skipped when its data is absent. Then the records archives (runs.tar.xz,
# committed: README "Auditing a result") and the tables of results/forks/. The KuaiRec-size
# synthetic configs (*synthetic*.yaml) need scripts/kuairec_synthetic.py's file: run by hand.
reproduce-forks: install
	@for c in $$(find configs/forks -name '*.yaml' ! -name '*synthetic*' 2>/dev/null | sort); do \
	  $(BIN)/streamlearn run $$c --jobs 1 --skip-missing-data || exit $$?; done
	$(BIN)/streamlearn records pack results/forks
	$(BIN)/streamlearn tables forks

# *_full.yaml (the baselines' full protocol, days of CPU) is for a cluster: run it by hand
# with --backend dask (results/online_bls/README.md, "Cost of the full protocol").
reproduce-online-bls: install
	@for c in $$(find configs/online_bls -name '*.yaml' ! -name '*_full.yaml' 2>/dev/null | sort); do \
	  $(BIN)/streamlearn run $$c --jobs $(JOBS) --skip-missing-data || exit $$?; done
	$(BIN)/streamlearn records pack results/online_bls

.PHONY: reproduce-ridge-bls
# Ridge-BLS paper (issue 12): λ calibration on the initial MNIST network, the scaled MNIST
# Tables II-III / Fig. 1 / Table VI, NORB (skipped while its data is absent), then the
# per-update tables of every experiment run. configs/ridge_bls/mnist_full.yaml (paper
# size) is run by hand only.
reproduce-ridge-bls: install
	$(BIN)/python scripts/ridge_bls_calibrate.py --seeds 0 1
	$(BIN)/streamlearn run configs/ridge_bls/mnist_tables.yaml --jobs 1
	$(BIN)/streamlearn run configs/ridge_bls/mnist_na.yaml --jobs 1
	$(BIN)/streamlearn run configs/ridge_bls/norb_tables.yaml --jobs 1 --skip-missing-data
	$(BIN)/streamlearn records pack results/ridge_bls
	$(BIN)/streamlearn tables ridge_bls

.PHONY: reproduce-fast-ons
# Fast-ONS paper (issue 10): Figs. 2a/2b (stated and reproducing rates), the synthetic
# stand-ins, Fig. 1a (two tiled speech lengths) and Fig. 1b, then the figures and tables of
# results/fast_ons/ from the records (streamlearn/reporting/papers/fast_ons.py), after
# packing them (runs.tar.xz, committed).
reproduce-fast-ons: install
	@for c in fig2a fig2b fig2_synthetic fig1a_n5e5 fig1a_n1e6 fig1b; do \
	  $(BIN)/streamlearn run configs/fast_ons/$$c.yaml --jobs 1 --skip-missing-data || exit $$?; done
	$(BIN)/streamlearn records pack results/fast_ons
	$(BIN)/streamlearn tables fast_ons

.PHONY: verify-results
# Every committed summary.md/.csv and paper table regenerated, in a temporary folder, from
# the committed run records (the runs.tar.xz of each results folder) and compared byte for
# byte with the committed file; a difference is named by file and cell. Folders without
# records are listed, with their cost, in results/records_not_committed.json and reported
# as unverified; each paper README's account line and misses.json are checked against the
# committed tables (scripts/verify_results.py; README "Auditing a result").
verify-results: install
	$(BIN)/python scripts/verify_results.py

.PHONY: rerun-check
# A few quick committed results folders rerun with this checkout's code and compared with
# their committed records (`streamlearn records diff`: no value printed differently), so
# that a change which moves a published number fails CI. The whole audit, with the BLAS
# kernel's part in what differs: scripts/rerun_audit.py (README "Auditing a result").
RERUN_CHECK = results/forks/table1/german results/forks/pnk_ridge/german results/fast_ons/fig2b
rerun-check: install
	$(BIN)/python scripts/rerun_audit.py $(RERUN_CHECK) --work "$$(mktemp -d)"

.PHONY: check-tables
# The table builders write what those of $(TABLES_BASE) (the layout before issue 22) wrote,
# on the same records: smoke records of every config they read (~40 min here), and with
# FULL=1 the full configs of the committed tables (about 1 h more), compared with the
# committed files too, time columns left out (scripts/check_tables_regenerate.py).
TABLES_BASE ?= b47c2c8
TABLES_WORK ?= /tmp/streamlearn-tables-check
check-tables: install
	$(BIN)/python scripts/check_tables_regenerate.py --work $(TABLES_WORK) \
	  --base-commit $(TABLES_BASE) $(if $(FULL),--full)

clean:
	rm -rf results/smoke results/*/smoke .pytest_cache .ruff_cache

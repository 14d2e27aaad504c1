# Thin wrapper over CMake. The two commands a newcomer needs: `make run`, `make test`.
BUILD      ?= build
BUILD_TYPE ?= Release
JOBS       ?= $(shell nproc)
GENERATOR  := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
MODEL      ?= resources/models/kjv-demo-f16.gguf
PROMPT     ?= Genesis 1\n1 In the beginning
# Tests labelled `gpu` run only where a CUDA device answers; `soak` only in `make soak`.
HAVE_GPU   := $(shell nvidia-smi -L >/dev/null 2>&1 && echo yes)
CTEST_ARGS ?= $(if $(HAVE_GPU),-LE soak,-LE 'gpu|soak')

.PHONY: deps configure build run test soak bench fuzz clean

deps:
	@scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DKVCHAT_CUDA=AUTO

configure: deps $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The desktop window on the embedded demo model; without a display, the same model in
# the terminal.
run: build
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
	  $(BUILD)/bin/kvchat; \
	else \
	  echo "make run: no display (DISPLAY/WAYLAND_DISPLAY unset); generating in the terminal instead"; \
	  $(BUILD)/bin/kvchat-cli generate --model $(MODEL) --prompt "$$(printf '$(PROMPT)')" -n 120 --temp 0.8 --seed 42; \
	fi

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# Long use: 1,000 chat turns per context policy on the demo model, in the release build
# (resident-memory slope, KV pool bound) and under ASan+UBSan (LeakSanitizer); the table
# and build/test-artifacts/soak-1000*.json say the numbers (docs/RELIABILITY.md).
soak: build
	cd $(BUILD) && ctest --output-on-failure -V -L soak

bench: build
	scripts/bench.sh $(BUILD)

# Coverage-guided fuzzing (clang + libFuzzer) of the GGUF parser, the Jinja chat
# template interpreter and the tokenizers, FUZZ_SECONDS each. New corpus entries go to
# tests/fuzz/corpus-work/<name> (ignored); crashers to tests/fuzz/regressions*/, which
# the fuzz_*_replay ctests replay under ASan+UBSan once committed.
FUZZ_SECONDS ?= 120
FUZZ_FLAGS   ?= -timeout=5 -rss_limit_mb=2048

fuzz: deps
	cmake -S . -B build-fuzz $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DKVCHAT_FUZZ=ON -DKVCHAT_CUDA=OFF
	cmake --build build-fuzz -j $(JOBS) --target fuzz_gguf fuzz_jinja fuzz_tokenizer
	mkdir -p tests/fuzz/corpus-work/gguf tests/fuzz/corpus-work/jinja tests/fuzz/corpus-work/tokenizer
	build-fuzz/bin/fuzz_gguf -max_total_time=$(FUZZ_SECONDS) -max_len=65536 $(FUZZ_FLAGS) \
	  -artifact_prefix=tests/fuzz/regressions/ tests/fuzz/corpus-work/gguf tests/fuzz/corpus
	build-fuzz/bin/fuzz_jinja -max_total_time=$(FUZZ_SECONDS) -max_len=20000 $(FUZZ_FLAGS) \
	  -artifact_prefix=tests/fuzz/regressions-jinja/ tests/fuzz/corpus-work/jinja tests/fuzz/corpus-jinja
	build-fuzz/bin/fuzz_tokenizer -max_total_time=$(FUZZ_SECONDS) -max_len=4096 $(FUZZ_FLAGS) \
	  -artifact_prefix=tests/fuzz/regressions-tokenizer/ tests/fuzz/corpus-work/tokenizer \
	  tests/fuzz/corpus-tokenizer

clean:
	rm -rf $(BUILD) build-fuzz

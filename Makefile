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

.PHONY: deps configure build run test soak bench package translations fuzz clean

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

# Refresh i18n/*.ts from the qsTr/tr strings of app/ and ui/ (then translate what is new in
# Qt Linguist: `linguist i18n/kvchat_ko.ts`; make test fails while anything is unfinished).
translations: deps
	/usr/lib/qt6/bin/lupdate -no-obsolete app ui -ts i18n/*.ts

# kvchat_<version>_amd64.deb (+ kvchat-cuda_<version>_amd64.deb where nvcc was found) and
# kvchat_<version>_amd64.tar.gz in $(BUILD)/. Install: sudo apt install ./$(BUILD)/kvchat_*_amd64.deb
package: build
	cd $(BUILD) && cpack

# Coverage-guided fuzzing (clang + libFuzzer) of every parser of untrusted input (GGUF,
# Jinja templates, tokenizers, snapshots, requests, grammars, tool calls, MCP HTTP, remote
# metrics and streams), FUZZ_SECONDS each. New corpus entries go to
# tests/fuzz/corpus-work/<name> (ignored); crashers to tests/fuzz/regressions*/, which
# the fuzz_*_replay ctests replay under ASan+UBSan once committed.
FUZZ_SECONDS ?= 120
FUZZ_FLAGS   ?= -timeout=5 -rss_limit_mb=2048

fuzz: deps
	cmake -S . -B build-fuzz $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DKVCHAT_FUZZ=ON -DKVCHAT_CUDA=OFF
	cmake --build build-fuzz -j $(JOBS) --target fuzz_gguf fuzz_jinja fuzz_tokenizer fuzz_snapshot fuzz_gguf_inspect fuzz_resume fuzz_request fuzz_grammar fuzz_json_schema \
	  fuzz_tool_calls fuzz_mcp_http fuzz_prometheus fuzz_openai_stream
	mkdir -p tests/fuzz/corpus-work/gguf tests/fuzz/corpus-work/jinja tests/fuzz/corpus-work/tokenizer \
	  tests/fuzz/corpus-work/snapshot tests/fuzz/corpus-work/gguf_inspect tests/fuzz/corpus-work/resume \
	  tests/fuzz/corpus-work/request tests/fuzz/corpus-work/grammar \
	  tests/fuzz/corpus-work/json_schema tests/fuzz/corpus-work/tool_calls tests/fuzz/corpus-work/mcp_http \
	  tests/fuzz/corpus-work/prometheus tests/fuzz/corpus-work/openai_stream
	build-fuzz/bin/fuzz_gguf -max_total_time=$(FUZZ_SECONDS) -max_len=65536 $(FUZZ_FLAGS) \
	  -artifact_prefix=tests/fuzz/regressions/ tests/fuzz/corpus-work/gguf tests/fuzz/corpus
	build-fuzz/bin/fuzz_jinja -max_total_time=$(FUZZ_SECONDS) -max_len=20000 $(FUZZ_FLAGS) \
	  -artifact_prefix=tests/fuzz/regressions-jinja/ tests/fuzz/corpus-work/jinja tests/fuzz/corpus-jinja
	build-fuzz/bin/fuzz_tokenizer -max_total_time=$(FUZZ_SECONDS) -max_len=4096 $(FUZZ_FLAGS) \
	  -artifact_prefix=tests/fuzz/regressions-tokenizer/ tests/fuzz/corpus-work/tokenizer \
	  tests/fuzz/corpus-tokenizer
	build-fuzz/bin/fuzz_snapshot -max_total_time=$(FUZZ_SECONDS) -max_len=8192 $(FUZZ_FLAGS) \
	  -artifact_prefix=tests/fuzz/regressions-snapshot/ tests/fuzz/corpus-work/snapshot \
	  tests/fuzz/corpus-snapshot
	build-fuzz/bin/fuzz_gguf_inspect -max_total_time=$(FUZZ_SECONDS) -max_len=65536 $(FUZZ_FLAGS) \
	  -artifact_prefix=tests/fuzz/regressions-inspect/ tests/fuzz/corpus-work/gguf_inspect \
	  tests/fuzz/corpus-inspect
	build-fuzz/bin/fuzz_resume -max_total_time=$(FUZZ_SECONDS) -max_len=8192 $(FUZZ_FLAGS) \
	  -artifact_prefix=tests/fuzz/regressions-resume/ tests/fuzz/corpus-work/resume \
	  tests/fuzz/corpus-resume
	build-fuzz/bin/fuzz_request -max_total_time=$(FUZZ_SECONDS) -max_len=16384 $(FUZZ_FLAGS) \
	  -artifact_prefix=tests/fuzz/regressions-request/ tests/fuzz/corpus-work/request \
	  tests/fuzz/corpus-request
	build-fuzz/bin/fuzz_grammar -max_total_time=$(FUZZ_SECONDS) -max_len=4096 $(FUZZ_FLAGS) \
	  -artifact_prefix=tests/fuzz/regressions-grammar/ tests/fuzz/corpus-work/grammar \
	  tests/fuzz/corpus-grammar
	build-fuzz/bin/fuzz_json_schema -max_total_time=$(FUZZ_SECONDS) -max_len=4096 $(FUZZ_FLAGS) \
	  -artifact_prefix=tests/fuzz/regressions-json-schema/ tests/fuzz/corpus-work/json_schema \
	  tests/fuzz/corpus-json-schema
	build-fuzz/bin/fuzz_tool_calls -max_total_time=$(FUZZ_SECONDS) -max_len=8192 $(FUZZ_FLAGS) \
	  -artifact_prefix=tests/fuzz/regressions-tool-calls/ tests/fuzz/corpus-work/tool_calls \
	  tests/fuzz/corpus-tool-calls
	build-fuzz/bin/fuzz_mcp_http -max_total_time=$(FUZZ_SECONDS) -max_len=16384 $(FUZZ_FLAGS) \
	  -artifact_prefix=tests/fuzz/regressions-mcp-http/ tests/fuzz/corpus-work/mcp_http \
	  tests/fuzz/corpus-mcp-http
	build-fuzz/bin/fuzz_prometheus -max_total_time=$(FUZZ_SECONDS) -max_len=16384 $(FUZZ_FLAGS) \
	  -artifact_prefix=tests/fuzz/regressions-prometheus/ tests/fuzz/corpus-work/prometheus \
	  tests/fuzz/corpus-prometheus
	build-fuzz/bin/fuzz_openai_stream -max_total_time=$(FUZZ_SECONDS) -max_len=16384 $(FUZZ_FLAGS) \
	  -artifact_prefix=tests/fuzz/regressions-openai-stream/ tests/fuzz/corpus-work/openai_stream \
	  tests/fuzz/corpus-openai-stream

clean:
	rm -rf $(BUILD) build-fuzz

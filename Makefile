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
FUZZ_NAMES   := gguf jinja tokenizer snapshot gguf_inspect resume request grammar json_schema \
                tool_calls mcp_http prometheus openai_stream
# $(call fuzz_run,NAME,MAX_LEN,REGRESSIONS_DIR,CORPUS_DIR): one target for FUZZ_SECONDS.
fuzz_run = build-fuzz/bin/fuzz_$(1) -max_total_time=$(FUZZ_SECONDS) -max_len=$(2) $(FUZZ_FLAGS) \
  -artifact_prefix=tests/fuzz/$(3)/ tests/fuzz/corpus-work/$(1) tests/fuzz/$(4)

fuzz: deps
	cmake -S . -B build-fuzz $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DKVCHAT_FUZZ=ON -DKVCHAT_CUDA=OFF
	cmake --build build-fuzz -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_NAMES))
	mkdir -p $(addprefix tests/fuzz/corpus-work/,$(FUZZ_NAMES))
	$(call fuzz_run,gguf,65536,regressions,corpus)
	$(call fuzz_run,jinja,20000,regressions-jinja,corpus-jinja)
	$(call fuzz_run,tokenizer,4096,regressions-tokenizer,corpus-tokenizer)
	$(call fuzz_run,snapshot,8192,regressions-snapshot,corpus-snapshot)
	$(call fuzz_run,gguf_inspect,65536,regressions-inspect,corpus-inspect)
	$(call fuzz_run,resume,8192,regressions-resume,corpus-resume)
	$(call fuzz_run,request,16384,regressions-request,corpus-request)
	$(call fuzz_run,grammar,4096,regressions-grammar,corpus-grammar)
	$(call fuzz_run,json_schema,4096,regressions-json-schema,corpus-json-schema)
	$(call fuzz_run,tool_calls,8192,regressions-tool-calls,corpus-tool-calls)
	$(call fuzz_run,mcp_http,16384,regressions-mcp-http,corpus-mcp-http)
	$(call fuzz_run,prometheus,16384,regressions-prometheus,corpus-prometheus)
	$(call fuzz_run,openai_stream,16384,regressions-openai-stream,corpus-openai-stream)

clean:
	rm -rf $(BUILD) build-fuzz

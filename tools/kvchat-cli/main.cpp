// kvchat-cli: the engine's scriptable command-line contract.
#include <cstdio>
#include <cstring>
#include <string>

#include "cli_common.h"
#include "commands.h"

namespace kvchat::cli {
int fail(const std::string& message, int code) {
  // Errors may quote a file or a peer (a model's name, a token, a template's message).
  std::fprintf(stderr, "kvchat-cli: %s\n", terminal_lines(message).c_str());
  return code;
}
}  // namespace kvchat::cli

namespace {

constexpr const char* kUsage = R"(usage: kvchat-cli <command> [options]
       kvchat-cli --version

commands:
  info        --model M [--json]                      architecture, sizes, tensor types, vocab,
              whether the CUDA kernels implement the model (not whether this machine has a
              GPU; --json: "cuda": {"runs": true|false, "why_not": "..."})
  tokenize    --model M (--text T | --file F) [--no-bos]   ids on one line, space-separated
  detokenize  --model M --ids "1 2 3"                 the text of the ids
  logits      --model M --ids "1 2 3" [--all] [--decode] [--backend B] [--kv-type T]
              JSON {"n_vocab": N, "logits": [[...]]}: last position, or all with --all;
              --decode evaluates one token per forward pass through the KV cache
  generate    --model M --prompt P [-n N] [--temp T] [--seed S] [--top-k K] [--top-p P]
              [--min-p P] [--repeat-penalty R] [--stop S] [--ctx N] [--threads N]
              [--backend B] [--grammar FILE.gbnf | --json-schema FILE | --json-object] [--json]
              --grammar: every token continues a sentence of that GBNF grammar (llama.cpp's
              syntax) and the text ends only where one is complete; --json-schema: a JSON
              value valid against that schema (OpenAI's strict subset); --json-object: one
              JSON object (--json is the output format: a JSON result)
  chat        --model M [--system S] [--template T] [--enable-thinking on|off]
              [--resume FILE] [-n N] [--temp T] ... [--grammar F | --json-schema F | --json-object]
              [--json]   an interactive chat on stdin (the app's conversation logic):
              each line is a user message ("\n" = line break) or /regenerate, /continue,
              /edit N TEXT, /undo, /summarize FILE (added as an exchange), /memory (the
              memory panel's figures), /messages, /save FILE, /quit;
              a reply's reasoning (<think>...</think>) between [thinking] and [/thinking];
              --json: one JSON line per event on stdout (a reply's "thinking" apart from
              its "text"; {"event":"thinking","delta":...} as it streams); --enable-thinking:
              the template's enable_thinking (Qwen 3). A message the template or the
              context refuses is not kept. Exit status 0 when every message and command
              succeeded, 1 when any failed (each error is reported as it happens)
  chat        --remote URL --model NAME [--api-key-file F] [--shape-from GGUF] [--system S]
              [-n N] [--temp T] [--top-p P] [--seed S] [--json]   the same chat with a
              model served elsewhere through the OpenAI API (vLLM, llama.cpp's server,
              Ollama, LM Studio, kvchat-cli serve; URL like http://host:8000/v1): replies
              stream from /v1/chat/completions; /memory prints what that engine publishes
              of its memory (vLLM's /metrics, llama.cpp's /slots and /metrics, kvchat's
              /health) and, with --shape-from, this conversation's KV by the formula on that
              GGUF's shape (an estimate). The key goes only to URL's origin (no redirect is
              followed); /summarize, /save and tools need local weights and are refused
  serve       --model M [--host 127.0.0.1] [--port 8080] [--api-key K | --api-key-file F]
              [--allow-no-key] [--parallel 4] [--ctx N] [--kv-type T] [--kv-budget-bytes B]
              [--backend B] [--cors] [--allowed-origins O,O] [--max-body-bytes 8388608]
              [--max-tokens N] [--model-id NAME] [--template T] [--enable-thinking on|off]
              [--grammar F | --json-schema F | --json-object] [--kv-ram-budget B]
              a local OpenAI-compatible HTTP server (/v1/chat/completions, /v1/completions,
              /v1/models, /health): prints "listening on URL" and serves until SIGINT or
              SIGTERM; --api-key, --api-key-file (its first line) or $KVCHAT_API_KEY: every
              route needs "Authorization: Bearer K" (a host beyond loopback needs one, or
              --allow-no-key); browser Origins are refused unless listed in
              --allowed-origins (--cors: any); --kv-budget-bytes: idle sessions' KV is dropped (least recently
              used first) beyond this total; --kv-ram-budget (bytes, or 512M, 2G; default
              the smaller of 25% of available RAM and 8 GiB): the RAM tier idle sessions
              count in, the least recently used dropped beyond it (/health: kv_ram_tier);
              a chat reply's reasoning is returned as
              message.reasoning_content (streamed: delta.reasoning_content), the request's
              chat_template_kwargs.enable_thinking overriding --enable-thinking;
              response_format (json_object, json_schema) and tools (tool_choice auto, none,
              required or a function; parallel_tool_calls) constrain replies by grammar, the
              calls parsed into message.tool_calls in the template's call format (Hermes,
              Llama 3, Mistral, else a generic JSON form); --grammar, --json-schema,
              --json-object: the grammar of requests that ask for neither
  bench       --model M [--pp 512] [--tg 128] [--contexts 0,4096] [--kv-types f16,q8_0]
              [--repeat N] [--bw-mib 1024] [--threads N] [--backend B] [--json]
              prefill/decode tok/s, weight bytes per token, measured memory bandwidth and
              FMA peak (or GPU copy and GEMM rate) and the shares of them, load times;
              --repeat N (1..100, default 1): each (kv type, context) measured N times,
              figures the median (min–max); in --json the fields hold the medians, with
              NAME_min / NAME_max beside them and every sample under "samples"
  bench       --model M --snapshot [--pp 2048] [--tg 64] [--replies 3] [--json]
              KV snapshot journal: bytes each save writes after a prefill of --pp tokens
              and --replies replies of --tg tokens (and a regenerated one), against a
              whole-file rewrite; save/load times, model identity time
  bench       --model M --json-schema F | --tools F [--pp 64] [--tg 128] [--repeat 3] [--json]
              what a grammar costs: its compile time (a JSON Schema, or an OpenAI tools array's
              call grammar with tool_choice required) and constrained against free decode
              speed, alternated runs, best against best
  bench-serve --model M [--parallel 1,2,4,8] [--tg 32] [--prompt-tokens 64] [--runs 3]
              [--threads N] [--kv-type T] [--json]   batched decode across sessions: for each
              N, N sessions with distinct prompts decode --tg tokens together (one forward
              pass per step); aggregate and per-session tok/s, best of --runs alternating
              runs, the ratio to one session, threads and the CPU model
  bench-switch --model M [--tokens 4096] [--switches 6] [--json]
              what coming back to a conversation costs: two conversations of --tokens
              random tokens, switched between through the RAM tier, from the disk
              snapshot, and by evaluating the prompt again (ms and tokens per switch)
  bench-tokenize --model M [--json]   tokenizer MB/s on 1 MB and 10 MB of mixed text (and
              the 10x/1x time ratio), 1 MB worst cases; vocab-only GGUFs work
  mkmodel     --preset NAME --type T --out FILE [--layers N] [--seed S]
              writes a GGUF of a real shape with random weights (presets: tinyllama-1.1b,
              llama-3.2-1b, llama-3-8b, mistral-7b, qwen2.5-0.5b, gemma2-2b, kjv-demo-shape,
              tiny-256;
              types f32 f16 bf16 q8_0 q4_0 q4_1 q5_0 q5_1 q2_k q3_k q4_k q5_k q6_k iq4_nl
              iq4_xs, or the mixes q4_k_m / q5_k_m: q4_k / q5_k with q6_k for the output
              and for attn_v and ffn_down of about half the layers (the first and last
              eighth and every third between), q3_k_m: q3_k with q6_k output, q5_k/q4_k
              attn_v and ffn_down, q4_k attn_output. Rows that are not whole 256-value
              blocks fall back (with a note) to iq4_nl, q5_0, q5_1 or q8_0)
  mkmodel     --arch A --out FILE [--type T] [--seed S]
              a small model of architecture A with every optional tensor (llama,
              llama3-rope, qwen2, qwen3, gemma2, gemma3, phi3; default type f32)
              both take --vocab-from V: the tokenizer (and chat template) of GGUF V, e.g.
              a vocab-only file of ../shared/vocab, instead of a synthetic one, and
              --embd N / --ff N: other widths (e.g. 256 / 512: every matrix a K-type)
  memory      (--model M | --preset NAME) [--ctx N] [--kv-type T] [--budget-bytes B]
              [--kv-block N] [--weight-type T] [--gpu-memory GiB [--gpu-layers N|auto]] [--json]
              predicted weights + KV cache at a context length for each KV type (f32 f16
              q8_0 q4_0, default f16; --ctx defaults to the trained context), the max
              context and the number of such conversations that fit in a budget. Presets:
              llama-3-8b, llama-3.2-1b, tinyllama-1.1b, mistral-7b, qwen2.5-0.5b,
              gemma2-2b, kjv-demo-shape, tiny-256; --weight-type (preset only, default f16) as for mkmodel
              --gpu-memory: also how many layers fit on a GPU with that much free memory
              (or --gpu-layers N), the GPU and CPU shares of weights and KV
  perplexity  --model M --file F [--ctx N] [--kv-type T] [--json]
              perplexity of the text (BOS + non-overlapping windows of --ctx tokens); for
              --kv-type f32|q8_0|q4_0 also mean/max KL divergence and top-1 agreement
              against f16 KV on the same windows, and the KV memory saved vs f16
              --stream [--turn-tokens N (32)]: the text as one chat far longer than --ctx,
              in turns of N tokens, the --context-policy making room: perplexity,
              tokens/s, policy events and tokens re-evaluated
  summarize   --model M --file F [--ctx N] [--kv-type T] [--summary-tokens N] [--resume R]
              [--json]   a summary of a text of any length: cut into chunks that fit the
              context, each summarized, the summaries merged until one remains. The plan and
              progress go to stderr, the summary to stdout; --json: {summary, plan, chunks,
              tokens_evaluated, peak_kv_bytes, document}. --resume R saves every partial
              summary to R as it is written; running again with R continues after Ctrl+C
  template    --template-file F --messages M [--bos S] [--eos S] [--add-generation-prompt]
              [--now UNIX_SECONDS] [--vars V]   renders the Jinja chat template F over the
              messages in M (a JSON array of message objects, or {"messages": [...], ...})
              as transformers' apply_chat_template does, byte for byte to stdout;
              raise_exception(msg) and other errors exit 1 with msg on stderr. --now fixes
              strftime_now(); --vars: a JSON object of extra variables (tools, ...)
  mcp         [--protocol-version V] [--call TOOL [--arguments JSON]] [--timeout-ms N]
              (URL | -- COMMAND [ARGS...])   one MCP tool server without a model: reached at
              a loopback URL (Streamable HTTP) or started (stdio); prints what initialize
              negotiated and its tools, then the tool's result, as JSON lines
  models      search QUERY [--limit N] [--endpoint URL] [--json]
              GGUF repositories on the Hugging Face Hub whose name contains QUERY
  models      fit REPO FILE [--ctx N] [--kv-type T] [--budget-bytes B] [--endpoint URL] [--json]
              reads only the GGUF header of REPO's FILE (HTTP Range requests): architecture,
              tensor types, whether kvchat runs it, and weights + KV at --ctx (default: the
              trained context) against free memory (or B): as `memory` on the downloaded file.
              --gpu-memory GiB [--gpu-layers N|auto]: how many layers fit on a GPU with that
              much free memory, the GPU and CPU shares of weights and KV (JSON: "gpu")
              The Hub: --endpoint, else $HF_ENDPOINT, else https://huggingface.co; $HF_TOKEN
              is sent for gated repositories. Needs the app build (Qt)

--model M defaults to the demo model installed beside kvchat-cli (../share/kvchat/models).
model commands also take: --backend cpu|cpu-reference|cuda|auto  --threads N  --ctx N
  --kv-type f32|f16|q8_0|q4_0|q8_0r|q4_0r (f16; logits: f32; r: rotated, kv/kv_rotation.h)
  --kv-type-k T / --kv-type-v T: K's or V's type alone (K and V typed apart, CPU backend;
  --kv-type K/V says both, e.g. q8_0/q4_0)  --kv-block N (16)  --kv-budget-bytes B
  --context-policy stop|drop-oldest|shift|sink-window (stop)  --sink-tokens N (4): the
  first tokens sink-window keeps (with the system prompt, however long)
  --gpu-layers N|auto: cuda runs layers [0, N) on the GPU and the rest on the CPU; auto
  (the default) as many as fit the device's free memory at --ctx and --kv-type
  cuda and auto are trusted with a model only when its logits on a few positions (a
  prefill and decode steps) match the CPU backend's (checked once per process and model)
generate also takes --no-kv-cache: recompute the whole sequence for every token

models pull REPO FILE [--endpoint URL] [--dir D] [--json] [--verbose]
              downloads FILE of the Hub repository REPO with the app's download code (redirects,
              Range resume, SHA-256 checked against the Hub's before the file is accepted) into
              D (default: the app's models directory, ~/.local/share/kvchat/models); running it
              again after an interruption continues the partial file (state in
              D/.kvchat-downloads.sqlite); $HF_TOKEN for gated repositories. Needs the app build
)";

}  // namespace

int main(int argc, char** argv) {
  using namespace kvchat::cli;
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("kvchat-cli %s\n", KVCHAT_VERSION);
    return 0;
  }
  const std::string cmd = argv[1];
  Argv rest(argv + 2, argv + argc);
  if (cmd == "models" && !rest.empty() && rest[0] == "pull")
    return cmd_models_pull(Argv(rest.begin() + 1, rest.end()));
  if (cmd == "info") return cmd_info(rest);
  if (cmd == "tokenize") return cmd_tokenize(rest);
  if (cmd == "detokenize") return cmd_detokenize(rest);
  if (cmd == "logits") return cmd_logits(rest);
  if (cmd == "generate") return cmd_generate(rest);
  if (cmd == "chat") return cmd_chat(rest);
  if (cmd == "serve") return cmd_serve(rest);
  if (cmd == "bench") return cmd_bench(rest);
  if (cmd == "bench-tokenize") return cmd_bench_tokenize(rest);
  if (cmd == "bench-serve") return cmd_bench_serve(rest);
  if (cmd == "bench-switch") return cmd_bench_switch(rest);
  if (cmd == "mkmodel") return cmd_mkmodel(rest);
  if (cmd == "memory") return cmd_memory(rest);
  if (cmd == "perplexity") return cmd_perplexity(rest);
  if (cmd == "summarize") return cmd_summarize(rest);
  if (cmd == "template") return cmd_template(rest);
  if (cmd == "mcp") return cmd_mcp(rest);
  if (cmd == "models") return cmd_models(rest);
  std::fprintf(stderr, "kvchat-cli: unknown command '%s'\n\n%s", cmd.c_str(), kUsage);
  return 2;
}

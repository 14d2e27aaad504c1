// logits: JSON {"n_vocab": N, "logits": [[...], ...]}
#include <cstdio>
#include <span>
#include <string>

#include "cli_common.h"
#include "commands.h"

namespace kvchat::cli {

int cmd_logits(const Argv& argv) {
  auto args = Args::parse(argv, with(kSessionOptions, {"--ids"}), {"--all", "--decode"});
  if (!args) return fail(args.message());
  auto ids_text = args->require("--ids");
  if (!ids_text) return fail(ids_text.message());
  auto model = load_model(*args);
  if (!model) return fail(model.message());
  const int32_t n_vocab = (*model)->info().n_vocab;
  auto ids = parse_ids(*ids_text, n_vocab);
  if (!ids) return fail(ids.message());
  if (ids->empty()) return fail("--ids is empty");
  // f32 K/V by default: this command checks fidelity (quantized KV: --kv-type, perplexity).
  auto session = make_session(*args, *model, {.n_ctx = 0, .kv_type = "f32"});
  if (!session) return fail(session.message());
  const bool all = args->has("--all");
  std::vector<float> logits;
  if (args->has("--decode")) {
    // One token per forward pass: every position after the first reads the paged cache.
    for (size_t k = 0; k < ids->size(); ++k) {
      if (auto s = (*session)->eval(std::span<const TokenId>(ids->data() + k, 1)); !s)
        return fail(s.message());
      if (all || k + 1 == ids->size()) {
        logits.insert(logits.end(), (*session)->last_logits().begin(),
                      (*session)->last_logits().end());
      }
    }
  } else {
    if (auto s = (*session)->eval(*ids, all ? &logits : nullptr); !s) return fail(s.message());
    if (!all) logits.assign((*session)->last_logits().begin(), (*session)->last_logits().end());
  }

  // Written by hand: 9 significant digits round-trip a float exactly.
  std::string out = "{\"n_vocab\": " + std::to_string(n_vocab) + ", \"logits\": [";
  char buf[32];
  const size_t rows = logits.size() / n_vocab;
  for (size_t r = 0; r < rows; ++r) {
    out += r ? ", [" : "[";
    for (int32_t i = 0; i < n_vocab; ++i) {
      std::snprintf(buf, sizeof buf, i ? ", %.9g" : "%.9g", logits[r * n_vocab + i]);
      out += buf;
    }
    out += "]";
  }
  out += "]}\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace kvchat::cli

// mkmodel: a GGUF model with random weights (no download needed): a real shape by
// --preset, or a small model of an architecture with every optional tensor by --arch.
#include <cstdio>
#include <string>
#include <vector>

#include "cli_common.h"
#include "commands.h"
#include "model/synthetic_model.h"
#include "model/weight_mix.h"

namespace kvchat::cli {

namespace {
Result<WeightTypeSpec> parse_type(const std::string& s) {
  if (auto t = parse_weight_type_spec(s)) return *t;
  return Error{"unknown --type '" + s + "' (" + weight_type_spec_names() + ")"};
}
}  // namespace

int cmd_mkmodel(const Argv& argv) {
  auto args = Args::parse(argv,
                          {"--preset", "--arch", "--type", "--out", "--layers", "--seed",
                           "--vocab-from", "--embd", "--ff"},
                          {});
  if (!args) return fail(args.message());
  auto out = args->require("--out");
  if (!out) return fail(out.message());
  if (args->has("--preset") == args->has("--arch"))
    return fail("give exactly one of --preset and --arch");
  auto spec = args->has("--preset") ? synthetic_preset(args->get("--preset", ""))
                                    : synthetic_arch_spec(args->get("--arch", ""));
  if (!spec) return fail(spec.message());
  auto type = parse_type(args->get("--type", args->has("--arch") ? "f32" : "f16"));
  if (!type) return fail(type.message());
  auto layers = args->get_int("--layers", spec->n_layers);
  auto seed = args->get_int("--seed", 1);
  if (!layers || *layers < 1 || *layers > 256) return fail("--layers must be between 1 and 256");
  if (!seed) return fail(seed.message());
  // Other widths, e.g. multiples of 256 so every matrix of a small model is a K-type.
  auto embd = args->get_int("--embd", spec->n_embd);
  auto ff = args->get_int("--ff", spec->n_ff);
  if (!embd || !ff || *embd < 32 || *embd > 65536 || *ff < 32 || *ff > 262144) {
    return fail("--embd and --ff must be between 32 and 65536 / 262144");
  }
  if (*embd != spec->n_embd && spec->head_dim == 0 && *embd % spec->n_heads != 0) {
    return fail("--embd must be a multiple of the head count (" + std::to_string(spec->n_heads) +
                ")");
  }
  spec->n_embd = static_cast<int32_t>(*embd);
  spec->n_ff = static_cast<int32_t>(*ff);
  spec->type = type->type;
  spec->mix = type->mix;
  spec->n_layers = static_cast<int32_t>(*layers);
  spec->seed = static_cast<uint64_t>(*seed);
  spec->vocab_from = args->get("--vocab-from", "");
  std::vector<std::string> notes;
  if (auto st = write_synthetic_model(*out, *spec, &notes); !st) return fail(st.message());
  for (const std::string& n : notes) std::fprintf(stderr, "note: %s\n", n.c_str());
  std::printf("wrote %s\n", out->c_str());
  return 0;
}

}  // namespace kvchat::cli

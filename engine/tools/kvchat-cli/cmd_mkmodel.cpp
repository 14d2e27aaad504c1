// mkmodel: a GGUF model with random weights (no download needed): a real shape by
// --preset, or a small model of an architecture with every optional tensor by --arch.
#include <cstdio>

#include "cli_common.h"
#include "commands.h"
#include "model/synthetic_model.h"

namespace kvchat::cli {

namespace {
Result<gguf::TensorType> parse_type(const std::string& s) {
  if (s == "f32") return gguf::TensorType::F32;
  if (s == "f16") return gguf::TensorType::F16;
  if (s == "bf16") return gguf::TensorType::BF16;
  if (s == "q8_0") return gguf::TensorType::Q8_0;
  if (s == "q4_0") return gguf::TensorType::Q4_0;
  return Error{"unknown --type '" + s + "' (f32, f16, bf16, q8_0, q4_0)"};
}
}  // namespace

int cmd_mkmodel(const Argv& argv) {
  auto args = Args::parse(argv, {"--preset", "--arch", "--type", "--out", "--layers", "--seed", "--vocab-from"}, {});
  if (!args) return fail(args.message());
  auto out = args->require("--out");
  if (!out) return fail(out.message());
  if (args->has("--preset") == args->has("--arch")) return fail("give exactly one of --preset and --arch");
  auto spec = args->has("--preset") ? synthetic_preset(args->get("--preset", ""))
                                    : synthetic_arch_spec(args->get("--arch", ""));
  if (!spec) return fail(spec.message());
  auto type = parse_type(args->get("--type", args->has("--arch") ? "f32" : "f16"));
  if (!type) return fail(type.message());
  auto layers = args->get_int("--layers", spec->n_layers);
  auto seed = args->get_int("--seed", 1);
  if (!layers || *layers < 1 || *layers > 256) return fail("--layers must be between 1 and 256");
  if (!seed) return fail(seed.message());
  spec->type = *type;
  spec->n_layers = static_cast<int32_t>(*layers);
  spec->seed = static_cast<uint64_t>(*seed);
  spec->vocab_from = args->get("--vocab-from", "");
  if (auto st = write_synthetic_model(*out, *spec); !st) return fail(st.message());
  std::printf("wrote %s\n", out->c_str());
  return 0;
}

}  // namespace kvchat::cli

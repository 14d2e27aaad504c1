// kvchat-cli models: the Hugging Face Hub from the command line, on the app's hub code
// (app/hub): `search QUERY` lists GGUF repositories, `fit REPO FILE` reads the remote
// file's GGUF header with Range requests and says, before a byte of weights is
// downloaded, what the model is, whether kvchat runs it and what it costs in memory
// (the same figures as `kvchat-cli memory --model FILE` on the downloaded file).
// Compiled into kvchat-cli only when the app is built (Qt); see cmd_models_unavailable.cpp.
// Every text that came from the Hub or from the file (ids, names, architectures, the
// reasons built from them) is printed through kvchat::printable: a hostile peer can
// neither drive the terminal with escapes nor flood it with a 60 MB name.
#include <QEventLoop>
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "args.h"
#include "cli_common.h"
#include "commands.h"
#include "hub/remote_header.h"
#include "hub_cli_session.h"
#include "json_field.h"
#include "kvchat/gguf_inspect.h"
#include "offload_report.h"
#include "util/printable.h"

namespace kvchat::cli {

namespace {

constexpr const char* kModelsUsage =
    "usage: kvchat-cli models search QUERY [--limit N] [--endpoint URL] [--json]\n"
    "       kvchat-cli models fit REPO FILE [--ctx N] [--kv-type T] [--budget-bytes B]\n"
    "                             [--gpu-memory GiB [--gpu-layers N|auto]] [--endpoint URL]\n"
    "                             [--json]\n"
    "The Hub is --endpoint, else $HF_ENDPOINT, else https://huggingface.co; $HF_TOKEN is\n"
    "sent (in the Authorization header only) for gated repositories.\n";

// Splits positional arguments from options (`valued` options take the next argument).
struct Split {
  std::vector<std::string> positional;
  Argv options;
};
Split split_positional(const Argv& argv, const std::set<std::string>& valued) {
  Split s;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i].rfind("--", 0) != 0) {
      s.positional.push_back(argv[i]);
      continue;
    }
    s.options.push_back(argv[i]);
    if (valued.count(argv[i]) && i + 1 < argv.size()) s.options.push_back(argv[++i]);
  }
  return s;
}

// Waits on the event loop until `done` is true.
template <class Flag>
void wait_for(const Flag& done) {
  QEventLoop loop;
  while (!done()) loop.processEvents(QEventLoop::WaitForMoreEvents);
}

// Text from the Hub or a file, safe for the terminal (one line, cut).
std::string shown(const std::string& text, size_t max_bytes = kPrintableMaxBytes) {
  return printable(text, max_bytes);
}
std::string shown(const QString& text, size_t max_bytes = kPrintableMaxBytes) {
  return printable(text.toStdString(), max_bytes);
}
// Messages (which may quote what the peer sent) get more room than names.
constexpr size_t kMessageMaxBytes = 1000;
// A message of several lines ("cannot run this model (2 problems):\n  - ..."): each line
// made safe, the line breaks kept, at most 20 lines.
std::string shown_lines(const std::string& text) {
  std::string out;
  size_t start = 0;
  for (int n = 0; start <= text.size(); ++n) {
    const size_t end = std::min(text.find('\n', start), text.size());
    if (n == 20) {
      out += "\n(more lines left out)";
      break;
    }
    out += (n ? "\n" : "") +
           printable(std::string_view(text).substr(start, end - start), kMessageMaxBytes);
    start = end + 1;
  }
  return out;
}

std::string megabytes(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f MB", static_cast<double>(bytes) / 1e6);
  return buf;
}

int models_search(const Argv& argv) {
  const Split split = split_positional(argv, {"--endpoint", "--limit"});
  auto args = Args::parse(split.options, {"--endpoint", "--limit"}, {"--json"});
  if (!args) return fail(args.message());
  if (split.positional.size() != 1)
    return fail("models search takes one QUERY\n" + std::string(kModelsUsage), 2);
  auto limit = args->get_int("--limit", 50);
  if (!limit) return fail(limit.message());
  if (*limit < 1 || *limit > 1000) return fail("--limit must be between 1 and 1000");
  auto endpoint = HubCliSession::endpoint(args->get("--endpoint"));
  if (!endpoint) return fail(endpoint.message());
  HubCliSession session(*endpoint);
  hub::HubClient& client = session.client();
  hub::HubSearchResult result;
  bool done = false;
  client.search(QString::fromStdString(split.positional[0]), static_cast<int>(*limit), nullptr,
                [&](const hub::HubSearchResult& r) { result = r, done = true; });
  wait_for([&] { return done; });
  if (!result.error.ok()) return fail(shown(result.error.message, kMessageMaxBytes));
  if (args->has("--json")) {
    nlohmann::json models = nlohmann::json::array();
    for (const hub::HubModel& m : result.models) {
      nlohmann::json tags = nlohmann::json::array();
      for (const QString& t : m.tags) tags.push_back(shown(t));
      models.push_back({{"id", shown(m.id)},
                        {"downloads", m.downloads},
                        {"likes", m.likes},
                        {"gated", m.gated},
                        {"last_modified", shown(m.last_modified)},
                        {"tags", tags}});
    }
    nlohmann::json rejected = nlohmann::json::array();
    for (const QString& r : result.rejected) rejected.push_back(shown(r, kMessageMaxBytes));
    const nlohmann::json j = {{"query", split.positional[0]},
                              {"endpoint", endpoint->base().toString().toStdString()},
                              {"models", models},
                              {"rejected", rejected}};
    std::printf("%s\n", json_text(j, 2).c_str());
    return 0;
  }
  if (result.models.isEmpty())
    std::printf("no GGUF repositories match \"%s\"\n", shown(split.positional[0]).c_str());
  for (const hub::HubModel& m : result.models) {
    std::printf("%-60s %12s downloads %8s likes%s\n", shown(m.id).c_str(),
                grouped(static_cast<uint64_t>(m.downloads)).c_str(),
                grouped(static_cast<uint64_t>(m.likes)).c_str(),
                m.gated ? "  (gated: needs a token)" : "");
  }
  for (const QString& r : result.rejected)
    std::fprintf(stderr, "left out: %s\n", shown(r, kMessageMaxBytes).c_str());
  return 0;
}

nlohmann::json fit_json(const hub::RemoteHeaderResult& r, const GgufInspection& in,
                        const Result<GgufFit>& fit) {
  nlohmann::json types = nlohmann::json::array();
  for (const GgufTensorTypeCount& t : in.tensor_types) {
    types.push_back({{"type", shown(t.type)},
                     {"count", t.count},
                     {"bytes", t.bytes},
                     {"supported", t.supported}});
  }
  nlohmann::json j = {
      {"repo", shown(r.repo)},
      {"file", shown(r.file)},
      {"file_size", r.file_size},
      {"bytes_read", r.bytes_read},
      {"requests", r.requests},
      {"header_bytes", in.header_bytes},
      {"name", shown(in.name)},
      {"architecture", shown(in.architecture)},
      {"runnable", in.runnable},
      {"why_not", shown(in.why_not, kMessageMaxBytes)},
      {"n_layers", in.n_layers},
      {"n_embd", in.n_embd},
      {"n_heads", in.n_heads},
      {"n_kv_heads", in.n_kv_heads},
      {"head_dim", in.head_dim},
      {"n_vocab", in.n_vocab},
      {"n_ctx_train", in.n_ctx_train},
      {"sliding_window", in.sliding_window},
      {"n_windowed_layers", in.n_windowed_layers},
      {"n_params", in.n_params},
      {"n_tensors", in.n_tensors},
      {"tensor_types", types},
      {"weights_bytes", in.weight_bytes},
  };
  if (fit) {
    j["ctx"] = fit->n_ctx;
    j["kv_type"] = fit->kv_type;
    j["kv_bytes"] = fit->kv_bytes;
    j["kv_allocated_bytes"] = fit->kv_allocated_bytes;
    j["total_bytes"] = fit->total_bytes;
    j["budget_bytes"] = fit->free_bytes;
    j["fits"] = fit->fits;
    j["max_ctx"] = fit->max_ctx;
    j["max_ctx_capped"] = fit->max_ctx_capped;
    j["concurrent_conversations"] = fit->concurrent_conversations;
  } else {
    j["fit_error"] = shown(fit.message(), kMessageMaxBytes);
  }
  return j;
}

void print_fit(const hub::RemoteHeaderResult& r, const GgufInspection& in,
               const Result<GgufFit>& fit, bool budget_given) {
  std::printf("file          %s/%s, %s bytes (header: %s bytes, read with %d range request%s)\n",
              shown(r.repo).c_str(), shown(r.file).c_str(),
              grouped(static_cast<uint64_t>(r.file_size)).c_str(), grouped(in.header_bytes).c_str(),
              r.requests, r.requests == 1 ? "" : "s");
  std::printf("model         %s%s%s%s\n",
              in.architecture.empty() ? "(no architecture)" : shown(in.architecture).c_str(),
              in.name.empty() ? "" : " \"", shown(in.name).c_str(), in.name.empty() ? "" : "\"");
  std::printf("kvchat runs   %s\n",
              in.runnable ? "yes" : ("no: " + shown_lines(in.why_not)).c_str());
  std::string types;
  for (const GgufTensorTypeCount& t : in.tensor_types) {
    types += (types.empty() ? "" : ", ") + shown(t.type) + " x " + std::to_string(t.count) +
             (t.supported ? "" : " (unsupported)");
  }
  std::printf("tensors       %s\n", types.c_str());
  if (in.shape_known) {
    std::printf("shape         %d layers, %d kv_heads, head_dim %d, trained context %s tokens\n",
                in.n_layers, in.n_kv_heads, in.head_dim,
                grouped(static_cast<uint64_t>(in.n_ctx_train)).c_str());
  }
  if (!fit) {
    std::printf("memory        not predicted: %s\n", shown_lines(fit.message()).c_str());
    return;
  }
  std::printf("memory        weights %s + KV (%s, %s tokens) %s = %s\n",
              megabytes(fit->weights_bytes).c_str(), fit->kv_type.c_str(),
              grouped(static_cast<uint64_t>(fit->n_ctx)).c_str(),
              megabytes(fit->kv_allocated_bytes).c_str(), megabytes(fit->total_bytes).c_str());
  std::printf("%-13s %s: %s\n", budget_given ? "budget" : "free memory",
              megabytes(fit->free_bytes).c_str(), fit->fits ? "fits" : "does not fit");
  if (fit->max_ctx > 0) {
    std::printf("largest ctx   %s tokens (%s within the trained context)\n",
                grouped(fit->max_ctx).c_str(), grouped(fit->max_ctx_capped).c_str());
    std::printf("side by side  %s conversations of %s tokens\n",
                grouped(fit->concurrent_conversations).c_str(),
                grouped(static_cast<uint64_t>(fit->n_ctx)).c_str());
  }
}

int models_fit(const Argv& argv) {
  const std::set<std::string> valued = {"--endpoint",     "--ctx",        "--kv-type",
                                        "--budget-bytes", "--gpu-memory", "--gpu-layers"};
  const Split split = split_positional(argv, valued);
  auto args = Args::parse(split.options, valued, {"--json"});
  if (!args) return fail(args.message());
  if (split.positional.size() != 2)
    return fail("models fit takes REPO FILE\n" + std::string(kModelsUsage), 2);
  auto ctx = args->get_int("--ctx", 0);
  if (!ctx) return fail(ctx.message());
  if (*ctx < 0 || (args->has("--ctx") && *ctx == 0))
    return fail("--ctx must be a positive number of tokens");
  auto budget = args->get_int("--budget-bytes", 0);
  if (!budget) return fail(budget.message());
  if (*budget < 0) return fail("--budget-bytes must not be negative");
  const std::string kv_type = args->get("--kv-type", "f16");
  auto endpoint = HubCliSession::endpoint(args->get("--endpoint"));
  if (!endpoint) return fail(endpoint.message());
  HubCliSession session(*endpoint);
  hub::HubClient& client = session.client();
  hub::RemoteHeader header(&client);
  hub::RemoteHeaderResult result;
  bool done = false;
  header.fetch(QString::fromStdString(split.positional[0]),
               QString::fromStdString(split.positional[1]), nullptr,
               [&](const hub::RemoteHeaderResult& r) { result = r, done = true; });
  wait_for([&] { return done; });
  if (!result.error.ok()) return fail(shown(result.error.message, kMessageMaxBytes));
  const GgufInspection& in = result.inspection;
  const uint64_t free_bytes =
      args->has("--budget-bytes") ? static_cast<uint64_t>(*budget) : available_memory_bytes();
  const Result<GgufFit> fit = in.fit(*ctx, kv_type, free_bytes);
  // The GPU side: what layers fit in --gpu-memory at the same context and KV type.
  auto gpu = read_offload_request(*args);
  if (!gpu) return fail(gpu.message());
  std::optional<OffloadPlan> offload;
  if (*gpu && fit && in.offload_shape) {
    offload =
        plan_offload(*in.offload_shape, static_cast<int32_t>(fit->n_ctx),
                     *parse_kv_type(fit->kv_type), (*gpu)->device_free_bytes, (*gpu)->gpu_layers);
  }
  if (args->has("--json")) {
    nlohmann::json j = fit_json(result, in, fit);
    if (offload) j["gpu"] = offload_json(*offload);
    std::printf("%s\n", json_text(j, 2).c_str());
  } else {
    print_fit(result, in, fit, args->has("--budget-bytes"));
    if (offload) print_offload(*offload);
  }
  return 0;
}

}  // namespace

int cmd_models(const Argv& argv) {
  if (argv.empty() || argv[0] == "--help" || argv[0] == "-h") {
    std::fputs(kModelsUsage, argv.empty() ? stderr : stdout);
    return argv.empty() ? 2 : 0;
  }
  const Argv rest(argv.begin() + 1, argv.end());
  if (argv[0] == "search") return models_search(rest);
  if (argv[0] == "fit") return models_fit(rest);
  return fail("unknown models command '" + argv[0] + "' (search, fit)\n" + kModelsUsage, 2);
}

}  // namespace kvchat::cli

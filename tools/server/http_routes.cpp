// The HTTP routes: OpenAI's /v1/models, /v1/chat/completions, /v1/completions and
// /health, the Host/Origin checks and the bearer key check before every route, JSON
// error bodies for every status, and a record of every answer in the request log.
#include <chrono>
#include <random>
#include <nlohmann/json.hpp>
#include <string>

#include "kvchat/conversation.h"
#include "kvchat/grammar.h"
#include "kvchat/tool_calls.h"
#include "kvchat/reasoning.h"
#include "kvchat/sampling_config.h"
#include "server/auth.h"
#include "server/client_socket.h"
#include "server/guarded_http_server.h"
#include "server/openai_request.h"
#include "server/openai_response.h"
#include "server/request_origin.h"
#include "server/server_impl.h"
#include "serving/generation.h"

namespace kvchat::server {
namespace {

using nlohmann::json;

constexpr const char* kJson = "application/json";

// What the request log records of the request this thread answers: begun when its header
// has arrived (the pre-routing handler), filled by the completion routes, taken by the
// logger httplib calls once the answer is written. One thread answers a connection's
// requests one after another, a streamed body included, so a thread_local holds it.
struct RequestNotes {
  bool begun = false;
  std::chrono::steady_clock::time_point start;
  int64_t start_unix_ms = 0;
  int32_t prompt_tokens = 0;
  int32_t completion_tokens = 0;
  int32_t session = -1;
  std::string model;
  std::string message_text;
  bool hung_up = false;
};
thread_local RequestNotes t_notes;

int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void begin_notes() {
  t_notes = RequestNotes{};
  t_notes.begun = true;
  t_notes.start = std::chrono::steady_clock::now();
  t_notes.start_unix_ms = unix_ms_now();
}

// The record of an answered request, from its notes (a request answered before its
// header was whole has none: its time is now). The key and the body are never read here.
ServerRequestRecord request_record(const httplib::Request& req, const httplib::Response& res,
                                   const RequestNotes& notes, bool with_text) {
  ServerRequestRecord r;
  const auto now = std::chrono::steady_clock::now();
  r.time_unix_ms = notes.begun ? notes.start_unix_ms : unix_ms_now();
  r.duration_ms =
      notes.begun ? std::chrono::duration_cast<std::chrono::milliseconds>(now - notes.start).count()
                  : 0;
  r.method = shown_text(req.method, 16);
  r.route = shown_text(std::string_view(req.path).substr(0, req.path.find('?')));
  r.status = notes.hung_up ? 499 : res.status;
  r.prompt_tokens = notes.prompt_tokens;
  r.completion_tokens = notes.completion_tokens;
  r.client_address = req.remote_addr;
  r.user_agent = shown_text(req.get_header_value("User-Agent"));
  r.model = notes.model;
  r.session = notes.session;
  if (with_text) r.message_text = notes.message_text;
  return r;
}

// The text a request's log line may show when the user asked for it: the last user
// message (chat) or the prompt (completions), its first 200 characters.
std::string message_text_of(const CompletionRequest& r) {
  if (r.endpoint == Endpoint::Completions)
    return first_characters(r.prompt, kMaxLoggedMessageChars);
  for (auto it = r.messages.rbegin(); it != r.messages.rend(); ++it) {
    if (it->role == "user") return first_characters(it->content, kMaxLoggedMessageChars);
  }
  return {};
}

void send_error(httplib::Response& res, const ApiError& e) {
  res.status = e.status;
  res.set_content(error_body(e), kJson);
}

ApiError server_error(int status, std::string message, std::string code) {
  ApiError e;
  e.status = status;
  e.type = "server_error";
  e.message = std::move(message);
  e.code = std::move(code);
  return e;
}

int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A weights file cut short or replaced under the server: 503 with what happened.
std::optional<ApiError> weights_error(const Model& model) {
  if (auto w = model.check_weights(); !w) {
    return server_error(503, "the model is unavailable: " + w.message(), "model_unavailable");
  }
  return std::nullopt;
}

// The error a failed generation step gets: 503 when the weights went bad under it; 400
// when the reply's grammar (response_format, tools, the server's default) could not be
// followed (too ambiguous, or asking for what no token spells).
ApiError generation_error(const Model& model, const std::string& message) {
  if (auto w = weights_error(model)) return *w;
  if (message.starts_with("grammar: ")) {
    ApiError e;
    e.message =
        "the reply's grammar (response_format, tools or the server's default) could not "
        "be followed: " +
        message.substr(9);
    return e;
  }
  return server_error(500, "generation failed: " + message, "generation_failed");
}

// A request's prompt, and whether its text leaves the reply inside reasoning.
struct Prompt {
  std::vector<TokenId> ids;
  bool starts_in_thinking = false;
};

// Messages -> prompt tokens as a Conversation renders them (the system messages joined
// into its system prompt), the request's enable_thinking passed to the template.
Result<Prompt> prompt_tokens(const Server::Impl& impl, const CompletionRequest& r) {
  if (r.endpoint == Endpoint::Completions) return Prompt{impl.format->tokenize(r.prompt), false};
  ChatFormat format = *impl.format;  // cheap: the parsed template is shared
  if (r.enable_thinking) format.set_enable_thinking(r.enable_thinking);
  const SystemAndTurns request = split_system_turns(r.messages);
  if (request.turns.empty()) return Error{"'messages' needs a user message"};
  auto rendered = Conversation::prompt_for(format, request.system, request.turns, r.tools);
  if (!rendered) return Error{"the chat template refused the messages: " + rendered.message()};
  return Prompt{std::move(rendered->ids), rendered->opens_reasoning};
}

// The request's grammar: its tools' calls, its response format, or the server's default.
std::optional<ApiError> reply_constraint(const Server::Impl& impl, const CompletionRequest& r,
                                         ToolCallFormat call_format, ReplyConstraint& out) {
  ApiError e;
  if (r.tools.active()) {
    auto c = tool_call_constraint(r.tools, call_format);
    if (!c) return e.param = "tools", e.message = "'tools': " + c.message(), e;
    out = std::move(*c);
  } else if (!r.response_schema.empty()) {
    auto g = compile_json_schema(r.response_schema);
    if (!g) return e.param = "response_format", e.message = "'response_format': " + g.message(), e;
    out.grammar = std::move(*g);
  } else {
    out.grammar = impl.options.default_grammar;
  }
  return std::nullopt;
}

// A reply's calls with their ids (new ones, or the ones the model wrote for Mistral).
std::vector<ToolCall> with_ids(std::vector<ToolCall> calls, ToolCallFormat format) {
  thread_local uint64_t rng = std::random_device{}() * 0x9E3779B97F4A7C15ull + 1;
  assign_tool_call_ids(calls, format, rng);
  return calls;
}

GenerationRequest generation_request(const Server::Impl& impl, const CompletionRequest& r,
                                     std::vector<TokenId> prompt) {
  GenerationRequest g;
  g.prompt = std::move(prompt);
  g.max_tokens = r.max_tokens > 0 ? r.max_tokens : impl.options.max_tokens_default;
  g.sampling = r.sampling;
  g.sampling.seed = resolve_seed(r.seed);
  g.sampling.logit_bias = r.logit_bias;
  g.stop_strings = r.stop;
  if (r.endpoint == Endpoint::ChatCompletions) {
    for (auto& s : impl.format->stop_strings()) g.stop_strings.push_back(s);
  }
  return g;
}

// What a streaming response's provider owns: the lease (back to the pool when the
// response is done or the connection drops) and the request.
struct StreamJob {
  std::optional<SessionLease> lease;
  GenerationRequest generation;
  ResponseHead head;
  bool include_usage = false;
  bool starts_in_thinking = false;      // the prompt opened the reply's reasoning
  std::optional<ToolCallFormat> tools;  // set: the reply may hold calls in this format
};

// The end of a streamed chat reply that may hold calls: the text not yet shown, then each
// call as two pieces (id, type and name; then its arguments), as the OpenAI SDK joins them.
// Whether there were calls.
template <typename Send>
bool stream_tool_calls(ToolCallStream& calls, ToolCallFormat format, Send&& chunk) {
  ToolCallReply reply = calls.finish();
  if (!reply.content.empty()) {
    ChunkFields f;
    f.text = reply.content;
    chunk(f);
  }
  reply.calls = with_ids(std::move(reply.calls), format);
  for (size_t i = 0; i < reply.calls.size(); ++i) {
    ChunkFields head;
    head.call = ToolCallDelta{static_cast<int>(i), reply.calls[i].id, reply.calls[i].name, ""};
    chunk(head);
    ChunkFields args;
    args.call =
        ToolCallDelta{static_cast<int>(i), std::nullopt, std::nullopt, reply.calls[i].arguments};
    chunk(args);
  }
  return !reply.calls.empty();
}

void stream_completion(Server::Impl& impl, std::shared_ptr<StreamJob> job, httplib::Response& res) {
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Accel-Buffering", "no");
  Server::Impl* srv = &impl;
  res.set_chunked_content_provider(
      "text/event-stream",
      [srv, job](size_t, httplib::DataSink& sink) {
        const bool chat = job->head.endpoint == Endpoint::ChatCompletions;
        bool client_gone = false;
        auto write = [&](const std::string& event) {
          if (client_gone) return false;
          if (!sink.is_writable() || !sink.write(event.data(), event.size())) client_gone = true;
          return !client_gone;
        };
        auto chunk = [&](ChunkFields f) {
          f.usage_null = job->include_usage;
          return write(sse_event(chunk_body(job->head, f)));
        };
        ChunkFields first;
        first.role = true;
        first.text = std::string();
        if (chat && !chunk(first)) return false;
        // Chat: the reasoning's pieces as delta.reasoning_content, the answer's as content
        // (up to where a call may begin, when the request offers tools).
        ReasoningSplitter splitter(srv->format->reasoning_markers(), job->starts_in_thinking);
        std::optional<ToolCallStream> calls;
        if (job->tools) calls.emplace(*job->tools);
        auto send_parts = [&](const ReasoningParts& d) {
          bool ok = true;
          if (!d.thinking.empty()) {
            ChunkFields f;
            f.reasoning = d.thinking;
            ok = chunk(f) && ok;
          }
          const std::string answer = calls ? calls->feed(d.answer) : d.answer;
          if (!answer.empty()) {
            ChunkFields f;
            f.text = answer;
            ok = chunk(f) && ok;
          }
          return ok;
        };
        auto outcome = run_generation(job->lease->session(), job->generation, srv->stopping,
                                      &srv->batcher, [&](std::string_view text) {
                                        if (chat) return send_parts(splitter.feed(text));
                                        ChunkFields f;
                                        f.text = std::string(text);
                                        return chunk(f);
                                      });
        if (chat && !client_gone) send_parts(splitter.finish());
        const bool made_calls =
            calls && !client_gone && stream_tool_calls(*calls, *job->tools, chunk);
        if (client_gone) {  // closes the connection; the lease goes back
          ++srv->client_hang_ups;
          t_notes.hung_up = true;
          return false;
        }
        if (outcome) {
          srv->prompt_tokens_evaluated += static_cast<uint64_t>(outcome->evaluated_tokens);
          t_notes.prompt_tokens = outcome->prompt_tokens;
          t_notes.completion_tokens = outcome->completion_tokens;
        }
        if (!outcome) {
          write(sse_event(error_body(generation_error(*srv->model, outcome.message()))));
        } else {
          ChunkFields last;
          last.finish = outcome->finish;
          last.finish_tool_calls = made_calls;
          chunk(last);
          if (job->include_usage) {
            ChunkFields u;
            u.usage =
                Usage{outcome->prompt_tokens, outcome->completion_tokens, outcome->cached_tokens};
            write(sse_event(chunk_body(job->head, u)));
          }
        }
        write(std::string(sse_done()));
        job->lease.reset();  // idle before the client reads the end
        sink.done();
        return true;
      },
      [job](bool) { job->lease.reset(); });
}

// What a parsed request may not ask of this server: a token outside the model's vocabulary,
// another model, weights that changed under it.
std::optional<ApiError> refusal(const Server::Impl& impl, const CompletionRequest& r) {
  const int32_t n_vocab = impl.model->info().n_vocab;
  for (const auto& [id, bias] : r.logit_bias) {
    if (id >= n_vocab) {
      ApiError e;
      e.param = "logit_bias";
      e.message = "'logit_bias' names token " + std::to_string(id) +
                  ", outside this model's vocabulary [0, " + std::to_string(n_vocab) + ")";
      return e;
    }
  }
  if (r.model != impl.options.model_id) {
    ApiError e;
    e.status = 404;
    e.param = "model";
    e.code = "model_not_found";
    e.message = "The model '" + r.model + "' does not exist; this server serves '" +
                impl.options.model_id + "'";
    return e;
  }
  return weights_error(*impl.model);
}

// The whole answer at once, generated on `held`'s session (given back before answering).
void answer_whole(Server::Impl& impl, const httplib::Request& req, httplib::Response& res,
                  std::optional<SessionLease>& held, const GenerationRequest& generation,
                  const ResponseHead& head, bool starts_in_thinking,
                  std::optional<ToolCallFormat> tools) {
  // A client that hangs up cancels its generation at the next piece of text.
  const int client = find_client_socket(req.remote_addr, req.remote_port, req.local_port);
  bool hung_up = false;
  auto outcome = run_generation(held->session(), generation, impl.stopping, &impl.batcher,
                                [&](std::string_view) {
                                  hung_up = hung_up || client_hung_up(client);
                                  return !hung_up;
                                });
  held.reset();
  if (hung_up) {
    ++impl.client_hang_ups;
    t_notes.hung_up = true;
    return;  // nobody reads the answer
  }
  if (!outcome) return send_error(res, generation_error(*impl.model, outcome.message()));
  impl.prompt_tokens_evaluated += static_cast<uint64_t>(outcome->evaluated_tokens);
  t_notes.prompt_tokens = outcome->prompt_tokens;
  t_notes.completion_tokens = outcome->completion_tokens;
  if (outcome->finish == FinishReason::Cancelled) {
    return send_error(res, server_error(503, "the server is shutting down", "shutting_down"));
  }
  const Usage usage{outcome->prompt_tokens, outcome->completion_tokens, outcome->cached_tokens};
  if (head.endpoint == Endpoint::ChatCompletions) {
    // content is the answer; the reasoning, when there is one, is reasoning_content.
    const ReasoningParts parts =
        split_reasoning(outcome->text, impl.format->reasoning_markers(), starts_in_thinking);
    ToolCallReply reply{parts.answer, {}};
    if (tools) reply = parse_tool_calls(parts.answer, *tools);
    res.set_content(
        completion_body(head, reply.content, outcome->finish, usage, parts.thinking,
                        with_ids(std::move(reply.calls), tools.value_or(ToolCallFormat::Generic))),
        kJson);
  } else {
    res.set_content(completion_body(head, outcome->text, outcome->finish, usage), kJson);
  }
}

void handle_completion(Server::Impl& impl, const httplib::Request& req, httplib::Response& res,
                       Endpoint endpoint) {
  ParsedRequest parsed = parse_completion_request(req.body, endpoint);
  if (!parsed.request) return send_error(res, parsed.error);
  const CompletionRequest& r = *parsed.request;
  t_notes.model = shown_text(r.model);
  if (impl.log_message_text) t_notes.message_text = message_text_of(r);
  if (auto e = refusal(impl, r)) return send_error(res, *e);
  const ToolCallFormat call_format = detect_tool_call_format(*impl.format);
  ReplyConstraint constraint;
  if (auto e = reply_constraint(impl, r, call_format, constraint)) return send_error(res, *e);
  const char* prompt_param = endpoint == Endpoint::ChatCompletions ? "messages" : "prompt";
  auto tokens = prompt_tokens(impl, r);
  if (!tokens) {
    ApiError e;
    e.param = prompt_param;
    e.message = tokens.message();
    return send_error(res, e);
  }
  // Reuse (and prefix sharing) only within the caller's identity: nothing another client
  // sent changes what this one is told or how long it waits.
  auto acquired =
      impl.pool->acquire(tokens->ids, client_identity(impl.options.api_key, req.remote_addr));
  if (!acquired) {
    return send_error(res,
                      server_error(500, "no session: " + acquired.message(), "session_failed"));
  }
  if (acquired->busy) {
    ++impl.rejected_busy;
    res.set_header("Retry-After", "1");
    return send_error(res,
                      server_error(503,
                                   "every session is busy (" + std::to_string(impl.pool->size()) +
                                       " generate at once); retry shortly",
                                   "server_busy"));
  }
  const int32_t n_ctx = acquired->lease->session().n_ctx();
  if (static_cast<int32_t>(tokens->ids.size()) >= n_ctx) {
    ApiError e;
    e.param = prompt_param;
    e.code = "context_length_exceeded";
    e.message = "the prompt has " + std::to_string(tokens->ids.size()) +
                " tokens; the context holds " + std::to_string(n_ctx);
    return send_error(res, e);
  }
  ++impl.requests;
  t_notes.session = acquired->lease->index();
  impl.log.set_session_client(
      t_notes.session,
      {req.remote_addr, shown_text(req.get_header_value("User-Agent")), t_notes.model});
  ResponseHead head{new_completion_id(endpoint), unix_now(), impl.options.model_id, endpoint};
  const bool starts_in_thinking = tokens->starts_in_thinking;
  GenerationRequest generation = generation_request(impl, r, std::move(tokens->ids));
  if (starts_in_thinking && constraint.grammar)
    defer_past_reasoning(constraint.triggers, impl.format->reasoning_markers());
  generation.constraint = std::move(constraint);
  std::optional<ToolCallFormat> tools;
  if (r.tools.active()) tools = call_format;
  if (!r.stream) {
    return answer_whole(impl, req, res, acquired->lease, generation, head, starts_in_thinking,
                        tools);
  }
  auto job = std::make_shared<StreamJob>();
  job->lease.emplace(std::move(*acquired->lease));
  acquired->lease.reset();
  job->generation = std::move(generation);
  job->head = std::move(head);
  job->include_usage = r.include_usage;
  job->starts_in_thinking = starts_in_thinking;
  job->tools = tools;
  stream_completion(impl, std::move(job), res);
}

// Without the key (or on a server without one): liveness only. Per-session detail goes
// only to a caller with the key, and only that identity's sessions.
json liveness_json(const Server::Impl& impl, const std::string& problem) {
  json j = {{"status", problem.empty() ? "ok" : "error"}, {"model", impl.options.model_id}};
  if (!problem.empty()) j["error"] = problem;
  return j;
}

// The RAM tier the idle sessions count in (null without one): its budget and use, what it
// holds by kind, and its evictions.
json ram_tier_json(const std::optional<KvRamTierStats>& t) {
  if (!t) return nullptr;
  return {{"budget_bytes", t->budget_bytes},   {"used_bytes", t->used_bytes},
          {"conversations", t->conversations}, {"branches", t->branches},
          {"summaries", t->summaries},         {"server_sessions", t->server_sessions},
          {"evictions", t->evictions}};
}

json health_json(const Server::Impl& impl, const ServerStats& stats, const std::string& problem) {
  json sessions = json::array();
  for (const ServerSessionStats& s : stats.sessions) {
    sessions.push_back({{"index", s.index},
                        {"state", s.busy ? "busy" : "idle"},
                        {"tokens", s.tokens},
                        {"kv_allocated_bytes", s.kv_allocated_bytes},
                        {"kv_shared_bytes", s.kv_shared_bytes},
                        {"last_used_unix_ms", s.last_used_unix_ms},
                        {"requests", s.requests}});
  }
  json j = {
      {"status", problem.empty() ? "ok" : "error"},
      {"model", impl.options.model_id},
      {"sessions", {{"busy", stats.busy}, {"idle", stats.idle}, {"total", stats.sessions.size()}}},
      {"kv_type", impl.options.session.kv_type},  // "q8_0", or "K/V" typed apart
      {"kv_allocated_bytes", stats.kv_allocated_bytes},
      {"kv_shared_bytes", stats.kv_shared_bytes},
      {"kv_budget_bytes", stats.kv_budget_bytes},
      {"kv_ram_tier", ram_tier_json(stats.ram_tier)},
      {"requests", stats.requests},
      {"rejected_busy", stats.rejected_busy},
      {"client_hang_ups", stats.client_hang_ups},
      {"prompt_tokens_evaluated", stats.prompt_tokens_evaluated},
      {"batched_decode",
       {{"batches", stats.decode_batches},
        {"steps", stats.decode_steps},
        {"max_batch", stats.max_decode_batch}}},
      {"session_stats", sessions}};
  if (!problem.empty()) j["error"] = problem;
  return j;
}

// Host (on a loopback bind) and Origin: 421 / 403 written into res when refused. A listed
// origin gets its CORS headers.
bool refuse_host_or_origin(const Server::Impl& impl, const httplib::Request& req,
                           httplib::Response& res, bool& listed_origin) {
  listed_origin = false;
  if (server_host_is_loopback(impl.options.host) && req.has_header("Host") &&
      !loopback_host_header(req.get_header_value("Host"), impl.port)) {
    ApiError e;
    e.status = 421;
    e.code = "host_not_allowed";
    e.message = "this server answers only to localhost, 127.0.0.1 or [::1] (port " +
                std::to_string(impl.port) + "), not Host '" + req.get_header_value("Host") + "'";
    send_error(res, e);
    return true;
  }
  if (!req.has_header("Origin") || impl.options.cors) return false;
  const std::string origin = req.get_header_value("Origin");
  if (!origin_listed(origin, impl.options.allowed_origins)) {
    ApiError e;
    e.status = 403;
    e.code = "origin_not_allowed";
    e.message = "requests from web pages of origin '" + origin +
                "' are refused (allow it with --allowed-origins, or any with --cors)";
    send_error(res, e);
    return true;
  }
  listed_origin = true;
  res.set_header("Access-Control-Allow-Origin", origin);
  res.set_header("Vary", "Origin");
  res.set_header("Access-Control-Allow-Headers", "Authorization, Content-Type");
  res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
  return false;
}

// The checks before a route runs (its body unread): Host and Origin (421, 403, or a
// preflight's 204), the key (401; /health without Authorization is let through to answer
// liveness only), JSON content on the completion routes (415: a "simple" cross-site POST
// of text/plain or form data needs no preflight). True when res holds the answer.
bool refused_before_body(const Server::Impl& impl, const httplib::Request& req,
                         httplib::Response& res) {
  bool listed_origin = false;
  if (refuse_host_or_origin(impl, req, res, listed_origin)) return true;
  if ((impl.options.cors || listed_origin) && req.method == "OPTIONS") {
    res.status = 204;
    return true;
  }
  if (req.path == "/health" && !req.has_header("Authorization")) return false;
  if (!authorized(req.get_header_value("Authorization"), impl.options.api_key)) {
    ApiError e;
    e.status = 401;
    e.code = "invalid_api_key";
    e.message = req.has_header("Authorization")
                    ? "Incorrect API key provided"
                    : "Missing API key: send the header 'Authorization: Bearer <key>'";
    send_error(res, e);
    return true;
  }
  const bool json_route = req.path == "/v1/chat/completions" || req.path == "/v1/completions";
  if (req.method == "POST" && json_route &&
      !json_content_type(req.get_header_value("Content-Type"))) {
    ApiError e;
    e.status = 415;
    e.code = "unsupported_media_type";
    e.message = "the request body must be JSON: send 'Content-Type: application/json'" +
                (req.has_header("Content-Type")
                     ? std::string(", not '") + req.get_header_value("Content-Type") + "'"
                     : std::string());
    send_error(res, e);
    return true;
  }
  return false;
}

std::string status_message(int status) {
  switch (status) {
    case 404: return "Unknown route";
    case 413: return "The request body is too large";
    case 400: return "Bad request";
    default: return "HTTP error " + std::to_string(status);
  }
}

}  // namespace

void install_routes(Server::Impl& impl) {
  httplib::Server& http = impl.http;
  Server::Impl* srv = &impl;
  if (impl.options.cors) {
    http.set_default_headers({{"Access-Control-Allow-Origin", "*"},
                              {"Access-Control-Allow-Headers", "Authorization, Content-Type"},
                              {"Access-Control-Allow-Methods", "GET, POST, OPTIONS"}});
  }
  // Before the body is read: a refusal here closes the connection after its answer (the
  // unread body must not be taken for the next request).
  http.set_pre_routing_handler([srv](const httplib::Request& req, httplib::Response& res) {
    begin_notes();
    if (!refused_before_body(*srv, req, res)) return httplib::Server::HandlerResponse::Unhandled;
    if (res.status >= 400) {
      res.set_header("Connection", "close");
      close_connection_after_response();
    }
    return httplib::Server::HandlerResponse::Handled;
  });
  // Statuses httplib sets itself (404 unknown route, 413 body too large, 400 bad request
  // line) get OpenAI's error body; the routes' own errors already have one.
  http.set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        ApiError e;
        e.status = res.status;
        e.message = status_message(res.status);
        if (res.status == 404) e.message += ": " + req.method + " " + req.path;
        if (res.status == 404) e.code = "unknown_url";
        send_error(res, e);
        return httplib::Server::HandlerResponse::Handled;
      }));
  // Once each answer is written (a stream's last event included): its record, and the
  // notes cleared for the connection's next request.
  http.set_logger([srv](const httplib::Request& req, const httplib::Response& res) {
    srv->log.add(request_record(req, res, t_notes, srv->log_message_text.load()));
    t_notes = RequestNotes{};
  });
  http.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        send_error(res, server_error(500, "internal error", "internal_error"));
      });

  // The sessions' context: n_ctx asked for, else the model's training context (Session).
  const int64_t context =
      impl.options.session.n_ctx > 0 ? impl.options.session.n_ctx : impl.model->info().n_ctx_train;
  http.Get("/v1/models", [srv, context](const httplib::Request&, httplib::Response& res) {
    res.set_content(models_body(srv->options.model_id, srv->started_unix, context), kJson);
  });
  http.Get(R"(/v1/models/(.+))",
           [srv, context](const httplib::Request& req, httplib::Response& res) {
             if (req.matches[1] != srv->options.model_id) {
               ApiError e;
               e.status = 404;
               e.param = "model";
               e.code = "model_not_found";
               e.message = "The model '" + std::string(req.matches[1]) + "' does not exist";
               return send_error(res, e);
             }
             res.set_content(model_body(srv->options.model_id, srv->started_unix, context), kJson);
           });
  http.Post("/v1/chat/completions", [srv](const httplib::Request& req, httplib::Response& res) {
    handle_completion(*srv, req, res, Endpoint::ChatCompletions);
  });
  http.Post("/v1/completions", [srv](const httplib::Request& req, httplib::Response& res) {
    handle_completion(*srv, req, res, Endpoint::Completions);
  });
  http.Get("/health", [srv](const httplib::Request& req, httplib::Response& res) {
    std::string problem;
    if (auto w = srv->model->check_weights(); !w) problem = w.message();
    if (!problem.empty()) res.status = 503;
    // The pre-routing check let a request without Authorization through (only here).
    const std::string& key = srv->options.api_key;
    if (key.empty() || !authorized(req.get_header_value("Authorization"), key)) {
      res.set_content(liveness_json(*srv, problem).dump(), kJson);
      return;
    }
    ServerStats stats = collect_stats(*srv);
    stats.sessions =
        with_clients(*srv, srv->pool->stats_for(client_identity(key, req.remote_addr)));
    res.set_content(health_json(*srv, stats, problem).dump(), kJson);
  });
}

}  // namespace kvchat::server

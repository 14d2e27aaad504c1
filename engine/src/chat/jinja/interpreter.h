// The tree-walking evaluator: renders a parsed Template against a set of variables.
// Render-time problems (raise_exception, type errors, undefined access, limits) are
// thrown as RenderError and turned into Error results by ChatTemplate.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "chat/jinja/ast.h"
#include "chat/jinja/value.h"

namespace kvchat::jinja {

// Variables visible at one level; lookups walk up to the parent.
struct Scope {
  std::unordered_map<std::string, Value> vars;
  std::shared_ptr<Scope> parent;

  const Value* find(const std::string& name) const;
};

// Bounds that keep a hostile template from hanging or exhausting memory or the stack.
struct RenderLimits {
  std::int64_t max_steps = 2'000'000;        // statements + loop iterations + calls (~1 s)
  std::size_t max_output_bytes = 16u << 20;  // also bounds any one string value
  int max_call_depth = 64;                   // nested macro calls (fits a 512 KiB thread stack)
};

class Interpreter {
 public:
  // `now_unix_seconds` is what strftime_now() formats (local time).
  Interpreter(const Template& tpl, std::int64_t now_unix_seconds, RenderLimits limits = {});

  // Renders with `variables` visible at the top level (beside the globals).
  std::string render(const std::unordered_map<std::string, Value>& variables);

  // For the builtins.
  Value call(const Value& callee, const CallArgs& args);
  Value filter(const std::string& name, const Value& operand, const CallArgs& args);
  bool test(const std::string& name, const Value& operand, const CallArgs& args);
  Value get_attr(const Value& obj, const std::string& name);
  Value get_item(const Value& obj, const Value& key);
  std::int64_t now_unix_seconds() const { return now_; }
  const RenderLimits& limits() const { return limits_; }
  void charge(std::int64_t steps = 1);
  void check_size(std::size_t bytes) const;

 private:
  enum class Flow { Normal, Break, Continue };
  using ScopePtr = std::shared_ptr<Scope>;

  Flow exec_body(const Body& body, const ScopePtr& scope, std::string& out);
  Flow exec(const Node& node, const ScopePtr& scope, std::string& out);
  void exec_for(const Node& node, const ScopePtr& scope, std::string& out);
  void exec_set(const Node& node, const ScopePtr& scope, Value value);
  Value make_macro(const Node& node, const ScopePtr& scope);
  Value eval(const Expr& e, const ScopePtr& scope);
  Value eval_binary(const Expr& e, const ScopePtr& scope);
  CallArgs eval_args(const Expr& e, size_t first, const ScopePtr& scope);
  Value lookup(const std::string& name, const ScopePtr& scope) const;

  const Template& tpl_;
  std::int64_t now_;
  RenderLimits limits_;
  std::int64_t steps_ = 0;
  int call_depth_ = 0;
  ScopePtr globals_;
  Value block_value_;  // the body text of a filter block or set block being filtered
};

// Python's list(x) for a for loop: list items, dict keys, string characters; undefined
// iterates as empty. Throws RenderError for what Python cannot iterate.
std::vector<Value> iterate(const Value& v);

// Python binary operators (+ - * / // % ** ~ == != < > <= >= in) on values.
Value binary_op(const std::string& op, const Value& a, const Value& b, const Interpreter& in);

// Throws "'<name>' is undefined" style errors for an undefined value used as an object.
[[noreturn]] void fail_undefined(const Value& v);

}  // namespace kvchat::jinja

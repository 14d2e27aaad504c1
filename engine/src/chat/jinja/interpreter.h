// The tree-walking evaluator: renders a parsed Template against a set of variables.
// Render-time problems (raise_exception, type errors, undefined access, limits) are
// thrown as RenderError and turned into Error results by ChatTemplate.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "chat/jinja/ast.h"
#include "chat/jinja/value.h"

namespace kvchat::jinja {

// Variables visible at one level; lookups walk up to the parent.
struct Scope {
  std::unordered_map<std::string, Value> vars;
  std::shared_ptr<Scope> parent;

  const Value* find(const std::string& name) const;
};

#ifndef KVCHAT_JINJA_MAX_STEPS
#define KVCHAT_JINJA_MAX_STEPS 2'000'000
#endif
#ifndef KVCHAT_JINJA_MAX_SECONDS
#define KVCHAT_JINJA_MAX_SECONDS 5.0
#endif
#ifndef KVCHAT_JINJA_MAX_VALUE_BYTES
#define KVCHAT_JINJA_MAX_VALUE_BYTES (64u << 20)
#endif

// Bounds that keep a hostile template from hanging or exhausting memory or the stack.
struct RenderLimits {
  // statements + loop iterations + calls (~0.2 s in a Release build). The fuzz
  // build lowers it: sanitizers and coverage make each step ~40 times slower.
  std::int64_t max_steps = KVCHAT_JINJA_MAX_STEPS;
  std::size_t max_output_bytes = 16u << 20;  // also bounds any one string value
  // Wall time, a backstop for steps made slow by big values (every use of a 16 MiB
  // string copies it); real templates render in milliseconds.
  double max_seconds = KVCHAT_JINJA_MAX_SECONDS;
  int max_call_depth = 64;  // nested macro calls (fits a 512 KiB thread stack)
  // All the strings, lists, dicts and functions alive at once, plus the text being
  // output (see value_budget.h); real templates peak below 1 MiB.
  std::size_t max_value_bytes = KVCHAT_JINJA_MAX_VALUE_BYTES;
};

struct OutputBuffer;

class Interpreter {
 public:
  // `now_unix_seconds` is what strftime_now() formats (local time).
  Interpreter(const Template& tpl, std::int64_t now_unix_seconds, RenderLimits limits = {});
  // Empties every namespace the template assigned into: `{% set ns.x = ns %}` makes a
  // cycle that reference counting alone would never free.
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

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
  // What the values of the last render took: peak() is the most alive at once.
  const ValueBudget& budget() const { return budget_; }
  void charge(std::int64_t steps = 1);
  void check_size(std::size_t bytes) const;

 private:
  enum class Flow { Normal, Break, Continue };
  using ScopePtr = std::shared_ptr<Scope>;

  Flow exec_body(const Body& body, const ScopePtr& scope, OutputBuffer& out);
  Flow exec(const Node& node, const ScopePtr& scope, OutputBuffer& out);
  void exec_for(const Node& node, const ScopePtr& scope, OutputBuffer& out);
  void exec_set(const Node& node, const ScopePtr& scope, Value value);
  Value make_macro(const Node& node, const ScopePtr& scope);
  Value eval(const Expr& e, const ScopePtr& scope);
  Value eval_binary(const Expr& e, const ScopePtr& scope);
  CallArgs eval_args(const Expr& e, size_t first, const ScopePtr& scope);
  Value lookup(const std::string& name, const ScopePtr& scope) const;

  // First, so that it outlives every value charged to it (they die with the scopes,
  // block_value_ and the namespaces below).
  ValueBudget budget_;
  const Template& tpl_;
  std::int64_t now_;
  RenderLimits limits_;
  std::int64_t steps_ = 0;
  std::int64_t charges_ = 0;  // calls of charge(), to look at the clock
  int call_depth_ = 0;
  std::vector<Value> assigned_namespaces_;  // each once, emptied by the destructor
  std::unordered_set<const DictObject*> assigned_namespace_set_;
  ScopePtr globals_;
  Value block_value_;  // the body text of a filter block or set block being filtered
};

// The items of an iterable, held as a list value: a list's own items (shared, not
// copied), a dict's keys, a string's characters, an iterator's remaining items.
class Items {
 public:
  explicit Items(Value list) : list_(std::move(list)) {}
  std::vector<Value>::const_iterator begin() const { return list_.items().begin(); }
  std::vector<Value>::const_iterator end() const { return list_.items().end(); }
  size_t size() const { return list_.items().size(); }
  bool empty() const { return list_.items().empty(); }
  const Value& operator[](size_t i) const { return list_.items()[i]; }
  const Value& front() const { return list_.items().front(); }
  const Value& back() const { return list_.items().back(); }
  const std::vector<Value>& vector() const { return list_.items(); }
  const Value& list() const { return list_; }

 private:
  Value list_;
};

// Python's list(x) for a for loop: list items, dict keys, string characters; undefined
// iterates as empty. Throws RenderError for what Python cannot iterate.
Items iterate(const Value& v);

// Python binary operators (+ - * / // % ** ~ == != < > <= >= in) on values.
Value binary_op(const std::string& op, const Value& a, const Value& b, const Interpreter& in);

// Throws "'<name>' is undefined" style errors for an undefined value used as an object.
[[noreturn]] void fail_undefined(const Value& v);

}  // namespace kvchat::jinja

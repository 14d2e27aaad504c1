// Statements and expressions, with jinja2's scoping: a for loop iteration, a macro
// call and a with block get their own scope; if blocks do not. `set` assigns in the
// innermost scope, so what a loop body sets is gone after the loop (use namespace()).
#include "chat/jinja/interpreter.h"

#include <algorithm>

#include "chat/jinja/builtins.h"
#include "tokenizer/utf8.h"
#include "util/printable.h"

namespace kvchat::jinja {

// Text being rendered (the output, a macro's or a block's body), charged to the budget
// before it grows: 64 nested macro calls each holding 16 MiB would otherwise take 1 GiB
// that no value accounts for.
struct OutputBuffer {
  std::string text;
  Charge charge;

  void append_text(std::string_view s, const Interpreter& in) {
    const size_t size = text.size() + s.size();
    in.check_size(size);
    if (size > text.capacity()) {
      const size_t grown = std::max(size, 2 * text.capacity());
      charge.add(grown - text.capacity());
      text.reserve(grown);
    }
    text += s;
  }
  void append_value(const Value& v, const Interpreter& in) {
    if (v.is_string())
      append_text(v.as_string(), in);
    else
      append_text(v.str(), in);
  }
};

const Value* Scope::find(const std::string& name) const {
  for (const Scope* s = this; s; s = s->parent.get()) {
    const auto it = s->vars.find(name);
    if (it != s->vars.end()) return &it->second;
  }
  return nullptr;
}

void fail_undefined(const Value& v) {
  throw RenderError(v.undefined_hint().empty() ? "value is undefined" : v.undefined_hint());
}

Interpreter::Interpreter(const Template& tpl, std::int64_t now_unix_seconds, RenderLimits limits)
    : budget_(limits.max_value_bytes, limits.max_output_bytes, limits.max_seconds),
      tpl_(tpl),
      now_(now_unix_seconds),
      limits_(limits),
      globals_(std::make_shared<Scope>()) {
  install_globals(*globals_);
}

Interpreter::~Interpreter() {
  for (const Value& ns : assigned_namespaces_) ns.dict_obj().items.clear();
}

void Interpreter::charge(std::int64_t steps) {
  steps_ += steps;
  if (steps_ > limits_.max_steps)
    throw RenderError("template exceeded the step limit (endless loop?)");
  if (++charges_ % 16 == 0) budget_.check_deadline();
}

void Interpreter::check_size(std::size_t bytes) const { budget_.check_string(bytes); }

std::string Interpreter::render(const std::unordered_map<std::string, Value>& variables) {
  const ValueBudget::Active active(budget_);
  auto root = std::make_shared<Scope>();
  root->parent = globals_;
  root->vars = variables;
  OutputBuffer out;
  exec_body(tpl_.body, root, out);
  return std::move(out.text);
}

Value Interpreter::lookup(const std::string& name, const ScopePtr& scope) const {
  if (const Value* v = scope->find(name)) return *v;
  return Value::undefined("'" + name + "' is undefined");
}

Interpreter::Flow Interpreter::exec_body(const Body& body, const ScopePtr& scope,
                                         OutputBuffer& out) {
  for (const NodePtr& n : body) {
    const Flow f = exec(*n, scope, out);
    if (f != Flow::Normal) return f;
  }
  return Flow::Normal;
}

Interpreter::Flow Interpreter::exec(const Node& node, const ScopePtr& scope, OutputBuffer& out) {
  charge();
  switch (node.kind) {
    case Node::Kind::Text: out.append_text(node.text, *this); break;
    case Node::Kind::Output: out.append_value(eval(*node.expr, scope), *this); break;
    case Node::Kind::If:
      for (const auto& [cond, body] : node.branches) {
        if (!cond || eval(*cond, scope).truthy()) return exec_body(body, scope, out);
      }
      break;
    case Node::Kind::For: exec_for(node, scope, out); break;
    case Node::Kind::Set: exec_set(node, scope, eval(*node.expr, scope)); break;
    case Node::Kind::SetBlock: {
      OutputBuffer text;
      exec_body(node.body, scope, text);
      Value v(std::move(text.text));
      if (node.filter) {
        block_value_ = v;
        v = eval(*node.filter, scope);
      }
      scope->vars[node.targets[0]] = std::move(v);
      break;
    }
    case Node::Kind::Macro: scope->vars[node.text] = make_macro(node, scope); break;
    case Node::Kind::CallBlock: {
      // The called macro gets `caller`, a macro whose body is this block's body.
      const Expr& call = *node.expr;
      Value callee = eval(*call.children[0], scope);
      CallArgs args = eval_args(call, 1, scope);
      args.keyword.emplace_back("caller", make_macro(node, scope));
      out.append_value(this->call(callee, args), *this);
      break;
    }
    case Node::Kind::FilterBlock: {
      OutputBuffer text;
      exec_body(node.body, scope, text);
      block_value_ = Value(std::move(text.text));
      out.append_value(eval(*node.filter, scope), *this);
      break;
    }
    case Node::Kind::With: {
      auto inner = std::make_shared<Scope>();
      inner->parent = scope;
      for (const auto& [name, expr] : node.params) inner->vars[name] = eval(*expr, scope);
      return exec_body(node.body, inner, out);
    }
    case Node::Kind::Break: return Flow::Break;
    case Node::Kind::Continue: return Flow::Continue;
    case Node::Kind::Scope: return exec_body(node.body, scope, out);
  }
  return Flow::Normal;
}

Items iterate(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Undefined: return Items(Value::list());
    case Value::Kind::List:
      if (v.is_iterator()) {  // consumed by iterating, as a Python generator is
        std::vector<Value> items;
        items.swap(v.list_obj().items);
        return Items(Value::list(std::move(items)));
      }
      return Items(v);
    case Value::Kind::Dict: {
      std::vector<Value> keys;
      keys.reserve(v.dict_obj().items.size());
      for (const auto& [k, val] : v.dict_obj().items) keys.push_back(k);
      return Items(Value::list(std::move(keys)));
    }
    case Value::Kind::String: {
      // One value per character: the slots are bounded (and charged) before they are made.
      const std::string& s = v.as_string();
      const size_t n = static_cast<size_t>(v.length());
      check_string_size(n * sizeof(Value));
      std::vector<Value> chars;
      {
        const Charge scratch(s.size() * sizeof(char32_t) + n * sizeof(Value));
        chars.reserve(n);
        std::string one;
        for (char32_t cp : utf8_decode(s)) {
          one.clear();
          utf8::append_code_point(one, cp);
          chars.emplace_back(one);
        }
      }
      return Items(Value::list(std::move(chars)));
    }
    default: throw RenderError("'" + v.type_name() + "' object is not iterable");
  }
}

namespace {

void bind_targets(Scope& scope, const std::vector<std::string>& targets, const Value& item) {
  if (targets.size() == 1) {
    scope.vars[targets[0]] = item;
    return;
  }
  const Items parts = iterate(item);
  if (parts.size() != targets.size()) {
    throw RenderError("cannot unpack " + std::to_string(parts.size()) + " values into " +
                      std::to_string(targets.size()) + " names");
  }
  for (size_t i = 0; i < targets.size(); ++i) scope.vars[targets[i]] = parts[i];
}

}  // namespace

void Interpreter::exec_for(const Node& node, const ScopePtr& scope, OutputBuffer& out) {
  Items items = iterate(eval(*node.expr, scope));
  if (node.filter) {
    std::vector<Value> kept;
    for (const Value& item : items) {
      charge();
      auto probe = std::make_shared<Scope>();
      probe->parent = scope;
      bind_targets(*probe, node.targets, item);
      if (eval(*node.filter, probe).truthy()) kept.push_back(item);
    }
    items = Items(Value::list(std::move(kept)));
  }
  if (items.empty()) {
    exec_body(node.else_body, scope, out);
    return;
  }
  const auto n = static_cast<std::int64_t>(items.size());
  const Value* outer_loop = scope->find("loop");
  const std::int64_t depth =
      outer_loop && outer_loop->is_dict() && outer_loop->dict_obj().find("depth")
          ? outer_loop->dict_obj().find("depth")->as_int() + 1
          : 1;
  for (std::int64_t i = 0; i < n; ++i) {
    charge();
    auto iteration = std::make_shared<Scope>();
    iteration->parent = scope;
    const Value& item = items[static_cast<size_t>(i)];
    bind_targets(*iteration, node.targets, item);
    Value loop = Value::dict();
    DictObject& d = loop.dict_obj();
    d.set("index", Value(i + 1));
    d.set("index0", Value(i));
    d.set("revindex", Value(n - i));
    d.set("revindex0", Value(n - i - 1));
    d.set("first", Value(i == 0));
    d.set("last", Value(i == n - 1));
    d.set("length", Value(n));
    d.set("depth", Value(depth));
    d.set("depth0", Value(depth - 1));
    if (i > 0) d.set("previtem", items[static_cast<size_t>(i - 1)]);
    if (i + 1 < n) d.set("nextitem", items[static_cast<size_t>(i + 1)]);
    d.set("cycle", Value::function("cycle", [i](Interpreter&, const CallArgs& args) -> Value {
            if (args.positional.empty()) throw RenderError("no items for cycling given");
            return args.positional[static_cast<size_t>(i) % args.positional.size()];
          }));
    iteration->vars["loop"] = std::move(loop);
    if (exec_body(node.body, iteration, out) == Flow::Break) break;
  }
}

void Interpreter::exec_set(const Node& node, const ScopePtr& scope, Value value) {
  if (node.attribute_target) {
    const Value target = lookup(node.targets[0], scope);
    if (!target.is_dict() || !target.dict_obj().is_namespace)
      throw RenderError("cannot assign attribute on non-namespace object");
    if (assigned_namespace_set_.insert(&target.dict_obj()).second)
      assigned_namespaces_.push_back(target);
    target.dict_obj().set(Value(node.targets[1]), std::move(value));
    return;
  }
  if (node.targets.size() == 1) {
    scope->vars[node.targets[0]] = std::move(value);
    return;
  }
  bind_targets(*scope, node.targets, value);
}

Value Interpreter::make_macro(const Node& node, const ScopePtr& scope) {
  const Node* def = &node;
  std::weak_ptr<Scope> weak = scope;  // the defining scope owns the macro: no cycle
  return Value::function(
      node.kind == Node::Kind::Macro ? node.text : "caller",
      [def, weak](Interpreter& in, const CallArgs& args) -> Value {
        ScopePtr parent = weak.lock();
        if (!parent) throw RenderError("macro called after its scope ended");
        if (++in.call_depth_ > in.limits_.max_call_depth) {
          --in.call_depth_;
          throw RenderError("maximum macro recursion depth exceeded");
        }
        struct Leave {
          int& depth;
          ~Leave() { --depth; }
        } leave{in.call_depth_};
        in.charge();
        auto local = std::make_shared<Scope>();
        local->parent = parent;
        const auto& params = def->params;
        if (args.positional.size() > params.size())
          throw RenderError("macro '" + def->text + "' takes not more than " +
                            std::to_string(params.size()) + " argument(s)");
        std::vector<bool> bound(params.size(), false);
        for (size_t i = 0; i < args.positional.size(); ++i) {
          local->vars[params[i].first] = args.positional[i];
          bound[i] = true;
        }
        for (const auto& [key, value] : args.keyword) {
          size_t i = 0;
          while (i < params.size() && params[i].first != key) ++i;
          if (i == params.size()) {
            if (key == "caller") {
              local->vars[key] = value;
              continue;
            }
            throw RenderError("macro '" + def->text + "' takes no keyword argument '" +
                              printable(key) + "'");
          }
          local->vars[key] = value;
          bound[i] = true;
        }
        for (size_t i = 0; i < params.size(); ++i) {
          if (bound[i]) continue;
          local->vars[params[i].first] =
              params[i].second ? in.eval(*params[i].second, local)
                               : Value::undefined("'" + params[i].first + "' is undefined");
        }
        OutputBuffer out;
        in.exec_body(def->body, local, out);
        return Value(std::move(out.text));
      });
}

Value Interpreter::call(const Value& callee, const CallArgs& args) {
  if (callee.is_undefined()) fail_undefined(callee);
  if (!callee.is_function())
    throw RenderError("'" + callee.type_name() + "' object is not callable");
  charge();
  return callee.function_obj().call(*this, args);
}

Value Interpreter::filter(const std::string& name, const Value& operand, const CallArgs& args) {
  const FilterFn f = find_filter(name);
  if (!f) throw RenderError("no filter named '" + printable(name) + "'");
  charge();
  return f(*this, operand, args);
}

bool Interpreter::test(const std::string& name, const Value& operand, const CallArgs& args) {
  const TestFn t = find_test(name);
  if (!t) throw RenderError("no test named '" + printable(name) + "'");
  return t(*this, operand, args);
}

namespace {

// jinja2's message for a missing attribute or item: object_type_repr(obj) is "None" for
// None and "<type> object" otherwise; a string key is an attribute ('x' quoted, the type
// too), any other key an element.
Value missing_attribute(const Value& obj, const std::string& name) {
  const std::string type = obj.is_none() ? "None" : obj.type_name() + " object";
  return Value::undefined("'" + type + "' has no attribute " + repr_for_message(Value(name)));
}
Value missing_item(const Value& obj, const Value& key) {
  if (key.is_string()) return missing_attribute(obj, key.as_string());
  const std::string type = obj.is_none() ? "None" : obj.type_name() + " object";
  return Value::undefined(type + " has no element " + repr_for_message(key));
}

}  // namespace

Value Interpreter::get_attr(const Value& obj, const std::string& name) {
  switch (obj.kind()) {
    case Value::Kind::Undefined: fail_undefined(obj);
    case Value::Kind::Dict: {
      const DictObject& d = obj.dict_obj();
      if (!d.is_namespace) {
        Value m = find_method(obj, name);
        if (!m.is_undefined()) return m;
      }
      if (const Value* v = d.find(std::string_view(name))) return *v;
      return missing_attribute(obj, name);
    }
    case Value::Kind::String:
    case Value::Kind::List: {
      Value m = find_method(obj, name);
      if (!m.is_undefined()) return m;
      return missing_attribute(obj, name);
    }
    default: return missing_attribute(obj, name);
  }
}

namespace {

// A Python index into a sequence of `n`: negative counts from the end; -1 if outside.
std::int64_t resolve_index(const Value& key, std::int64_t n) {
  std::int64_t i = key.as_int();
  if (i < 0) i += n;
  return i < 0 || i >= n ? -1 : i;
}

}  // namespace

Value Interpreter::get_item(const Value& obj, const Value& key) {
  switch (obj.kind()) {
    case Value::Kind::Undefined: fail_undefined(obj);
    case Value::Kind::Dict: {
      if (const Value* v = obj.dict_obj().find(key)) return *v;
      if (key.is_string() && !obj.dict_obj().is_namespace) {
        Value m = find_method(obj, key.as_string());
        if (!m.is_undefined()) return m;
      }
      return missing_item(obj, key);
    }
    case Value::Kind::List:
      if (obj.is_iterator()) break;  // not subscriptable: undefined, as jinja2's getitem gives
      if (key.is_int() || key.is_bool()) {
        const std::int64_t i = resolve_index(key, obj.length());
        if (i >= 0) return obj.items()[static_cast<size_t>(i)];
        return Value::undefined(obj.type_name() + " object has no element " +
                                repr_for_message(key));
      }
      if (key.is_string()) return get_attr(obj, key.as_string());
      break;
    case Value::Kind::String:
      if (key.is_int() || key.is_bool()) {
        const Charge scratch(obj.as_string().size() * sizeof(char32_t));
        const std::u32string s = utf8_decode(obj.as_string());
        const std::int64_t i = resolve_index(key, static_cast<std::int64_t>(s.size()));
        if (i >= 0) return Value(utf8_encode(s.substr(static_cast<size_t>(i), 1)));
        return Value::undefined("str object has no element " + repr_for_message(key));
      }
      if (key.is_string()) return get_attr(obj, key.as_string());
      break;
    default: break;
  }
  return missing_item(obj, key);
}

namespace {

// Python slice indices for a sequence of length n.
std::vector<std::int64_t> slice_indices(std::int64_t n, const Value& start, const Value& stop,
                                        const Value& step) {
  const std::int64_t st = step.is_none() || step.is_undefined() ? 1 : step.as_int();
  if (st == 0) throw RenderError("slice step cannot be zero");
  auto clamp = [&](const Value& v, std::int64_t dflt) {
    if (v.is_none() || v.is_undefined()) return dflt;
    if (!v.is_int() && !v.is_bool()) throw RenderError("slice indices must be integers or None");
    std::int64_t i = v.as_int();
    if (i < 0) {
      i += n;
      if (i < 0) i = st < 0 ? -1 : 0;
    } else if (i >= n) {
      i = st < 0 ? n - 1 : n;
    }
    return i;
  };
  const std::int64_t a = clamp(start, st < 0 ? n - 1 : 0);
  const std::int64_t b = clamp(stop, st < 0 ? -1 : n);
  std::vector<std::int64_t> idx;
  if (st > 0) {
    for (std::int64_t i = a; i < b; i += st) idx.push_back(i);
  } else {
    for (std::int64_t i = a; i > b; i += st) idx.push_back(i);
  }
  return idx;
}

}  // namespace

CallArgs Interpreter::eval_args(const Expr& e, size_t first, const ScopePtr& scope) {
  CallArgs args;
  for (size_t i = first; i < e.children.size(); ++i)
    args.positional.push_back(eval(*e.children[i], scope));
  for (const auto& [k, v] : e.kwargs) {
    Value value = eval(*v, scope);
    if (k == "*") {  // f(*list)
      for (const Value& item : iterate(value)) args.positional.push_back(item);
    } else if (k == "**") {  // f(**dict)
      if (!value.is_dict())
        throw RenderError("argument after ** must be a mapping, not " + value.type_name());
      for (const auto& [key, item] : value.dict_obj().items)
        args.keyword.emplace_back(key.str(), item);
    } else {
      args.keyword.emplace_back(k, std::move(value));
    }
  }
  return args;
}

Value Interpreter::eval(const Expr& e, const ScopePtr& scope) {
  switch (e.kind) {
    case Expr::Kind::Literal: return e.literal;
    case Expr::Kind::Name: return lookup(e.name, scope);
    case Expr::Kind::List:
    case Expr::Kind::Tuple: {
      std::vector<Value> items;
      for (const auto& c : e.children) items.push_back(eval(*c, scope));
      return Value::list(std::move(items), e.kind == Expr::Kind::Tuple);
    }
    case Expr::Kind::Dict: {
      Value d = Value::dict();
      for (size_t i = 0; i + 1 < e.children.size(); i += 2)
        d.dict_obj().set(eval(*e.children[i], scope), eval(*e.children[i + 1], scope));
      return d;
    }
    case Expr::Kind::GetAttr: return get_attr(eval(*e.children[0], scope), e.name);
    case Expr::Kind::GetItem:
      return get_item(eval(*e.children[0], scope), eval(*e.children[1], scope));
    case Expr::Kind::Slice: {
      const Value obj = eval(*e.children[0], scope);
      Value parts[3];
      for (int k = 0; k < 3; ++k)
        parts[k] = e.children[static_cast<size_t>(k) + 1]
                       ? eval(*e.children[static_cast<size_t>(k) + 1], scope)
                       : Value::none();
      if (obj.is_undefined()) fail_undefined(obj);
      if (obj.is_string()) {
        // The code points, the indices and the result's code points.
        const Charge scratch(obj.as_string().size() *
                             (2 * sizeof(char32_t) + sizeof(std::int64_t)));
        const std::u32string s = utf8_decode(obj.as_string());
        std::u32string r;
        for (std::int64_t i :
             slice_indices(static_cast<std::int64_t>(s.size()), parts[0], parts[1], parts[2]))
          r += s[static_cast<size_t>(i)];
        return Value(utf8_encode(r));
      }
      if (obj.is_list() && !obj.is_iterator()) {
        const Charge scratch(obj.items().size() * sizeof(std::int64_t));
        std::vector<Value> r;
        for (std::int64_t i : slice_indices(obj.length(), parts[0], parts[1], parts[2]))
          r.push_back(obj.items()[static_cast<size_t>(i)]);
        return Value::list(std::move(r), obj.list_obj().is_tuple);
      }
      return Value::undefined("'" + obj.type_name() + "' object is not subscriptable");
    }
    case Expr::Kind::Call: {
      const Value callee = eval(*e.children[0], scope);
      return call(callee, eval_args(e, 1, scope));
    }
    case Expr::Kind::Filter: {
      const Value operand = e.children[0] ? eval(*e.children[0], scope) : block_value_;
      return filter(e.name, operand, eval_args(e, 1, scope));
    }
    case Expr::Kind::Test: {
      const Value operand = eval(*e.children[0], scope);
      const bool r = test(e.name, operand, eval_args(e, 1, scope));
      return Value(e.negated ? !r : r);
    }
    case Expr::Kind::Unary: {
      const Value v = eval(*e.children[0], scope);
      if (e.name == "not") return Value(!v.truthy());
      if (v.is_undefined()) fail_undefined(v);
      if (!v.is_number())
        throw RenderError("bad operand type for unary " + e.name + ": '" + v.type_name() + "'");
      if (e.name == "+") return v.is_bool() ? Value(v.as_int()) : v;
      return v.is_float() ? Value(-v.as_double()) : Value(-v.as_int());
    }
    case Expr::Kind::Binary: return eval_binary(e, scope);
    case Expr::Kind::Compare: {
      Value left = eval(*e.children[0], scope);
      for (const auto& [op, expr] : e.kwargs) {
        Value right = eval(*expr, scope);
        if (!binary_op(op, left, right, *this).truthy()) return Value(false);
        left = std::move(right);
      }
      return Value(true);
    }
    case Expr::Kind::Conditional: {
      if (eval(*e.children[1], scope).truthy()) return eval(*e.children[0], scope);
      if (e.children[2]) return eval(*e.children[2], scope);
      return Value::undefined(
          "the inline if expression evaluated to false and no else section was defined");
    }
  }
  return Value();
}

Value Interpreter::eval_binary(const Expr& e, const ScopePtr& scope) {
  const Value a = eval(*e.children[0], scope);
  if (e.name == "and") return a.truthy() ? eval(*e.children[1], scope) : a;
  if (e.name == "or") return a.truthy() ? a : eval(*e.children[1], scope);
  const Value b = eval(*e.children[1], scope);
  return binary_op(e.name, a, b, *this);
}

}  // namespace kvchat::jinja

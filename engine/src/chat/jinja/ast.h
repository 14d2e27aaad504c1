// The parsed template: expression and statement trees. Immutable once parsed.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "chat/jinja/value.h"

namespace kvchat::jinja {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  enum class Kind {
    Literal,      // literal
    Name,         // name
    List,         // [children...]
    Tuple,        // (children...)
    Dict,         // {children[0]: children[1], ...}
    GetAttr,      // children[0].name
    GetItem,      // children[0][children[1]]
    Slice,        // children[0][children[1]:children[2]:children[3]] (null parts omitted)
    Call,         // children[0](children[1..], kwargs); a kwarg named "*" / "**" is *list / **dict
    Filter,       // children[0] | name(children[1..], kwargs); children[0] null in filter blocks
    Test,         // children[0] is [not] name(children[1..], kwargs)
    Unary,        // name children[0], name in {not, -, +}
    Binary,       // children[0] name children[1]
    Conditional,  // children[0] if children[1] else children[2] (children[2] may be null)
    Compare,      // children[0] kwargs[0].first kwargs[0].second kwargs[1].first ... (a chain)
  };
  Kind kind = Kind::Literal;
  int line = 0, column = 0;
  Value literal;
  std::string name;
  std::vector<ExprPtr> children;
  std::vector<std::pair<std::string, ExprPtr>> kwargs;
  bool negated = false;  // Test: `is not`

  Expr() = default;
  // Frees the subtree without recursion: an operator chain such as 1+1+...+1 is a
  // tree as deep as it is long (the parser refuses trees deeper than
  // kMaxExprDepth, after building them).
  ~Expr();
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;
};

// The deepest expression tree the parser accepts: the interpreter evaluates one
// level per call frame.
inline constexpr int kMaxExprDepth = 200;

struct Node;
using NodePtr = std::unique_ptr<Node>;
using Body = std::vector<NodePtr>;

struct Node {
  enum class Kind {
    Text,         // text
    Output,       // {{ expr }}
    If,           // branches: (condition, body)..., a null condition is else
    For,          // for targets in expr [if filter] body [else else_body]
    Set,          // set targets = expr; attribute: set targets[0].targets[1] = expr
    SetBlock,     // set targets[0] [| filter] body endset
    Macro,        // macro name(params) body
    CallBlock,    // call[(params)] expr body endcall: `caller()` renders body
    FilterBlock,  // filter filter body endfilter
    With,         // with params body
    Break,
    Continue,
    Scope,  // a block that only groups its body (generation)
  };
  Kind kind = Kind::Text;
  int line = 0, column = 0;
  std::string text;  // Text; Macro name
  ExprPtr expr;      // Output, Set value, For iterable, CallBlock call
  ExprPtr filter;    // For condition; SetBlock/FilterBlock filter chain (base child null)
  std::vector<std::string> targets;
  bool attribute_target = false;
  std::vector<std::pair<ExprPtr, Body>> branches;
  Body body, else_body;
  std::vector<std::pair<std::string, ExprPtr>>
      params;  // Macro/CallBlock params (default may be null); With
};

struct Template {
  Body body;
};

}  // namespace kvchat::jinja

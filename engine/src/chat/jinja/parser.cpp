// Recursive-descent parser with jinja2's operator precedence:
//   conditional < or < and < not < comparisons/in < + - < ~ < * / // % < ** < unary -
// and postfix (.attr [item] (call)) binding tighter than filters and tests.
#include "chat/jinja/parser.h"

#include <algorithm>
#include <initializer_list>

#include "chat/jinja/lexer.h"
#include "util/printable.h"

namespace kvchat::jinja {
namespace {

constexpr int kMaxNesting = 100;

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  std::shared_ptr<const Template> run() {
    auto tpl = std::make_shared<Template>();
    std::string end;
    tpl->body = parse_body({}, end);
    check_expr_depth(tpl->body);
    return tpl;
  }

 private:
  // ---- token helpers ----
  const Token& cur() const { return t_[i_]; }
  const Token& peek(size_t n = 1) const { return t_[std::min(i_ + n, t_.size() - 1)]; }
  Token next() { return t_[i_ < t_.size() - 1 ? i_++ : i_]; }

  [[noreturn]] void fail(const Token& at, const std::string& what) const {
    throw SyntaxError(at_position(at.line, at.column, what));
  }

  // Operator chains (a + b + c, x.y.z, x | f | g) are built by loops, not
  // recursion, so their trees can be as deep as the template is long; the
  // interpreter would overflow its stack on them. Measured without recursion.
  static void check_expr_depth(const Expr* root) {
    if (root == nullptr) return;
    std::vector<std::pair<const Expr*, int>> pending = {{root, 1}};
    while (!pending.empty()) {
      const auto [e, depth] = pending.back();
      pending.pop_back();
      if (depth > kMaxExprDepth) {
        throw SyntaxError(at_position(e->line, e->column,
                                      "expression nested too deeply (more than " +
                                          std::to_string(kMaxExprDepth) + " levels)"));
      }
      for (const ExprPtr& c : e->children) {
        if (c) pending.emplace_back(c.get(), depth + 1);
      }
      for (const auto& kv : e->kwargs) {
        if (kv.second) pending.emplace_back(kv.second.get(), depth + 1);
      }
    }
  }
  // Statement nesting is bounded by DepthGuard, so this recursion is shallow.
  static void check_expr_depth(const Body& body) {
    for (const NodePtr& n : body) {
      check_expr_depth(n->expr.get());
      check_expr_depth(n->filter.get());
      for (const auto& [cond, branch] : n->branches) {
        check_expr_depth(cond.get());
        check_expr_depth(branch);
      }
      check_expr_depth(n->body);
      check_expr_depth(n->else_body);
      for (const auto& param : n->params) check_expr_depth(param.second.get());
    }
  }

  bool is_op(const char* op) const { return cur().type == TokenType::Op && cur().text == op; }
  bool is_name(const char* name) const {
    return cur().type == TokenType::Name && cur().text == name;
  }
  bool accept_op(const char* op) {
    if (!is_op(op)) return false;
    ++i_;
    return true;
  }
  bool accept_name(const char* name) {
    if (!is_name(name)) return false;
    ++i_;
    return true;
  }
  static std::string describe(const Token& t) {
    switch (t.type) {
      case TokenType::End: return "end of template";
      case TokenType::BlockEnd: return "'%}'";
      case TokenType::VarEnd: return "'}}'";
      case TokenType::BlockBegin: return "'{%'";
      case TokenType::VarBegin: return "'{{'";
      case TokenType::String: return "string";
      case TokenType::Text: return "template text";
      default: return "'" + printable(t.text) + "'";
    }
  }
  void expect_op(const char* op) {
    if (!accept_op(op)) fail(cur(), std::string("expected '") + op + "', got " + describe(cur()));
  }
  std::string expect_name() {
    if (cur().type != TokenType::Name) fail(cur(), "expected a name, got " + describe(cur()));
    return next().text;
  }
  void expect_block_end() {
    if (cur().type != TokenType::BlockEnd) fail(cur(), "expected '%}', got " + describe(cur()));
    ++i_;
  }

  struct DepthGuard {
    DepthGuard(Parser& p, const Token& at) : p_(p) {
      if (++p_.depth_ > kMaxNesting) p_.fail(at, "template nested too deeply");
    }
    ~DepthGuard() { --p_.depth_; }
    Parser& p_;
  };

  ExprPtr make(Expr::Kind kind, const Token& at) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->line = at.line;
    e->column = at.column;
    return e;
  }

  // ---- statements ----
  Body parse_body(std::initializer_list<const char*> ends, std::string& which) {
    Body body;
    while (true) {
      const Token& tok = cur();
      if (tok.type == TokenType::End) {
        if (ends.size() == 0) return body;
        fail(tok,
             std::string("unexpected end of template, expected '") + *std::prev(ends.end()) + "'");
      }
      if (tok.type == TokenType::Text) {
        auto n = std::make_unique<Node>();
        n->kind = Node::Kind::Text;
        n->text = tok.text;
        ++i_;
        body.push_back(std::move(n));
      } else if (tok.type == TokenType::VarBegin) {
        ++i_;
        auto n = std::make_unique<Node>();
        n->kind = Node::Kind::Output;
        n->line = tok.line;
        n->column = tok.column;
        n->expr = parse_tuple_or_expression();
        if (cur().type != TokenType::VarEnd) fail(cur(), "expected '}}', got " + describe(cur()));
        ++i_;
        body.push_back(std::move(n));
      } else if (tok.type == TokenType::BlockBegin) {
        const Token& name = peek();
        if (name.type != TokenType::Name) fail(name, "expected a tag name, got " + describe(name));
        for (const char* end : ends) {
          if (name.text == end) {
            i_ += 2;
            which = end;
            return body;
          }
        }
        ++i_;
        body.push_back(parse_statement());
      } else {
        fail(tok, "unexpected " + describe(tok));
      }
    }
  }

  NodePtr parse_statement() {
    const Token tag = next();
    DepthGuard guard(*this, tag);
    auto n = std::make_unique<Node>();
    n->line = tag.line;
    n->column = tag.column;
    const std::string& name = tag.text;
    std::string end;
    if (name == "if") {
      parse_if(*n);
    } else if (name == "for") {
      parse_for(*n);
    } else if (name == "set") {
      parse_set(*n);
    } else if (name == "macro") {
      n->kind = Node::Kind::Macro;
      n->text = expect_name();
      parse_params(n->params);
      expect_block_end();
      n->body = parse_body({"endmacro"}, end);
      if (cur().type == TokenType::Name) ++i_;  // {% endmacro name %}
      expect_block_end();
    } else if (name == "call") {
      n->kind = Node::Kind::CallBlock;
      if (is_op("(")) parse_params(n->params);
      n->expr = parse_expression();
      if (n->expr->kind != Expr::Kind::Call) fail(tag, "expected a call in the call block");
      expect_block_end();
      n->body = parse_body({"endcall"}, end);
      expect_block_end();
    } else if (name == "filter") {
      n->kind = Node::Kind::FilterBlock;
      n->filter = parse_filter_chain(nullptr, false);
      expect_block_end();
      n->body = parse_body({"endfilter"}, end);
      expect_block_end();
    } else if (name == "with") {
      parse_with(*n);
    } else if (name == "break" || name == "continue") {
      n->kind = name == "break" ? Node::Kind::Break : Node::Kind::Continue;
      expect_block_end();
    } else if (name == "generation") {
      n->kind = Node::Kind::Scope;
      expect_block_end();
      n->body = parse_body({"endgeneration"}, end);
      expect_block_end();
    } else {
      fail(tag, "encountered unknown tag '" + printable(name) + "'");
    }
    return n;
  }

  // {% if cond %} ... {% elif cond %} ... {% else %} ... {% endif %}: one branch per
  // condition, the else branch with a null one.
  void parse_if(Node& n) {
    std::string end;
    n.kind = Node::Kind::If;
    ExprPtr cond = parse_expression();
    while (true) {
      expect_block_end();
      Body body = parse_body({"elif", "else", "endif"}, end);
      n.branches.emplace_back(std::move(cond), std::move(body));
      if (end == "elif") {
        cond = parse_expression();
        continue;
      }
      if (end == "else") {
        expect_block_end();
        n.branches.emplace_back(nullptr, parse_body({"endif"}, end));
      }
      expect_block_end();
      break;
    }
  }

  // {% for a, b in items if filter %} ... {% else %} ... {% endfor %}.
  void parse_for(Node& n) {
    std::string end;
    n.kind = Node::Kind::For;
    do {
      n.targets.push_back(expect_name());
    } while (accept_op(","));
    if (!accept_name("in")) fail(cur(), "expected 'in', got " + describe(cur()));
    n.expr = parse_tuple_or_expression(false);
    if (accept_name("if")) n.filter = parse_expression();
    if (is_name("recursive")) fail(cur(), "recursive loops are not supported");
    expect_block_end();
    n.body = parse_body({"else", "endfor"}, end);
    if (end == "else") {
      expect_block_end();
      n.else_body = parse_body({"endfor"}, end);
    }
    expect_block_end();
  }

  // {% set a = x %}, {% set a, b = x %}, {% set ns.attr = x %}, or the block form
  // {% set a | filters %} ... {% endset %}.
  void parse_set(Node& n) {
    std::string end;
    n.targets.push_back(expect_name());
    if (accept_op(".")) {
      n.attribute_target = true;
      n.targets.push_back(expect_name());
    } else {
      while (accept_op(",")) n.targets.push_back(expect_name());
    }
    if (accept_op("=")) {
      n.kind = Node::Kind::Set;
      n.expr = parse_tuple_or_expression();
      expect_block_end();
    } else {
      if (n.attribute_target || n.targets.size() != 1) fail(cur(), "expected '='");
      n.kind = Node::Kind::SetBlock;
      if (is_op("|")) n.filter = parse_filter_chain(nullptr);
      expect_block_end();
      n.body = parse_body({"endset"}, end);
      expect_block_end();
    }
  }

  // {% with a = x, b = y %} ... {% endwith %}.
  void parse_with(Node& n) {
    std::string end;
    n.kind = Node::Kind::With;
    while (cur().type == TokenType::Name) {
      std::string var = expect_name();
      expect_op("=");
      n.params.emplace_back(std::move(var), parse_expression());
      if (!accept_op(",")) break;
    }
    expect_block_end();
    n.body = parse_body({"endwith"}, end);
    expect_block_end();
  }

  void parse_params(std::vector<std::pair<std::string, ExprPtr>>& params) {
    expect_op("(");
    while (!is_op(")")) {
      std::string p = expect_name();
      ExprPtr def;
      if (accept_op("=")) def = parse_expression();
      params.emplace_back(std::move(p), std::move(def));
      if (!accept_op(",")) break;
    }
    expect_op(")");
  }

  // ---- expressions ----
  ExprPtr parse_tuple_or_expression(bool with_condexpr = true) {
    const Token start = cur();
    ExprPtr first = with_condexpr ? parse_expression() : parse_or();
    if (!is_op(",")) return first;
    auto tuple = make(Expr::Kind::Tuple, start);
    tuple->children.push_back(std::move(first));
    while (accept_op(",")) {
      if (cur().type == TokenType::VarEnd || cur().type == TokenType::BlockEnd || is_name("if"))
        break;
      tuple->children.push_back(with_condexpr ? parse_expression() : parse_or());
    }
    return tuple;
  }

  ExprPtr parse_expression() {
    DepthGuard guard(*this, cur());
    ExprPtr expr = parse_or();
    while (is_name("if")) {
      const Token at = next();
      auto cond = make(Expr::Kind::Conditional, at);
      ExprPtr test = parse_or();
      ExprPtr otherwise;
      if (accept_name("else")) otherwise = parse_expression();
      cond->children.push_back(std::move(expr));
      cond->children.push_back(std::move(test));
      cond->children.push_back(std::move(otherwise));
      expr = std::move(cond);
    }
    return expr;
  }

  ExprPtr binary(const Token& at, std::string op, ExprPtr l, ExprPtr r) {
    auto e = make(Expr::Kind::Binary, at);
    e->name = std::move(op);
    e->children.push_back(std::move(l));
    e->children.push_back(std::move(r));
    return e;
  }

  ExprPtr parse_or() {
    ExprPtr l = parse_and();
    while (is_name("or")) {
      const Token at = next();
      l = binary(at, "or", std::move(l), parse_and());
    }
    return l;
  }

  ExprPtr parse_and() {
    ExprPtr l = parse_not();
    while (is_name("and")) {
      const Token at = next();
      l = binary(at, "and", std::move(l), parse_not());
    }
    return l;
  }

  ExprPtr parse_not() {
    if (is_name("not")) {
      const Token at = next();
      DepthGuard guard(*this, at);
      auto e = make(Expr::Kind::Unary, at);
      e->name = "not";
      e->children.push_back(parse_not());
      return e;
    }
    return parse_compare();
  }

  // a < b <= c chains like Python: (a < b) and (b <= c), each operand evaluated once.
  ExprPtr parse_compare() {
    const Token start = cur();
    ExprPtr first = parse_math1();
    std::vector<std::pair<std::string, ExprPtr>> rest;
    while (true) {
      const Token at = cur();
      if (at.type == TokenType::Op && (at.text == "==" || at.text == "!=" || at.text == "<" ||
                                       at.text == ">" || at.text == "<=" || at.text == ">=")) {
        ++i_;
        rest.emplace_back(at.text, parse_math1());
      } else if (is_name("in")) {
        ++i_;
        rest.emplace_back("in", parse_math1());
      } else if (is_name("not") && peek().type == TokenType::Name && peek().text == "in") {
        i_ += 2;
        rest.emplace_back("not in", parse_math1());
      } else {
        break;
      }
    }
    if (rest.empty()) return first;
    if (rest.size() == 1)
      return binary(start, rest[0].first, std::move(first), std::move(rest[0].second));
    auto chain = make(Expr::Kind::Compare, start);
    chain->children.push_back(std::move(first));
    chain->kwargs = std::move(rest);
    return chain;
  }

  ExprPtr parse_math1() {
    ExprPtr l = parse_concat();
    while (is_op("+") || is_op("-")) {
      const Token at = next();
      l = binary(at, at.text, std::move(l), parse_concat());
    }
    return l;
  }

  ExprPtr parse_concat() {
    ExprPtr l = parse_math2();
    while (is_op("~")) {
      const Token at = next();
      l = binary(at, "~", std::move(l), parse_math2());
    }
    return l;
  }

  ExprPtr parse_math2() {
    ExprPtr l = parse_pow();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
      const Token at = next();
      l = binary(at, at.text, std::move(l), parse_pow());
    }
    return l;
  }

  ExprPtr parse_pow() {
    ExprPtr l = parse_unary();
    while (is_op("**")) {
      const Token at = next();
      l = binary(at, "**", std::move(l), parse_unary());
    }
    return l;
  }

  ExprPtr parse_unary(bool with_filter = true) {
    const Token at = cur();
    DepthGuard guard(*this, at);
    ExprPtr node;
    if (is_op("-") || is_op("+")) {
      ++i_;
      node = make(Expr::Kind::Unary, at);
      node->name = at.text;
      node->children.push_back(parse_unary(false));
    } else {
      node = parse_primary();
    }
    node = parse_postfix(std::move(node));
    if (with_filter) node = parse_filter_expr(std::move(node));
    return node;
  }

  ExprPtr parse_primary() {
    const Token at = cur();
    switch (at.type) {
      case TokenType::Name: {
        ++i_;
        if (at.text == "true" || at.text == "True") return literal(at, Value(true));
        if (at.text == "false" || at.text == "False") return literal(at, Value(false));
        if (at.text == "none" || at.text == "None") return literal(at, Value::none());
        auto e = make(Expr::Kind::Name, at);
        e->name = at.text;
        return e;
      }
      case TokenType::String: {
        std::string s;
        while (cur().type == TokenType::String) s += next().text;
        return literal(at, Value(std::move(s)));
      }
      case TokenType::Int: ++i_; return literal(at, Value(at.int_value));
      case TokenType::Float: ++i_; return literal(at, Value(at.float_value));
      case TokenType::Op:
        if (at.text == "(") {
          ++i_;
          if (accept_op(")")) return make(Expr::Kind::Tuple, at);
          ExprPtr first = parse_expression();
          if (accept_op(")")) return first;
          auto tuple = make(Expr::Kind::Tuple, at);
          tuple->children.push_back(std::move(first));
          while (accept_op(",")) {
            if (is_op(")")) break;
            tuple->children.push_back(parse_expression());
          }
          expect_op(")");
          return tuple;
        }
        if (at.text == "[") {
          ++i_;
          auto list = make(Expr::Kind::List, at);
          while (!is_op("]")) {
            list->children.push_back(parse_expression());
            if (!accept_op(",")) break;
          }
          expect_op("]");
          return list;
        }
        if (at.text == "{") {
          ++i_;
          auto dict = make(Expr::Kind::Dict, at);
          while (!is_op("}")) {
            dict->children.push_back(parse_expression());
            expect_op(":");
            dict->children.push_back(parse_expression());
            if (!accept_op(",")) break;
          }
          expect_op("}");
          return dict;
        }
        break;
      default: break;
    }
    fail(at, "unexpected " + describe(at));
  }

  ExprPtr literal(const Token& at, Value v) {
    auto e = make(Expr::Kind::Literal, at);
    e->literal = std::move(v);
    return e;
  }

  ExprPtr parse_postfix(ExprPtr node) {
    while (true) {
      const Token at = cur();
      if (is_op(".")) {
        ++i_;
        if (cur().type == TokenType::Int) {
          auto e = make(Expr::Kind::GetItem, at);
          e->children.push_back(std::move(node));
          e->children.push_back(literal(cur(), Value(cur().int_value)));
          ++i_;
          node = std::move(e);
        } else {
          auto e = make(Expr::Kind::GetAttr, at);
          e->name = expect_name();
          e->children.push_back(std::move(node));
          node = std::move(e);
        }
      } else if (is_op("[")) {
        ++i_;
        node = parse_subscript(at, std::move(node));
      } else if (is_op("(")) {
        node = parse_call(at, std::move(node));
      } else {
        return node;
      }
    }
  }

  ExprPtr parse_subscript(const Token& at, ExprPtr obj) {
    ExprPtr parts[3];
    bool is_slice = false;
    for (int k = 0; k < 3; ++k) {
      if (!is_op(":") && !is_op("]")) parts[k] = parse_expression();
      if (k < 2 && accept_op(":")) {
        is_slice = true;
        continue;
      }
      break;
    }
    expect_op("]");
    if (!is_slice) {
      if (!parts[0]) fail(at, "expected an index");
      auto e = make(Expr::Kind::GetItem, at);
      e->children.push_back(std::move(obj));
      e->children.push_back(std::move(parts[0]));
      return e;
    }
    auto e = make(Expr::Kind::Slice, at);
    e->children.push_back(std::move(obj));
    for (auto& p : parts) e->children.push_back(std::move(p));
    return e;
  }

  void parse_args(Expr& e) {
    expect_op("(");
    while (!is_op(")")) {
      if (cur().type == TokenType::Name && peek().type == TokenType::Op && peek().text == "=") {
        std::string key = next().text;
        ++i_;
        e.kwargs.emplace_back(std::move(key), parse_expression());
      } else {
        if (is_op("*") || is_op("**")) {
          std::string star = next().text;
          e.kwargs.emplace_back(std::move(star), parse_expression());
        } else {
          e.children.push_back(parse_expression());
        }
      }
      if (!accept_op(",")) break;
    }
    expect_op(")");
  }

  ExprPtr parse_call(const Token& at, ExprPtr callee) {
    auto e = make(Expr::Kind::Call, at);
    e->children.push_back(std::move(callee));
    parse_args(*e);
    return e;
  }

  // `| name(args)` repeated, applied to `base` (null in filter blocks and set blocks).
  ExprPtr parse_filter_chain(ExprPtr base, bool first_needs_bar = true) {
    bool first = true;
    while ((first && !first_needs_bar) || accept_op("|")) {
      first = false;
      const Token at = cur();
      auto f = make(Expr::Kind::Filter, at);
      f->name = expect_name();
      while (accept_op(".")) f->name += "." + expect_name();
      f->children.push_back(std::move(base));
      if (is_op("(")) parse_args(*f);
      base = std::move(f);
    }
    return base;
  }

  ExprPtr parse_filter_expr(ExprPtr node) {
    while (true) {
      if (is_op("|")) {
        node = parse_filter_chain(std::move(node));
      } else if (is_name("is")) {
        const Token at = next();
        auto t = make(Expr::Kind::Test, at);
        t->negated = accept_name("not");
        t->name = expect_name();
        t->children.push_back(std::move(node));
        const Token& c = cur();
        if (is_op("(")) {
          parse_args(*t);
        } else if ((c.type == TokenType::Name || c.type == TokenType::String ||
                    c.type == TokenType::Int || c.type == TokenType::Float || is_op("[") ||
                    is_op("{")) &&
                   !is_name("else") && !is_name("or") && !is_name("and")) {
          if (is_name("is")) fail(c, "you cannot chain multiple tests with is");
          t->children.push_back(parse_postfix(parse_primary()));
        }
        node = std::move(t);
      } else if (is_op("(")) {
        node = parse_call(cur(), std::move(node));
      } else {
        return node;
      }
    }
  }

  std::vector<Token> t_;
  size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace

std::shared_ptr<const Template> parse_template(std::string_view source) {
  return Parser(tokenize(source)).run();
}

}  // namespace kvchat::jinja

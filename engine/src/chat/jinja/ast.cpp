// Expr's destructor, out of line so that a deep tree is freed without recursion.
#include "chat/jinja/ast.h"

namespace kvchat::jinja {

Expr::~Expr() {
  std::vector<ExprPtr> pending;
  const auto take_children = [&pending](Expr& e) {
    for (ExprPtr& c : e.children) {
      if (c) pending.push_back(std::move(c));
    }
    for (auto& kv : e.kwargs) {
      if (kv.second) pending.push_back(std::move(kv.second));
    }
  };
  take_children(*this);
  while (!pending.empty()) {
    ExprPtr e = std::move(pending.back());
    pending.pop_back();
    take_children(*e);
  }  // each node is destroyed here with no children left
}

}  // namespace kvchat::jinja

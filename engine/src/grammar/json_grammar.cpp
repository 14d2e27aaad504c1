// compile_grammar and compile_json_schema of kvchat/grammar.h.
#include <utility>

#include "grammar/grammar.h"
#include "grammar/json_schema.h"
#include "kvchat/grammar.h"

namespace kvchat {

Result<std::shared_ptr<const grammar::Grammar>> compile_grammar(std::string_view gbnf) {
  auto g = grammar::parse_gbnf(gbnf);
  if (!g) return g.error();
  return std::shared_ptr<const grammar::Grammar>(
      std::make_shared<const grammar::Grammar>(std::move(*g)));
}

Result<std::shared_ptr<const grammar::Grammar>> compile_json_schema(std::string_view schema) {
  auto gbnf = grammar::json_schema_to_gbnf(schema);
  if (!gbnf) return gbnf.error();
  auto g = compile_grammar(*gbnf);
  if (!g) return Error{"the grammar made of the schema: " + g.message()};
  return g;
}

}  // namespace kvchat

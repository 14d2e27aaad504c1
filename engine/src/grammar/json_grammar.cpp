// The JSON grammar of kvchat/grammar.h, and compile_grammar.
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

// RFC 8259: a string is '"', then unescaped characters (not '"', '\' or U+0000..U+001F)
// or escapes, then '"'; a number is an optional minus, an integer without leading
// zeros, an optional fraction and exponent. Whitespace: at most one newline and 20
// spaces or tabs between tokens.
std::string_view json_object_gbnf() {
  return R"GBNF(root    ::= object
value   ::= object | array | string | number | "true" | "false" | "null"
object  ::= "{" ws ( member ( "," ws member )* )? "}"
member  ::= string ws ":" ws value ws
array   ::= "[" ws ( value ws ( "," ws value ws )* )? "]"
string  ::= "\"" ( [^"\\\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} ) )* "\""
number  ::= "-"? ( "0" | [1-9] [0-9]{0,15} ) ( "." [0-9]{1,16} )? ( [eE] [-+]? [0-9]{1,3} )?
ws      ::= [ \t]{0,20} ( "\n" [ \t]{0,20} )?
)GBNF";
}

}  // namespace kvchat

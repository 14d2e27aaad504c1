// Fuzz target: JSON Schema to grammar (grammar/json_schema.h). Input: schema text. Errors
// are expected; a crash, a leak, a hang, or a converted grammar that does not compile (a
// converter defect, trapped here) are not.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "grammar/grammar.h"
#include "grammar/json_schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view schema(reinterpret_cast<const char*>(data), size);
  auto gbnf = kvchat::grammar::json_schema_to_gbnf(schema);
  if (!gbnf) return 0;
  kvchat::grammar::GrammarLimits limits;
  limits.max_elements = 1 << 22;  // what the schema asked for, however large
  auto g = kvchat::grammar::parse_gbnf(*gbnf, limits);
  if (!g && g.message().find("more than") == std::string::npos) __builtin_trap();
  return 0;
}

// The builtins a chat template can use: filters, tests, Python methods of str, list
// and dict, and the globals (range, dict, namespace, raise_exception, strftime_now).
#pragma once

#include <string>
#include <string_view>

#include "chat/jinja/interpreter.h"
#include "chat/jinja/value.h"

namespace kvchat::jinja {

using FilterFn = Value (*)(Interpreter&, const Value&, const CallArgs&);
using TestFn = bool (*)(Interpreter&, const Value&, const CallArgs&);

// nullptr when there is no such filter / test.
FilterFn find_filter(std::string_view name);
TestFn find_test(std::string_view name);
// obj.name as a bound method (str, list and dict methods), or undefined.
Value find_method(const Value& obj, const std::string& name);
// range, dict, namespace, raise_exception, strftime_now.
void install_globals(Scope& scope);

// Argument helpers shared by the builtins.
std::int64_t int_arg(const CallArgs& args, size_t index, std::string_view name,
                     std::int64_t fallback);
bool bool_arg(const CallArgs& args, size_t index, std::string_view name, bool fallback);
std::string str_arg(const CallArgs& args, size_t index, std::string_view name,
                    const std::string& fallback);
// Python's str.strip(chars) family; `chars` null = whitespace.
std::string strip_chars(const std::string& s, const std::string* chars, bool left, bool right);
// Python's str.split / rsplit.
Value split_string(const std::string& s, const Value* sep, std::int64_t maxsplit, bool from_right);
// Python's str.replace with an optional count (-1 = all).
std::string replace_all(const std::string& s, const std::string& from, const std::string& to,
                        std::int64_t count);
// Python's str.title / str.capitalize / upper / lower (ASCII letters are changed).
std::string title_case(const std::string& s);
std::string capitalize(const std::string& s);
std::string to_upper(std::string s);
std::string to_lower(std::string s);
// markupsafe.escape's text: & < > " ' as &amp; &lt; &gt; &#34; &#39; (bounded).
std::string html_escape(const std::string& s);
// printf-style `fmt % args` (%s %d %i %f %r %%).
std::string percent_format(const std::string& fmt, const Value& args);

}  // namespace kvchat::jinja

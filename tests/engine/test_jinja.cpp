// The Jinja interpreter construct by construct. Every expected string is what jinja2
// (3.1, as transformers configures it: ImmutableSandboxedEnvironment, trim_blocks,
// lstrip_blocks, loopcontrols, transformers' tojson) renders for the same template;
// they were checked by hand against it, and the tests do not need Python.
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <string>

#include "kvchat/chat_template.h"

namespace kvchat {
namespace {

// messages: system " S ", user "u1", assistant "a1", user "u2".
constexpr const char* kMessages =
    R"([{"role": "system", "content": " S "}, {"role": "user", "content": "u1"},
        {"role": "assistant", "content": "a1"}, {"role": "user", "content": "u2"}])";

std::string render(const std::string& source, const char* messages = kMessages,
                   const std::string& vars = "") {
  auto tpl = ChatTemplate::parse(source);
  if (!tpl) return "PARSE ERROR: " + tpl.message();
  ChatRenderOptions o;
  o.add_generation_prompt = false;
  o.bos_token = "<s>";
  o.eos_token = "</s>";
  o.extra_variables_json = vars;
  auto text = tpl->render_json(messages, o);
  return text ? *text : "ERROR: " + text.message();
}

// The render error's message (empty when rendering succeeded).
std::string render_error(const std::string& source, const char* messages = kMessages) {
  const std::string r = render(source, messages);
  return r.rfind("ERROR: ", 0) == 0 ? r.substr(7) : std::string();
}

TEST(Jinja, WhitespaceControl) {
  EXPECT_EQ(render("  {% if true %}\n  x\n  {% endif %}\n"), "  x\n");
  EXPECT_EQ(render("a {% if true %}b{% endif %} c\n"), "a b c");
  EXPECT_EQ(render("{{ 'a' }}  {% if true %}x{% endif %}"), "a  x");
  EXPECT_EQ(
      render("{%- for m in messages -%}\n  {{- m.role }}: {{ m['content'] -}}\n{%- endfor %}"),
      "system:  S user: u1assistant: a1user: u2");
  EXPECT_EQ(render("x\n    {%- if true %}\n    y\n    {%+ if true %}z{% endif %}\n{% endif %}"),
            "x    y\n    z");
  EXPECT_EQ(render("{{ 'a' }}\n{{ 'b' }}\n\n{{ 'c' -}}\n\n  d"), "a\nb\n\ncd");
  EXPECT_EQ(render("{% if true %}\nA\n{% else %}\nB\n{% endif %}\nC"), "A\nC");
  EXPECT_EQ(render("{%- set x = 1 -%}\n  {{ x }}  \n{%- if x -%}  y  {%- endif -%}   z"), "1yz");
  EXPECT_EQ(render("a\n  {%- for i in [1,2] %}\n  {{ i }}\n  {%- endfor %}\nb"), "a  1  2b");
  EXPECT_EQ(render("{% for i in [1] %}\n  {% for j in [2] %}\n    {{ i }}{{ j }}\n  {% endfor "
                   "%}\n{% endfor %}\n"),
            "    12\n");
  EXPECT_EQ(render("x {%+ if true %}y{% endif %}"), "x y");
  EXPECT_EQ(render("  {{- 'a' }}  {{ 'b' -}}  c"), "a  bc");
  EXPECT_EQ(render("{% if true %}   {% endif %}|"), "   |");
  EXPECT_EQ(render("one trailing newline is dropped\n"), "one trailing newline is dropped");
  EXPECT_EQ(render("two\n\n"), "two\n");
  EXPECT_EQ(render("crlf\r\n{% if true %}\r\nline\r\n{% endif %}\r\n"), "crlf\nline\n");
  EXPECT_EQ(render("{% if true +%}\nkept{% endif +%}\n|{% if true %}\ntrimmed{% endif %}\n|"),
            "\nkept\n|trimmed|");
  EXPECT_EQ(render("{% for i in [1, 2] %}\n  {%- if i == 2 %}\n    two\n  {% else %}\n    other\n  "
                   "{% endif %}\n{% endfor %}"),
            "    other\n    two\n");
}

TEST(Jinja, CommentsAndRaw) {
  EXPECT_EQ(render("{# comment #}a\n{# c2 #}\nb  {#- c3 -#}  c"), "a\nbc");
  EXPECT_EQ(render("{{ 'x' }}{# note #}\n{{ 'y' }}"), "xy");
  EXPECT_EQ(render("   {# only comment #}   \nafter"), "   \nafter");
  EXPECT_EQ(render("{% raw %}{{ x }}{% endraw %}|{%- raw -%}  {% y %}  {%- endraw -%}  |"),
            "{{ x }}|{% y %}|");
}

TEST(Jinja, PrintsLikePython) {
  EXPECT_EQ(render("{{ [1,'a',none,true,1.5,{'k':'v'}] }}"),
            "[1, 'a', None, True, 1.5, {'k': 'v'}]");
  EXPECT_EQ(render("{{ ('a',1) }}{{ (1,) }}{{ true }}{{ none }}{{ True }}{{ False }}"),
            "('a', 1)(1,)TrueNoneTrueFalse");
  EXPECT_EQ(render("{{ 'it\\'s' }} {{ [\"it's\", 'a\"b', 'c'] }}"), "it's [\"it's\", 'a\"b', 'c']");
  EXPECT_EQ(render("{{ {'a': 'it\\'s'} }}{{ ['a\\\\b'] }}{{ [\"q'\\\"\"] }}{{ ['\\x00', "
                   "'é\\u200b'] }}{{ ['tab\\t', 'nl\\n'] }}"),
            "{'a': \"it's\"}['a\\\\b']['q\\'\"']['\\x00', 'é\\u200b']['tab\\t', 'nl\\n']");
  EXPECT_EQ(render("{{ 1e16 }} {{ 1.5e-5 }} {{ 0.1+0.2 }} {{ 100.0 }} {{ 3 * 1.0 }} {{ 1e15 }} {{ "
                   "0.0001 }} {{ 123.456 }} {{ -0.0 }}"),
            "1e+16 1.5e-05 0.30000000000000004 100.0 3.0 1000000000000000.0 0.0001 123.456 -0.0");
  EXPECT_EQ(render("{{ 1.0|string }}{{ 1e100 }}{{ 1.23456789e-7 }}{{ 123456789012345.6 }}{{ "
                   "1234567890123456789.0 }}{{ 2.0**70 }}"),
            "1.01e+1001.23456789e-07123456789012345.61.2345678901234568e+181.1805916207174113e+21");
  EXPECT_EQ(render("{{ {'a': {'b': 1}} }}{{ {1: 'x'} }}"), "{'a': {'b': 1}}{1: 'x'}");
  EXPECT_EQ(render("{{ undefined_name }}|{{ messages[9] }}|{{ {}.missing }}|"), "|||");
  EXPECT_EQ(render("{{ \"multi\nline\" }}{{ 'a' 'b' }}{{ '\\x41\\u00e9\\U0001F600\\101' }}"),
            "multi\nlineabAé😀A");
}

TEST(Jinja, Operators) {
  EXPECT_EQ(render("{{ 1/2 }}{{ 4/2 }}{{ 7//2 }}{{ -7//2 }}{{ -7 % 3 }}{{ 2**10 }}{{ 'ab'*3 }}{{ 3 "
                   "* 'x' }}"),
            "0.52.03-421024abababxxx");
  EXPECT_EQ(render("{{ (-1) ** 2 }} {{ -1 ** 2 }} {{ not 1 == 2 }} {{ 1 + 2 * 3 }} {{ 2 ** 3 ** 2 "
                   "}} {{ 10 - 2 - 3 }} {{ 7 % 4 * 2 }}"),
            "1 1 True 7 64 5 6");
  EXPECT_EQ(render("{{ 'abc' * 2 }}{{ [1] * 3 }}{{ [1] + [2] }}{{ 'a' + 'b' }}{{ 1 + 1.5 }}{{ 3 // "
                   "2.0 }}{{ 3 % 2.5 }}{{ 2 ** -1 }}"),
            "abcabc[1, 1, 1][1, 2]ab2.51.00.50.5");
  EXPECT_EQ(render("{{ 1 == 1.0 }}{{ true == 1 }}{{ 'a' < 'b' }}{{ [1,2] == [1,2] }}{{ 'ab' in "
                   "'cabd' }}{{ 1 in [1,2] }}{{ 'k' in {'k':1} }}{{ 'z' not in 'abc' }}"),
            "TrueTrueTrueTrueTrueTrueTrueTrue");
  EXPECT_EQ(render("{{ 5 > 3 > 1 }}{{ 1 < 2 < 3 < 2 }}{{ 'b' >= 'a' }}{{ [1,2] < [1,3] }}"),
            "TrueFalseTrueTrue");
  EXPECT_EQ(render("{{ 'x' ~ 1 ~ none ~ true }}{{ undefined_name ~ 'y' }}{{ [1] ~ {'a':1} }}"),
            "x1NoneTruey[1]{'a': 1}");
  EXPECT_EQ(
      render("{{ 'x' is string and 'y' or 'z' }}{{ 0 or '' or 'last' }}{{ 1 and 0 }}{{ [] or {} "
             "}}{{ true and 'yes' }}{{ none or 0 }}{{ not none }}{{ not [] }}{{ -(-3) }}{{ +5 }}"),
      "ylast0{}yes0TrueTrue35");
  EXPECT_EQ(render("{{ 'a' if false }}|{{ ('a' if false)|length }}|{{ 'y' if 1 else 'n' }}|{{ 'a' "
                   "if 'b' in 'abc' else 'c' }}"),
            "|0|y|a");
}

TEST(Jinja, OperatorErrors) {
  // jinja2: TypeError: can only concatenate str (not "int") to str
  EXPECT_NE(render_error("{{ 'a' + 1 }}"), "");
  // jinja2: ZeroDivisionError: division by zero
  EXPECT_NE(render_error("{{ 5 / 0 }}"), "");
  // jinja2: ZeroDivisionError: integer division or modulo by zero
  EXPECT_NE(render_error("{{ 7 // 0 }}"), "");
  // jinja2: TypeError: '<' not supported between instances of 'int' and 'str'
  EXPECT_NE(render_error("{{ 1 < 'a' }}"), "");
  // jinja2: UndefinedError: 'undefined_name' is undefined
  EXPECT_NE(render_error("{{ -undefined_name }}"), "");
  // jinja2: UndefinedError: 'undefined_name' is undefined
  EXPECT_NE(render_error("{{ undefined_name + 1 }}"), "");
}

TEST(Jinja, SubscriptsAndSlices) {
  EXPECT_EQ(render("{{ 'abc'[::-1] }}{{ [1,2,3][1:] }}{{ 'héllo'|length }}{{ 'héllo'[1] }}{{ "
                   "'héllo'[-2:] }}{{ [1,2,3,4,5][::2] }}{{ [1,2,3][5:] }}"),
            "cba[2, 3]5élo[1, 3, 5][]");
  EXPECT_EQ(render("{{ [1, 2, 3][-1] }}{{ [1,2,3][1:-1] }}{{ 'abcdef'[1:5:2] }}{{ 'abc'[-10:10] "
                   "}}{{ [1,2,3][::-2] }}"),
            "3[2]bdabc[3, 1]");
  EXPECT_EQ(render("{{ messages[0].content }}{{ messages[0]['role'] }}{{ messages.0.role }}{{ "
                   "[[1]].0.0 }}{{ messages[-1].content }}"),
            " S systemsystem1u2");
  EXPECT_EQ(render("{% set x = {'a': {'b': {'c': 'deep'}}} %}{{ x['a']['b']['c'] }}{{ x.a.b.c }}{{ "
                   "{'items': 1}['items'] }}"),
            "deepdeep1");
  EXPECT_EQ(render("{{ none.x }}|{{ none['x'] }}|{{ (1)[0] }}|"), "|||");
}

TEST(Jinja, Undefined) {
  EXPECT_EQ(render("{{ x }}|{{ x is defined }}|{{ x is undefined }}|{{ x|default('d') }}|{{ "
                   "x|length }}|{% for i in x %}never{% endfor %}|{{ x == x }}"),
            "|False|True|d|0||True");
  // jinja2: UndefinedError: 'x' is undefined
  EXPECT_NE(render_error("{{ x.y }}"), "");
  // jinja2: UndefinedError: 'dict object' has no attribute 'y'
  EXPECT_NE(render_error("{% set d = {} %}{{ d.y }}|{{ d.y.z }}"), "");
  // jinja2: UndefinedError: list object has no element 5
  EXPECT_NE(render_error("{{ messages[5]['x'] }}"), "");
  EXPECT_EQ(render("{{ x is defined and x.y }}{{ (x is not defined) or x.y }}"), "FalseTrue");
}

TEST(Jinja, IfElifElse) {
  EXPECT_EQ(render("{% for n in [1, 2, 3] %}{% if n == 1 %}one{% elif n == 2 %}two{% else %}many{% "
                   "endif %};{% endfor %}"),
            "one;two;many;");
  EXPECT_EQ(render("{%- if not messages -%}empty{%- else -%}{{ messages|length }}{%- endif -%}"),
            "4");
}

TEST(Jinja, ForLoops) {
  EXPECT_EQ(render("{% for x in [1,2,3] if x > 1 %}{{ loop.index }}/{{ loop.length }}{{ loop.first "
                   "}}{{ loop.last }}{{ loop.revindex }}{{ loop.previtem }}{{ loop.nextitem }} {% "
                   "else %}none{% endfor %}"),
            "1/2TrueFalse23 2/2FalseTrue12 ");
  EXPECT_EQ(render("{% for x in [] %}{{x}}{% else %}empty{% endfor %}"), "empty");
  EXPECT_EQ(render("{% for i in range(2) %}{% for j in range(2) %}{{ loop.index }}{{ i }}{% endfor "
                   "%}{{ loop.index }}{% endfor %}"),
            "1020111212");
  EXPECT_EQ(render("{% for a, b in {'x':1,'y':2}.items() %}{{a}}={{b}} {% endfor %}{% for a, b in "
                   "[[1, 2], [3, 4]] %}{{ a + b }}{% endfor %}"),
            "x=1 y=2 37");
  EXPECT_EQ(render("{% for k in {'b':1,'a':2} %}{{ k }}{% endfor %}{% for c in 'hé' %}[{{ c }}]{% "
                   "endfor %}"),
            "ba[h][é]");
  EXPECT_EQ(render("{% for i in range(10) %}{% if i == 3 %}{% break %}{% endif %}{% if i is odd "
                   "%}{% continue %}{% endif %}{{ i }}{% endfor %}"),
            "02");
  EXPECT_EQ(render("{% for x in [1,2] %}{{ loop.cycle('a','b') }}{{ loop.depth }}{{ loop.index0 "
                   "}}{{ loop.revindex0 }}{% endfor %}"),
            "a101b110");
  EXPECT_EQ(render("{% for m in messages %}{{ loop.index0 % 2 }}{{ m.role[0] }}{% endfor %}"),
            "0s1u0a1u");
  EXPECT_EQ(
      render(
          "{% for i in [1,2,3] %}{% if i == 1 %}{% set x = 'a' %}{% endif %}{{ x }}{% endfor %}"),
      "a");
  EXPECT_EQ(render("{% set x = 'o' %}{% for i in [1,2] %}{% set x = i %}{{x}}{% endfor %}{{x}}"),
            "12o");
  // jinja2: ValueError: too many values to unpack (expected 2)
  EXPECT_NE(render_error("{% for a, b in [[1, 2, 3]] %}{% endfor %}"), "");
  // jinja2: TypeError: 'NoneType' object is not iterable
  EXPECT_NE(render_error("{% for x in none %}{% endfor %}"), "");
  // jinja2: UndefinedError: 'loop' is undefined
  EXPECT_NE(render_error("{{ loop.index }}"), "");
}

TEST(Jinja, SetNamespaceWith) {
  EXPECT_EQ(render("{% set a, b = 1, 2 %}{{ a }}{{ b }}{% set t = 1, 2 %}{{ t }}"), "12(1, 2)");
  EXPECT_EQ(
      render("{% set x %}in{{ 1 }}{% endset %}[{{ x }}]{% set y | upper %}up{% endset %}{{ y }}"),
      "[in1]UP");
  EXPECT_EQ(render("{% set ns = namespace(a=1, b=[]) %}{% for i in [1,2] %}{% set ns.a = ns.a + i "
                   "%}{% endfor %}{{ ns.a }}"),
            "4");
  EXPECT_EQ(render("{% set ns = namespace(found=false) %}{% for m in messages %}{% if m.role == "
                   "'system' %}{% set ns.found = true %}{% endif %}{% endfor %}{{ ns.found }}"),
            "True");
  EXPECT_EQ(
      render(
          "{{ namespace(a=1).a }}{% set ns = namespace() %}{% set ns.v = [1] %}{{ ns.v + [2] }}"),
      "1[1, 2]");
  EXPECT_EQ(render("{% with a = 1, b = 'x' %}{{ a }}{{ b }}{% endwith %}{{ a }}"), "1x");
  EXPECT_EQ(render("{% filter upper %}hello {{ 'w' }}{% endfilter %}"), "HELLO W");
  // jinja2: TemplateRuntimeError: cannot assign attribute on non-namespace object
  EXPECT_NE(render_error("{% set d = {} %}{% set d.x = 1 %}"), "");
  // jinja2: SecurityError: access to attribute 'append' of 'list' object is unsafe.
  EXPECT_NE(render_error("{% set l = [] %}{% set _ = l.append(1) %}{{ l }}"), "");
}

TEST(Jinja, Macros) {
  EXPECT_EQ(render("{% macro f(a, b='d') %}[{{a}}{{b}}]{% endmacro %}{{ f(1) }}{{ f(1, b=2) }}{{ "
                   "f(1,2) }}{{ f() }}"),
            "[1d][12][12][d]");
  EXPECT_EQ(render("{% macro fact(n) %}{% if n <= 1 %}1{% else %}{{ n }}*{{ fact(n-1) }}{% endif "
                   "%}{% endmacro %}{{ fact(4) }}"),
            "4*3*2*1");
  EXPECT_EQ(render("{% macro m(a, b=a ~ '!') %}{{ b }}{% endmacro %}{{ m('x') }}"), "x!");
  EXPECT_EQ(
      render(
          "{% macro m(x) %}<{{ caller() }}{{ x }}>{% endmacro %}{% call m(1) %}body{% endcall %}"),
      "<body1>");
  EXPECT_EQ(render("{% macro outer() %}{{ caller('arg') }}{% endmacro %}{% call(v) outer() %}got "
                   "{{ v }}{% endcall %}"),
            "got arg");
  EXPECT_EQ(
      render(
          "{% set top = 'T' %}{% macro m() %}{{ top }}{% endmacro %}{% set top = 'U' %}{{ m() }}"),
      "U");
  // jinja2: TypeError: macro 'g' takes not more than 2 argument(s)
  EXPECT_NE(render_error("{% macro g(a, b) %}{{ a }}{{ b }}{% endmacro %}{{ g(1, 2, 3) }}"), "");
  // jinja2: TypeError: macro 'g' takes no keyword argument 'z'
  EXPECT_NE(render_error("{% macro g(a) %}{{ a }}{% endmacro %}{{ g(z=1) }}"), "");
  // jinja2: RecursionError: maximum recursion depth exceeded
  EXPECT_NE(render_error("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}"), "");
}

TEST(Jinja, StringFilters) {
  EXPECT_EQ(render("{{ '  x  '|trim }}|{{ 'xxhixx'|trim('x') }}|{{ 'Hello World'|title }}|{{ "
                   "'hello WORLD'|capitalize }}|{{ \"they're bill's\"|title }}"),
            "x|hi|Hello World|Hello world|They're Bill's");
  EXPECT_EQ(
      render("{{ 'hi'|upper }}{{ 'HI'|lower }}{{ 'héllo wörld'|upper }}{{ 'héllo wörld'|title }}"),
      "HIhiHÉLLO WÖRLDHéllo Wörld");
  EXPECT_EQ(render("{{ '  \\t x \\n'|trim }}|{{ 'abc'|trim('ac') }}|{{ '\\u00a0x\\u00a0'|trim }}|"),
            "x|b|x|");
  EXPECT_EQ(render("{{ 'a\\nb\\n\\nc'|indent(2) }}|{{ 'a\\nb'|indent(2, true) }}|{{ "
                   "'a\\n\\nb\\n'|indent(4, blank=true) }}|{{ 'x'|indent('> ', first=true) }}"),
            "a\n  b\n\n  c|  a\n  b|a\n    \n    b\n    |> x");
  EXPECT_EQ(render("{{ 'hello world' | replace('o', '0', 1) }}{{ 'aaa'|replace('a', 'b') }}{{ 'one "
                   "two  three' | wordcount }}"),
            "hell0 worldbbb3");
  EXPECT_EQ(render("{{ 'abc'|center(9) }}|{{ 'a long sentence here to cut'|truncate(12) }}|{{ "
                   "'abc'|reverse }}"),
            "   abc   |a long...|cba");
  EXPECT_EQ(render("{{ '%s and %d'|format('a', 3) }}{{ '%s!' % 'hi' }}{{ '%s-%s' % (1, 2) }}{{ "
                   "'%05.2f|%d|%s|%r' % (3.14159, 42, none, 'q') }}"),
            "a and 3hi!1-203.14|42|None|'q'");
  EXPECT_EQ(
      render("{{ 1|string }}{{ none|string }}{{ 'x'|string|length }}{{ '<b>'|e }}{{ '<b>'|safe }}"),
      "1None1&lt;b&gt;<b>");
}

TEST(Jinja, ListFilters) {
  EXPECT_EQ(render("{{ [1,2,3]|join(', ') }}{{ [1,2,3]|first }}{{ [1,2,3]|last }}{{ 'abc'|first "
                   "}}{{ 'abc'|list }}{{ [{'n':'a'},{'n':'b'}]|join('/', attribute='n') }}"),
            "1, 2, 313a['a', 'b', 'c']a/b");
  EXPECT_EQ(
      render("{{ [3,1,2]|sort }}{{ [3,1,2]|reverse|list }}{{ [1,2,2,3]|unique|list }}{{ "
             "[1,2,3]|sum }}{{ [1,5,3]|max }}{{ ['b','A','c']|sort }}{{ ['b','A','c']|max }}"),
      "[1, 2, 3][2, 1, 3][1, 2, 3]65['A', 'b', 'c']c");
  EXPECT_EQ(render("{{ [3,1]|sort(reverse=true) }}{{ "
                   "[{'n':2},{'n':1}]|sort(attribute='n')|map(attribute='n')|list }}{{ "
                   "['b','a','C']|sort(case_sensitive=true) }}"),
            "[3, 1][1, 2]['C', 'a', 'b']");
  EXPECT_EQ(render("{{ [1, 2, 3] | min }}{{ [] | max }}|{{ [1.5, 2] | sum }}{{ [{'v':1},{'v':2}] | "
                   "sum(attribute='v') }}"),
            "1|3.53");
  EXPECT_EQ(render("{{ [1,2,3] | batch(2) | list }}{{ {'a':1}|length }}{{ {'a':1,'b':2}|first }}{{ "
                   "''|first }}|{{ []|last }}|"),
            "[[1, 2], [3]]1a||");
  EXPECT_EQ(render("{{ {'b':1,'a':2}|dictsort }}{{ {'b':1,'a':2}|items|list }}{{ "
                   "{'b':1,'a':2}|dictsort(by='value', reverse=true) }}"),
            "[('a', 2), ('b', 1)][('b', 1), ('a', 2)][('a', 2), ('b', 1)]");
  EXPECT_EQ(render("{{ undefined_thing | default('dflt') }}{{ '' | default('e', true) }}{{ none | "
                   "default('n') }}{{ none | d('n', true) }}"),
            "dflteNonen");
  EXPECT_EQ(render("{{ 2.5|round }}{{ 3.5|round }}{{ 2.567|round(2) }}{{ 7|float }}{{ '3'|int + 1 "
                   "}}{{ 'x'|int }}{{ -3|abs }}{{ '3.7'|int }}{{ 2.7|int }}{{ '1.5'|float }}{{ "
                   "2.1|round(0, 'ceil') }}"),
            "2.04.02.577.0403321.53.0");
}

TEST(Jinja, SelectMapAndGenerators) {
  EXPECT_EQ(render("{{ [{'a':1},{'a':2},{'b':3}] | selectattr('a', 'defined') | map(attribute='a') "
                   "| list }}"),
            "[1, 2]");
  EXPECT_EQ(render("{{ messages | selectattr('role', 'equalto', 'user') | map(attribute='content') "
                   "| list }}{{ messages | rejectattr('role', 'eq', 'user') | list | length }}"),
            "['u1', 'u2']2");
  EXPECT_EQ(render("{{ [1,2,3,4] | select('odd') | list }}{{ [0,1,'',none,'x'] | select | list "
                   "}}{{ [1,2,3,4] | reject('even') | list }}{{ [1,2,3]|select('gt', 1)|list }}"),
            "[1, 3][1, 'x'][1, 3][2, 3]");
  EXPECT_EQ(render("{{ ['A','b'] | map('lower') | join(',') }}{{ [' a ', 'b '] | map('trim') | "
                   "list }}{{ ['x']|map('default', 'y')|list }}"),
            "a,b['a', 'b']['x']");
  EXPECT_EQ(render("{{ [{'a':{'b':1}}]|map(attribute='a.b')|list }}{{ "
                   "[{'a':[5,6]}]|map(attribute='a.1')|list }}{{ [{'x':1}]|map(attribute='y', "
                   "default=0)|list }}"),
            "[1][6][0]");
  EXPECT_EQ(
      render("{% if messages|selectattr('role','eq','tool') %}generators are truthy{% endif %}"),
      "generators are truthy");
  EXPECT_EQ(render("{% set g = [1,2,3]|select('odd') %}{% for x in g %}{{x}}{% endfor %}|{% for x "
                   "in g %}{{x}}{% endfor %}"),
            "13|");
  // jinja2: TypeError: object of type 'generator' has no len()
  EXPECT_NE(render_error("{{ [1,2]|select|length }}"), "");
  // jinja2: TypeError: Object of type generator is not JSON serializable
  EXPECT_NE(render_error("{{ [1,2]|select|tojson }}"), "");
}

TEST(Jinja, Tests) {
  EXPECT_EQ(render("{{ 3 is odd }}{{ 4 is divisibleby 2 }}{{ true is number }}{{ true is integer "
                   "}}{{ 'x' is sequence }}{{ {} is iterable }}{{ none is none }}{{ 1 is string "
                   "}}{{ {} is mapping }}{{ 3 is in [1,3] }}{{ 'a' is eq 'a' }}{{ true is boolean "
                   "}}{{ false is false }}{{ 1.5 is float }}"),
            "TrueTrueTrueFalseTrueTrueTrueFalseTrueTrueTrueTrueTrueTrue");
  EXPECT_EQ(render("{{ 'abc' is string }}{{ 12 is number }}{{ 12.0 is integer }}{{ none is string "
                   "}}{{ [] is mapping }}{{ '' is callable }}{{ range is callable }}"),
            "TrueTrueFalseFalseFalseFalseTrue");
  EXPECT_EQ(render("{{ 10 is divisibleby(3) }}{{ 9 is divisibleby 3 }}{{ 'x' is in 'xyz' }}{{ 3 is "
                   "gt 2 }}{{ 3 is lt(2) }}{{ 2 is ge 2 }}{{ 2 is ne 2 }}"),
            "FalseTrueTrueTrueFalseTrueFalse");
  EXPECT_EQ(render("{{ 'lower' is lower }}{{ 'UP' is upper }}{{ 5 is even }}{{ none is sameas none "
                   "}}{{ true is true }}{{ x is not defined }}"),
            "TrueTrueFalseTrueTrueTrue");
}

TEST(Jinja, StrDictListMethods) {
  EXPECT_EQ(render("{{ 'a b  c'.split() }} {{ 'a,b,,c'.split(',') }} {{ 'a,b,c'.split(',', 1) }} "
                   "{{ 'a,b,c'.rsplit(',', 1) }} {{ '  a b c  '.split(none, 1) }} {{ '  a b c  "
                   "'.rsplit(none, 1) }}"),
            "['a', 'b', 'c'] ['a', 'b', '', 'c'] ['a', 'b,c'] ['a,b', 'c'] ['a', 'b c  '] ['  a "
            "b', 'c']");
  EXPECT_EQ(render("{{ 'xxhixx'.strip('x') }}{{ '  a '.lstrip() }}|{{ ' a  '.rstrip() }}|{{ "
                   "'Hello'.startswith('He') }}{{ 'abc'.endswith(('x','c')) }}"),
            "hia | a|TrueTrue");
  EXPECT_EQ(
      render("{{ 'a-b'.replace('-', '+') }}{{ 'hello'.find('l') }}{{ 'aXbX'.count('X') }}{{ "
             "'hello'.find('z') }}{{ 'X'.lower().upper().strip() }}{{ ' x '.strip().title() }}"),
      "a+b22-1XX");
  EXPECT_EQ(render("{{ '<think>a</think>\\n\\nreply'.split('</think>')[-1].lstrip('\\n') }}{{ "
                   "'<think>\\nr\\n</think>x'.split('</"
                   "think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') }}"),
            "replyr");
  EXPECT_EQ(render("{{ '{} {}'.format(1, 'x') }}{{ 'Hi {name}, {0}!'.format('x', name='Bob') }}{{ "
                   "'ab\\ncd'.splitlines() }}{{ '12'.isdigit() }}{{ ', '.join(['a', 'b']) }}"),
            "1 xHi Bob, x!['ab', 'cd']Truea, b");
  EXPECT_EQ(render("{{ dict(a=1, b='x') }}{{ dict(a=1).items()|list }}{{ {'a':1}.get('a') }}{{ "
                   "{'a':1}.get('b', 5) }}{{ {'a':1}.get('b') }}{{ {'a':1}.keys()|list }}{{ "
                   "{'a':1}.values()|list }}"),
            "{'a': 1, 'b': 'x'}[('a', 1)]15None['a'][1]");
  EXPECT_EQ(render("{{ [1, 2, 1].count(1) }}{{ [1, 2].index(2) }}{{ dict(a=1, **{'b': 2}) }}"),
            "21{'a': 1, 'b': 2}");
}

TEST(Jinja, Globals) {
  EXPECT_EQ(render("{{ range(3)|list }} {{ range(1,10,3)|list }} {{ range(5, 0, -2)|list }}{{ "
                   "range(0)|list }}"),
            "[0, 1, 2] [1, 4, 7] [5, 3, 1][]");
  // jinja2: OverflowError: Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).
  EXPECT_NE(render_error("{{ range(1000000)|length }}"), "");
  EXPECT_EQ(render("{{ raise_exception('boom') if false else 'ok' }}"), "ok");
  // jinja2: TemplateError: Conversation roles must alternate
  EXPECT_NE(render_error("{{ raise_exception('Conversation roles must alternate') }}"), "");
}

TEST(Jinja, ToJson) {
  EXPECT_EQ(render("{{ {'a':[1,2]}|tojson }} {{ {'a':[1,2]}|tojson(indent=2) }} {{ "
                   "'ü\\n\"\\\\'|tojson }} {{ [] | tojson(indent=2) }}"),
            "{\"a\": [1, 2]} {\n  \"a\": [\n    1,\n    2\n  ]\n} \"ü\\n\\\"\\\\\" []");
  EXPECT_EQ(render("{{ 1.5|tojson }}{{ 10|tojson }}{{ true|tojson }}{{ none|tojson }}{{ {'a': "
                   "none, 'b': 1.0}|tojson }}{{ (1, 2)|tojson }}"),
            "1.510truenull{\"a\": null, \"b\": 1.0}[1, 2]");
  EXPECT_EQ(
      render("{{ {'b':1,'a':2}|tojson(sort_keys=true) }}{{ {'a':[1,{'c':2}]}|tojson(indent=4) }}{{ "
             "{'a':1,'b':2}|tojson(separators=(',', ':')) }}"),
      "{\"a\": 2, \"b\": 1}{\n    \"a\": [\n        1,\n        {\n            \"c\": 2\n        "
      "}\n    ]\n}{\"a\":1,\"b\":2}");
  EXPECT_EQ(render("{{ '\\x01\\x7f'|tojson }}{{ '한국어'|tojson }}{{ '\\U0001F600'|tojson }}{{ "
                   "'a/b<>&\\'\\t'|tojson }}{{ {'k': {}}|tojson(indent='\\t') }}"),
            "\"\\u0001\x7f"
            "\"\"한국어\"\"😀\"\"a/b<>&'\\t\"{\n\t\"k\": {}\n}");
  EXPECT_EQ(render("{{ 0.1|tojson }}{{ 1e20|tojson }}{{ 1e-7|tojson }}{{ -5|tojson }}{{ "
                   "messages[0]|tojson }}"),
            "0.11e+201e-07-5{\"role\": \"system\", \"content\": \" S \"}");
}

TEST(Jinja, MoreEdgeCases) {
  EXPECT_EQ(render("{{ x|trim }}|{{ x|upper }}|{{ x|list }}|{{ x|join(',') }}|{{ x|first }}|{{ "
                   "x|string }}|{{ x|length }}|{{ x|count }}"),
            "||[]||||0|0");
  // jinja2: TypeError: Object of type Undefined is not JSON serializable
  EXPECT_NE(render_error("{{ x|tojson }}"), "");
  // jinja2: TypeError: argument of type 'NoneType' is not iterable
  EXPECT_NE(render_error("{{ 'a' in none }}"), "");
  // jinja2: TypeError: object of type 'int' has no len()
  EXPECT_NE(render_error("{{ 5|length }}"), "");
  EXPECT_EQ(render("{{ x is none }}{% if x %}y{% else %}n{% endif %}"), "Falsen");
  EXPECT_EQ(render("{% for i in [1,2,3] %}{{ loop.length }}{% if i == 2 %}{% break %}{% endif %}{% "
                   "endfor %}"),
            "33");
  EXPECT_EQ(
      render("{{ [{'a':{'b':2}},{'a':{'b':1}}]|sort(attribute='a.b')|map(attribute='a.b')|join }}"),
      "12");
  EXPECT_EQ(
      render("{{ {'a':1,'a':2} }}{{ {'a':1}|tojson(indent=none) }}{{ [1,2]|tojson(indent=0) }}"),
      "{'a': 2}{\"a\": 1}[\n1,\n2\n]");
  EXPECT_EQ(render("{{ 'abc'|replace('', '-') }}{{ 3|string * 2 }}{{ '%d' % 3.7 }}{{ '%s' % [1] "
                   "}}{{ '%s %s' % ('a', none) }}"),
            "-a-b-c-333[1]a None");
  EXPECT_EQ(render("{{ 9223372036854775807 }}{{ -9223372036854775807 }}"),
            "9223372036854775807-9223372036854775807");
  EXPECT_EQ(
      render("{{ 'ABC'|lower|capitalize }}{{ 'x y'|title }}{{ 'hello-world foo_bar'|title }}"),
      "AbcX YHello-World Foo_bar");
  EXPECT_EQ(render("{{ [1,2,3]|join }}{{ ['a', 1, none]|join('-') }}{{ {'a':1,'b':2}|join(',') }}"),
            "123a-1-Nonea,b");
  EXPECT_EQ(render("{{ [none, 'b', 1] }}{{ [1.0, 2.50] }}{{ {'x': [none]} }}"),
            "[None, 'b', 1][1.0, 2.5]{'x': [None]}");
  EXPECT_EQ(render("{{ messages|first }}{{ (messages|last).role }}"),
            "{'role': 'system', 'content': ' S '}user");
  EXPECT_EQ(render("{{ messages[0].get('content') }}{{ messages[0].get('missing', 'dv') }}{{ "
                   "messages[0].items()|list|length }}"),
            " S dv2");
  EXPECT_EQ(render("{{ 'a' ~ x ~ 'b' }}{{ x or 'fallback' }}{{ x and 'no' }}|"), "abfallback|");
  EXPECT_EQ(
      render("{{ [] is sequence }}{{ 'abc' is iterable }}{{ 1 is iterable }}{{ none is defined }}"),
      "TrueTrueFalseTrue");
  // jinja2's Undefined has a length and item access: a sequence (and iterable), none is not.
  EXPECT_EQ(render("{{ tools is sequence }}{{ tools is iterable }}{{ none is sequence }}"),
            "TrueTrueFalse");
  EXPECT_EQ(render("{{ range(3)|reverse|list }}{{ range(3)|sum }}{{ range(3)|max }}"),
            "[2, 1, 0]32");
  EXPECT_EQ(render("{% set a = [1,2,3] %}{{ a[1:]|list }}{{ a|length > 2 }}{{ a[0] + a[-1] }}"),
            "[2, 3]True4");
  EXPECT_EQ(render("{%- set content = '<think>\\nr\\n</think>\\n\\nfinal' %}{%- if '</think>' in "
                   "content %}{%- set reasoning_content = "
                   "content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') "
                   "%}{%- set content = content.split('</think>')[-1].lstrip('\\n') %}{%- endif "
                   "%}[{{ reasoning_content }}][{{ content }}]"),
            "[r][final]");
  EXPECT_EQ(
      render("{{ 'x'.startswith('') }}{{ ''.split(',') }}{{ ''.split() }}{{ 'a'.rsplit(',') }}"),
      "True[''][]['a']");
  EXPECT_EQ(render("{{ (1, 2) == [1, 2] }}{{ (1, 2)|list }}{{ 1 in (1, 2) }}"), "False[1, 2]True");
  EXPECT_EQ(
      render("{{ 0.5|round }}{{ 1.5|round }}{{ -2.5|round }}{{ 1.25|round(1) }}{{ 7|round }}"),
      "0.02.0-2.01.27");
  EXPECT_EQ(
      render(
          "{{ 10/3 }}{{ -7 // 2.0 }}{{ 2**0.5 }}{{ 1e5 }}{{ 12345678901234567.0 }}{{ 0.000012 }}"),
      "3.3333333333333335-4.01.4142135623730951100000.01.2345678901234568e+161.2e-05");
}

TEST(Jinja, SyntaxAndNameErrors) {
  // jinja2: TemplateAssertionError: No filter named 'nosuchfilter'.
  EXPECT_NE(render_error("{{ 'a' | nosuchfilter }}"), "");
  // jinja2: TemplateRuntimeError: No test named 'nosuchtest' found.
  EXPECT_NE(render_error("{% if x is nosuchtest %}{% endif %}"), "");
}

TEST(Jinja, RaiseExceptionMessageIsTheError) {
  EXPECT_EQ(render_error("{{ raise_exception('Conversation roles must alternate') }}"),
            "Conversation roles must alternate");
  EXPECT_EQ(render_error("{% if messages[1].role == 'user' %}{{ raise_exception('no ' ~ "
                         "messages[1].role) }}{% endif %}"),
            "no user");
}

TEST(Jinja, SyntaxErrorsNameLineAndColumn) {
  const auto bad = ChatTemplate::parse("line one\n{% if true %}\n  {{ 1 + }}\n{% endif %}");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("line 3, column 10"), std::string::npos) << bad.message();
  for (const char* src :
       {"{% for %}", "{% if true %}unclosed", "{{ 1 + }}", "{% endif %}", "{{ 'unterminated }}",
        "{% nosuchtag %}", "{{ (1 }}", "{% set %}", "{{ a.1b }}", "{# open comment"}) {
    EXPECT_FALSE(ChatTemplate::parse(src).ok()) << src;
  }
}

TEST(Jinja, HostileTemplatesEndWithAnError) {
  // Endless recursion, a loop of 10^10 steps, output doubling, deep nesting.
  EXPECT_NE(render_error("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}"), "");
  EXPECT_NE(render_error(
                "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"),
            "");
  EXPECT_NE(render_error("{% set ns = namespace(s='x') %}{% for i in range(100) %}{% set ns.s = "
                         "ns.s ~ ns.s %}{% endfor %}"),
            "");
  EXPECT_NE(render_error("{{ 'x' * 100000000000 }}"), "");
  EXPECT_FALSE(
      ChatTemplate::parse("{{ " + std::string(5000, '(') + "1" + std::string(5000, ')') + " }}")
          .ok());
  std::string nested;
  for (int i = 0; i < 3000; ++i) nested += "{% if 1 %}";
  EXPECT_FALSE(ChatTemplate::parse(nested).ok());
}

TEST(Jinja, StrftimeNowFormatsTheGivenTime) {
  auto tpl = ChatTemplate::parse("{{ strftime_now('%d %b %Y') }}|{{ strftime_now('%Y-%m-%d') }}");
  ASSERT_TRUE(tpl.ok()) << tpl.message();
  setenv("TZ", "UTC", 1);  // strftime_now shows local time, as Python's datetime.now() does
  tzset();
  ChatRenderOptions o;
  o.now_unix_seconds = 1767355200;  // 2026-01-02 12:00:00 UTC
  auto text = tpl->render({}, o);
  ASSERT_TRUE(text.ok()) << text.message();
  EXPECT_EQ(*text, "02 Jan 2026|2026-01-02");
}

TEST(Jinja, RenderTakesChatMessagesAndOptions) {
  auto tpl = ChatTemplate::parse(
      "{{ bos_token }}{% for m in messages %}<|{{ m.role }}|>{{ m['content'] }}{{ eos_token }}{% "
      "endfor %}"
      "{% if add_generation_prompt %}<|assistant|>{% endif %}");
  ASSERT_TRUE(tpl.ok()) << tpl.message();
  ChatRenderOptions o;
  o.bos_token = "<s>";
  o.eos_token = "</s>";
  auto text = tpl->render({{"user", "hi"}, {"assistant", "yo"}}, o);
  ASSERT_TRUE(text.ok()) << text.message();
  EXPECT_EQ(*text, "<s><|user|>hi</s><|assistant|>yo</s><|assistant|>");
  o.add_generation_prompt = false;
  EXPECT_EQ(*tpl->render({{"user", "hi"}}, o), "<s><|user|>hi</s>");
  EXPECT_EQ(tpl->source().substr(0, 15), "{{ bos_token }}");
}

TEST(Jinja, RenderJsonTakesAnyMessageKeysAndTopLevelVariables) {
  auto tpl = ChatTemplate::parse(
      "{% for t in tools %}[{{ t.function.name }}]{% endfor %}"
      "{% for m in messages %}{{ m.role }}:{% if m.tool_calls %}{{ "
      "m.tool_calls[0].function.arguments|tojson }}"
      "{% else %}{{ m.content }}{% endif %};{% endfor %}{{ enable_thinking }}");
  ASSERT_TRUE(tpl.ok()) << tpl.message();
  ChatRenderOptions o;
  o.extra_variables_json = R"({"enable_thinking": false})";
  auto text = tpl->render_json(
      R"({"messages": [{"role": "user", "content": "w?"},
                       {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {"city": "Paris"}}}]}],
          "tools": [{"type": "function", "function": {"name": "get_weather"}}]})",
      o);
  ASSERT_TRUE(text.ok()) << text.message();
  EXPECT_EQ(*text, "[get_weather]user:w?;assistant:{\"city\": \"Paris\"};False");
  EXPECT_FALSE(tpl->render_json("[{\"role\": ", o).ok());
  EXPECT_FALSE(tpl->render_json("{\"no_messages\": []}", o).ok());
}

TEST(Jinja, PrefixStability) {
  // ChatML is append-only without the generation prompt; a template that puts the
  // last user message in a special place is not.
  auto chatml = ChatTemplate::parse(
      "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
      "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}");
  ASSERT_TRUE(chatml.ok());
  const std::vector<ChatMessage> conv = {{"user", "a"}, {"assistant", "b"}, {"user", "c"}};
  ChatRenderOptions o;
  o.add_generation_prompt = false;
  EXPECT_TRUE(*chatml->is_prefix_stable(conv, 1, o));
  EXPECT_TRUE(*chatml->is_prefix_stable(conv, 2, o));
  o.add_generation_prompt = true;
  EXPECT_TRUE(*chatml->is_prefix_stable(conv, 1, o));  // "...assistant\n" then "b"
  EXPECT_FALSE(
      *chatml->is_prefix_stable(conv, 2, o));  // the opened assistant turn is not followed by user
  auto last_special = ChatTemplate::parse(
      "{% for m in messages %}{% if loop.last %}[LAST]{% endif %}{{ m.content }}{% endfor %}");
  ASSERT_TRUE(last_special.ok());
  EXPECT_FALSE(*last_special->is_prefix_stable(conv, 1, o));
  EXPECT_FALSE(chatml->is_prefix_stable(conv, 3, o).ok());
}

TEST(Jinja, TemplatesAreCopyableAndShareTheParse) {
  auto tpl = ChatTemplate::parse("{{ messages|length }}");
  ASSERT_TRUE(tpl.ok());
  const ChatTemplate copy = *tpl;
  EXPECT_EQ(*copy.render({{"user", "x"}}, {}), "1");
  EXPECT_EQ(&copy.source(), &tpl->source());
}

// ---------------------------------------------------------------------------
// Hostile templates found by fuzzing (tests/fuzz/fuzz_jinja.cpp; the inputs are kept in
// tests/fuzz/regressions-jinja). Each must end in an error that says why, not a crash
// or a hang.

std::string repeated(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// Operator chains are parsed by loops into trees as deep as the chain is long; the
// interpreter used to overflow its stack evaluating (and freeing) them.
TEST(Jinja, LongOperatorChainsAreRefusedNotOverflowed) {
  for (const std::string& chain :
       {"{{ " + repeated("1+", 100000) + "1 }}", "{{ x" + repeated(".a", 100000) + " }}",
        "{{ 'x'" + repeated("|trim", 100000) + " }}",
        "{{ 'a'" + repeated(" ~ 'a'", 100000) + " }}"}) {
    auto tpl = ChatTemplate::parse(chain);
    ASSERT_FALSE(tpl);
    EXPECT_NE(tpl.message().find("line 1, column"), std::string::npos) << tpl.message();
    EXPECT_NE(tpl.message().find("expression nested too deeply"), std::string::npos)
        << tpl.message();
  }
  // A chain of 150 is a tree 150 deep: still accepted, and computed.
  EXPECT_EQ(render("{{ " + repeated("1+", 150) + "1 }}"), "151");
}

// A namespace that holds itself: printing it used to recurse without end, and the
// cycle was never freed (LeakSanitizer).
TEST(Jinja, NamespaceHoldingItselfIsAnErrorWhenPrintedAndIsFreed) {
  EXPECT_NE(render_error("{% set ns = namespace(x=0) %}{% set ns.x = ns %}{{ ns }}")
                .find("nested too deeply"),
            std::string::npos);
  // Comparing and building around the cycle still work.
  EXPECT_EQ(
      render("{% set ns = namespace(x=0) %}{% set ns.x = [ns] %}{{ ns == ns }}{{ ns.x | length }}"),
      "True1");
}

// Values nested ever deeper in a loop (100000 levels): printing or freeing them used
// to overflow the stack. Nesting beyond 512 levels is refused where it is built.
TEST(Jinja, DeeplyNestedValuesAreRefused) {
  EXPECT_NE(render_error(
                "{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}"
                "{% endfor %}{{ ns.x }}")
                .find("value nested too deeply"),
            std::string::npos);
  // 500 levels are fine: printed as [[[...]]].
  EXPECT_EQ(render("{% set ns = namespace(x=[]) %}{% for i in range(499) %}{% set ns.x = [ns.x] "
                   "%}{% endfor %}"
                   "{{ ns.x | string | length }}"),
            "1000");
}

constexpr const char* kSizeLimitError =
    "template output exceeds the size limit of 16 MiB (one string or list)";

// 'x' * n with a huge n: the size check overflowed (and an empty string looped n times).
TEST(Jinja, RepeatingBySomethingHugeIsBounded) {
  EXPECT_EQ(render_error("{{ 'abc' * 9223372036854775807 }}"), kSizeLimitError);
  EXPECT_EQ(render_error("{{ [1, 2, 3] * 9223372036854775807 }}"), kSizeLimitError);
  EXPECT_EQ(render("{{ ('' * 9223372036854775807) | length }}{{ [] * 9223372036854775807 }}"),
            "0[]");
  // A list of 16 Mi items would take over 1 GiB: refused by the same size limit.
  EXPECT_EQ(render_error("{{ (range(100000) | list) * 200 }}"), kSizeLimitError);
}

// Steps that each copy a multi-megabyte string are bounded by wall time (without it
// this 90-byte template ran for minutes).
TEST(Jinja, SlowStepsAreBoundedByTime) {
  const std::string e = render_error(
      "{% set s = 'x' * 8000000 %}{% for i in range(100000) %}{% set y = s ~ s %}{% endfor %}done");
  EXPECT_NE(e.find("s to render"), std::string::npos) << e;
}

// raise_exception's text and the values quoted in error messages reach a terminal and
// the window: control characters escaped, at most ~200 bytes (issue 24 point 7).
TEST(Jinja, ErrorMessagesQuotingTemplateValuesArePrintableAndShort) {
  const std::string raised =
      render_error("{{ raise_exception('\x1b[2J\x1b]0;pwned\x07' ~ 'x' * 1000000) }}");
  EXPECT_EQ(raised.find('\x1b'), std::string::npos) << raised.substr(0, 300);
  EXPECT_EQ(raised.find('\x07'), std::string::npos);
  EXPECT_EQ(raised.rfind("\\e[2J\\e]0;pwned\\x07xxx", 0), 0u) << raised.substr(0, 300);
  EXPECT_NE(raised.find("(1000014 bytes)"), std::string::npos) << raised.substr(0, 300);
  EXPECT_LT(raised.size(), 300u);
  // Short, plain messages are kept as the template wrote them.
  EXPECT_EQ(
      render_error("{{ raise_exception('Conversation roles must alternate user/assistant/...') }}"),
      "Conversation roles must alternate user/assistant/...");
  // A long key, filter name or attribute quoted by an error.
  for (const std::string& source :
       {std::string("{{ {}['\x1b' ~ 'k' * 1000000].x }}"),
        std::string("{{ [1]|map('\x1b' ~ 'f' * 1000000)|list }}"),
        std::string("{{ [1, 2].index('\x1b' ~ 'v' * 1000000) }}"),
        std::string("{{ ('{' ~ '\x1b' ~ 'n' * 1000000 ~ '}').format(1) }}"),
        std::string("{{ ({}|attr('a' * 1000000)).x }}")}) {
    const std::string e = render_error(source);
    EXPECT_FALSE(e.empty()) << source.substr(0, 40);
    EXPECT_EQ(e.find('\x1b'), std::string::npos) << e.substr(0, 300);
    EXPECT_LT(e.size(), 400u) << e.substr(0, 300);
  }
  // Syntax errors quote the template's own text the same way.
  auto bad = ChatTemplate::parse("{{ a \x1b }}");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.message().find('\x1b'), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("\\e"), std::string::npos) << bad.message();
}

// None and undefined where tool-calling templates meet them (tools=None, missing keys).
// Each expectation is what jinja2 3.1.6 renders (or raises) for the same template.
namespace {

std::string render_tools_none_when_absent(const std::string& source) {
  auto tpl = ChatTemplate::parse(source);
  if (!tpl) return "PARSE ERROR: " + tpl.message();
  ChatRenderOptions o;
  o.add_generation_prompt = false;
  o.tools_none_when_absent = true;
  auto text = tpl->render_json(kMessages, o);
  return text ? *text : "ERROR: " + text.message();
}

}  // namespace

TEST(Jinja, SelectAndMapOfAFalseValueAreEmpty) {
  // jinja2's map / select / reject / selectattr / rejectattr start with `if value:`.
  EXPECT_EQ(render("{{ none | selectattr('type', 'equalto', 'x') | list }}"), "[]");
  EXPECT_EQ(
      render("{{ tools | selectattr('type') | list | length }}", kMessages, R"({"tools": null})"),
      "0");
  EXPECT_EQ(render("{{ undefined_var | rejectattr('type') | list }}"), "[]");
  EXPECT_EQ(render("{{ none | map(attribute='function') | list }}|{{ 0 | select | list }}|{{ '' "
                   "| reject | list }}"),
            "[]|[]|[]");
  // The arguments are not even looked at.
  EXPECT_EQ(render("{{ none | map() | list }}{{ [] | map() | list }}"), "[][]");
  // Iterating None itself still fails, as in Python.
  EXPECT_EQ(render_error("{% for t in none %}x{% endfor %}"), "'NoneType' object is not iterable");
}

TEST(Jinja, ToolsNoneWhenAbsent) {
  // As transformers' apply_chat_template passes them: tools=None, documents=None.
  EXPECT_EQ(render_tools_none_when_absent(
                "{{ tools is defined }}|{{ tools is none }}|{{ tools is iterable }}|{{ "
                "documents is none }}"),
            "True|True|False|True");
  EXPECT_EQ(render("{{ tools is defined }}|{{ tools is iterable }}"), "False|True");
  EXPECT_EQ(render_tools_none_when_absent("{% for t in tools %}x{% endfor %}"),
            "ERROR: 'NoneType' object is not iterable");
  EXPECT_EQ(render("{% for t in tools %}x{% else %}none{% endfor %}"), "none");
}

TEST(Jinja, FiltersOnNoneAndUndefinedFailAsJinja2s) {
  EXPECT_EQ(render_error("{{ [[1], [1]] | unique | list }}"), "unhashable type: 'list'");
  EXPECT_EQ(render_error("{{ [{'a': 1}] | unique | list }}"), "unhashable type: 'dict'");
  EXPECT_EQ(render("{{ [(1, 2), (1, 2)] | unique | list }}"), "[(1, 2)]");
  EXPECT_EQ(render("{{ undefined_var is callable }}|{{ none is callable }}"), "True|False");
  EXPECT_EQ(render_error("{{ undefined_var | int }}"), "'undefined_var' is undefined");
  EXPECT_EQ(render_error("{{ undefined_var | float }}"), "'undefined_var' is undefined");
  EXPECT_EQ(render("{{ none | int }}|{{ none | float }}"), "0|0.0");
  EXPECT_EQ(render_error("{{ none | indent }}"),
            "unsupported operand type(s) for +=: 'NoneType' and 'str'");
  EXPECT_EQ(render_error("{{ 5 | indent }}"),
            "unsupported operand type(s) for +=: 'int' and 'str'");
  EXPECT_EQ(render_error("{{ none | truncate(5) }}"), "object of type 'NoneType' has no len()");
  EXPECT_EQ(render("{{ undefined_var | truncate(5) }}|{{ 'abcdefghij' | truncate(5, leeway=0) }}"),
            "|ab...");
  EXPECT_EQ(render_error("{{ 'x' | truncate(2) }}"), "expected length >= 3, got 2");
  EXPECT_EQ(render_error("{{ none | dictsort }}"), "'NoneType' object has no attribute 'items'");
  EXPECT_EQ(render_error("{{ undefined_var | dictsort }}"), "'undefined_var' is undefined");
  EXPECT_EQ(render_error("{{ none | reverse }}"), "argument must be iterable");
  EXPECT_EQ(render_error("{{ none | items | list }}"), "Can only get item pairs from a mapping.");
  EXPECT_EQ(render_error("{{ none | round }}"), "type NoneType doesn't define __round__ method");
  EXPECT_EQ(render_error("{{ range(none) }}"),
            "'NoneType' object cannot be interpreted as an integer");
}

TEST(Jinja, MissingAttributesOfNoneAndOperandErrorsAsJinja2s) {
  EXPECT_EQ(render_error("{{ none.strip() }}"), "'None' has no attribute 'strip'");
  EXPECT_EQ(render_error("{{ none['x'] + 1 }}"), "'None' has no attribute 'x'");
  EXPECT_EQ(render_error("{{ none[0] + 1 }}"), "None has no element 0");
  EXPECT_EQ(render_error("{{ {'a': 1}[0] + 1 }}"), "dict object has no element 0");
  EXPECT_EQ(render_error("{{ none + 'x' }}"),
            "unsupported operand type(s) for +: 'NoneType' and 'str'");
  EXPECT_EQ(render_error("{{ [1] + none }}"),
            "can only concatenate list (not \"NoneType\") to list");
  EXPECT_EQ(render_error("{{ [1] + (2,) }}"), "can only concatenate list (not \"tuple\") to list");
}

TEST(Jinja, SafeStringsAreMarkup) {
  // |safe gives a markupsafe.Markup: `+` escapes the plain string on either side
  // (functionary v3.1 builds its tool list so, the JSON coming out HTML-escaped).
  EXPECT_EQ(render("{{ \"'\"|safe + \"<a href='x'>\" }}"), "'&lt;a href=&#39;x&#39;&gt;");
  EXPECT_EQ(render("{{ '<b>' + ('&'|safe) }}"), "&lt;b&gt;&");
  EXPECT_EQ(render("{{ ('<'|safe) ~ '>' }}|{{ ('<'|e) }}|{{ ('<'|e|e) }}|{{ "
                   "('&lt;'|safe|forceescape) }}"),
            "<>|&lt;|&lt;|&amp;lt;");
  EXPECT_EQ(render("{{ ('a'|safe + {'k': '\"v\"'} | tojson) }}"),
            "a{&#34;k&#34;: &#34;\\&#34;v\\&#34;&#34;}");
  EXPECT_EQ(render("{{ ('a'|safe|string) + '<' }}"), "a&lt;");
  EXPECT_EQ(render("{{ ('a'|safe) == 'a' }}|{{ ('<'|safe|length) }}"), "True|1");
}

}  // namespace
}  // namespace kvchat

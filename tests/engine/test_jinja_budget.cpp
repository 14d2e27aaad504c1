// Hostile chat templates against the interpreter's value budget and wall-time limit
// (issue 24 point 1). A template comes with a downloaded GGUF and runs as soon as the
// user chats: whatever it builds, a render must end quickly with an error that names the
// limit, and its resident memory must stay under the budget (64 MiB) plus a small
// constant. Each case renders in a forked child under an address-space limit, so that a
// regression fails the test (bad_alloc, a signal, the clock) instead of exhausting the
// machine; the child reports its error text, its peak resident growth
// (getrusage ru_maxrss over /proc/self/statm at the start) and its wall time.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <new>
#include <string>

#include "chat/jinja/interpreter.h"
#include "chat/jinja/json.h"
#include "chat/jinja/parser.h"
#include "support/test_paths.h"

namespace kvchat::jinja {
namespace {

constexpr const char* kMessages =
    R"([{"role": "system", "content": "S"}, {"role": "user", "content": "u1"},
        {"role": "assistant", "content": "a1"}, {"role": "user", "content": "u2"}])";

constexpr long kBudgetKiB = 64 * 1024;  // RenderLimits::max_value_bytes
constexpr long kSlackKiB = 32 * 1024;   // one transient string or list beside the budget

struct Outcome {
  bool exited = false;  // the child finished (no signal, no alarm)
  std::string text;     // "ERROR: <message>" or the rendered text
  long rss_growth_kib = 0;
  double seconds = 0;
};

long resident_kib() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

long address_space_bytes() {
  std::ifstream statm("/proc/self/statm");
  long size = 0;
  statm >> size;
  return size * sysconf(_SC_PAGESIZE);
}

std::string render_here(const std::string& source, double max_seconds) {
  try {
    const auto tree = parse_template(source);
    RenderLimits limits;
    limits.max_seconds = max_seconds;
    std::unordered_map<std::string, Value> vars;
    vars["messages"] = parse_json(kMessages);
    vars["add_generation_prompt"] = Value(true);
    Interpreter interpreter(*tree, 1'700'000'000, limits);
    return interpreter.render(vars);
  } catch (const RenderError& e) {
    return std::string("ERROR: ") + e.what();
  } catch (const std::bad_alloc&) {
    return "ERROR: out of memory";
  } catch (const std::exception& e) {
    return std::string("ERROR: ") + e.what();
  }
}

// Renders `source` in a child with at most 1 GiB more address space and 20 s of time.
Outcome render_in_child(const std::string& source, double max_seconds = 5.0) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const rlim_t limit = static_cast<rlim_t>(address_space_bytes()) + (rlim_t{1} << 30);
    const rlimit as{limit, limit};
    setrlimit(RLIMIT_AS, &as);
    alarm(20);
    const long start_kib = resident_kib();
    const auto t0 = std::chrono::steady_clock::now();
    std::string text = render_here(source, max_seconds);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    if (text.size() > 4096) text = "OUTPUT of " + std::to_string(text.size()) + " bytes";
    const std::string report =
        std::to_string(seconds) + "\n" + std::to_string(usage.ru_maxrss - start_kib) + "\n" + text;
    size_t off = 0;
    while (off < report.size()) {
      const ssize_t n = write(fds[1], report.data() + off, report.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string report;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) report.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  Outcome o;
  o.exited = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  const size_t a = report.find('\n'), b = a == std::string::npos ? a : report.find('\n', a + 1);
  if (!o.exited || b == std::string::npos) {
    o.exited = false;
    o.text =
        WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status)) : "no report";
    return o;
  }
  o.seconds = std::stod(report.substr(0, a));
  o.rss_growth_kib = std::stol(report.substr(a + 1, b - a - 1));
  o.text = report.substr(b + 1);
  return o;
}

const std::string kBudgetError =
    "ERROR: template exceeded its memory budget of 64 MiB (values built while rendering)";
const std::string kSizeError =
    "ERROR: template output exceeds the size limit of 16 MiB (one string or list)";

// The case ends with `error` (a prefix of the message), within `max_wall` seconds, and
// its resident memory grew by less than the budget plus the slack.
void expect_bounded(const std::string& source, const std::string& error, double max_seconds = 5.0,
                    double max_wall = 3.0) {
  const Outcome o = render_in_child(source, max_seconds);
  ASSERT_TRUE(o.exited) << source << ": " << o.text;
  EXPECT_EQ(o.text.substr(0, error.size()), error) << source;
  EXPECT_LT(o.rss_growth_kib, kBudgetKiB + kSlackKiB) << source;
  EXPECT_LT(o.seconds, max_wall) << source;
  std::printf("%-100.100s  %6.3f s  %7ld KiB  %s\n", source.c_str(), o.seconds, o.rss_growth_kib,
              o.text.c_str());
}

TEST(JinjaBudget, PaddingFiltersAreBoundedBeforeTheyAllocate) {
  expect_bounded("{{ 'x'|center(2000000000) }}", kSizeError);
  expect_bounded("{{ 'x'|indent(2000000000, first=true) }}", kSizeError);
  expect_bounded("{{ ('\n' * 1000000)|indent('x' * 1000, blank=true) }}", kSizeError);
  expect_bounded("{{ {'a': 1}|tojson(indent=2000000000) }}", kSizeError);
  expect_bounded("{{ strftime_now('%c' * 4000000) }}", kSizeError);
}

TEST(JinjaBudget, StringsDoubledInALoopStopAtTheStringLimit) {
  expect_bounded(
      "{% set ns = namespace(s='xx') %}{% for i in range(64) %}{% set ns.s = '%s%s' % (ns.s, ns.s) "
      "%}"
      "{% endfor %}{{ ns.s|length }}",
      kSizeError);
  expect_bounded(
      "{% set ns = namespace(s='xx') %}{% for i in range(64) %}{% set ns.s = ns.s.replace('x', "
      "'xx') %}"
      "{% endfor %}{{ ns.s|length }}",
      kSizeError);
  expect_bounded(
      "{% set ns = namespace(s='xx') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}"
      "{% endfor %}{{ ns.s|length }}",
      kSizeError);
  expect_bounded(
      "{% set ns = namespace(s='xx') %}{% for i in range(64) %}{% set ns.s = ns.s * 2 %}"
      "{% endfor %}{{ ns.s|length }}",
      kSizeError);
  expect_bounded(
      "{% set ns = namespace(s='{0}{0}') %}{% for i in range(64) %}{% set ns.s = ns.s.format(ns.s) "
      "%}"
      "{% endfor %}{{ ns.s|length }}",
      kSizeError);
  expect_bounded(
      "{% set ns = namespace(s='xx') %}{% for i in range(64) %}{% set ns.s = '%s%s'|format(ns.s, "
      "ns.s) %}"
      "{% endfor %}{{ ns.s|length }}",
      kSizeError);
}

TEST(JinjaBudget, OneBigResultIsRefusedBeforeItIsBuilt) {
  expect_bounded("{{ ('x' * 1000)|replace('x', 'y' * 1000000) }}", kSizeError);
  expect_bounded("{{ ('x' * 1000).replace('', 'y' * 1000000) }}", kSizeError);
  expect_bounded("{{ ('{0}' * 100000).format('x' * 10000) }}", kSizeError);
  expect_bounded("{{ ('<' * 10000000)|escape }}", kSizeError);
  expect_bounded("{{ ['x' * 1000000] * 1000000 }}", kSizeError);
  expect_bounded("{% set s = 'x' * 8000000 %}{{ ([s] * 1000)|join|length }}", kSizeError);
  expect_bounded("{{ (range(100000)|list)|join('x' * 1000000) }}", kSizeError);
  expect_bounded("{{ [1]|batch(2000000000, 'x')|list }}", kSizeError);
  expect_bounded("{{ range(10000000000)|length }}", "ERROR: range too big");
}

TEST(JinjaBudget, ListsDoubledInALoopStopAtTheListLimit) {
  expect_bounded(
      "{% set ns = namespace(l=[1]) %}{% for i in range(64) %}{% set ns.l = ns.l + ns.l %}{% "
      "endfor %}"
      "{{ ns.l|length }}",
      kSizeError);
  expect_bounded(
      "{% set ns = namespace(l=[1]) %}{% for i in range(64) %}{% set ns.l = ns.l * 2 %}{% endfor %}"
      "{{ ns.l|length }}",
      kSizeError);
  // The sandbox refuses methods that modify a list.
  expect_bounded("{% set l = [1] %}{% for i in range(64) %}{% set _ = l.append(l) %}{% endfor %}",
                 "ERROR: access to attribute 'append' of 'list' object is unsafe.");
  expect_bounded("{% set l = [1] %}{% for i in range(64) %}{% set _ = l.extend(l) %}{% endfor %}",
                 "ERROR: access to attribute 'extend' of 'list' object is unsafe.");
}

// Many values, each within the per-value limit, that stay alive together.
TEST(JinjaBudget, ValuesKeptAliveTogetherStopAtTheBudget) {
  expect_bounded(
      "{% set ns = namespace(l=[]) %}{% for i in range(100) %}{% set ns.l = ns.l + [('x' * "
      "8000000) ~ i] %}"
      "{% endfor %}{{ ns.l|length }}",
      kBudgetError);
  expect_bounded(
      "{% set a = 'x' * 16000000 %}{% set b = a ~ 'y' %}{% set c = b ~ 'z' %}{% set d = c ~ 'w' %}"
      "{% set e = d ~ 'v' %}{{ e|length }}",
      kBudgetError);
  // Dicts nested in a namespace, each holding a new string.
  expect_bounded(
      "{% set ns = namespace(d={}) %}{% for i in range(500) %}"
      "{% set ns.d = {'k': ns.d, 'pad': 'x' * 200000 ~ i} %}{% endfor %}{{ ns.d|length }}",
      kBudgetError);
  // Strings made by map, kept in a list.
  expect_bounded(
      "{% set big = range(100000)|map('string')|map('center', 1000)|list %}{{ big|length }}",
      kBudgetError);
  // A macro recursing with its output held at every level.
  expect_bounded(
      "{% macro m(n) %}{{ 'x' * 15000000 }}{% if n %}{{ m(n - 1) }}{% endif %}{% endmacro %}{{ "
      "m(60) }}",
      "ERROR: ");
  // Iterating a long string makes a value per character.
  expect_bounded("{% set s = 'x' * 16000000 %}{% for c in s %}{% endfor %}", kSizeError);
  expect_bounded("{{ ('a ' * 8000000).split()|length }}", kBudgetError);
}

// A dict that holds another twice, 40 times over: 2^40 leaves. Printing, dumping and
// comparing it are bounded by the string limit or the clock.
TEST(JinjaBudget, SharedNestedDictsAreBoundedWhenPrintedOrCompared) {
  const std::string doubling =
      "{% set ns = namespace(d={}, e={}) %}{% for i in range(40) %}{% set ns.d = {'a': ns.d, 'b': "
      "ns.d} %}"
      "{% set ns.e = {'a': ns.e, 'b': ns.e} %}{% endfor %}";
  expect_bounded(doubling + "{{ ns.d }}", kSizeError);
  expect_bounded(doubling + "{{ ns.d|tojson }}", kSizeError);
  expect_bounded(doubling + "{{ ns.d|string|length }}", kSizeError);
  expect_bounded(doubling + "{{ ns.d == ns.e }}", "ERROR: template took longer than 1 s to render",
                 1.0);
}

// Builtins that loop without allocating much end by the clock (1 s here, 5 s by default).
TEST(JinjaBudget, QuadraticBuiltinsEndByTheClock) {
  expect_bounded("{{ ((range(100000)|list) + (range(90000)|list))|unique|list|length }}",
                 "ERROR: template took longer than 1 s to render", 1.0);
  expect_bounded("{{ dict((range(100000)|list)|batch(2)|list)|length }}",
                 "ERROR: template took longer than 1 s to render", 1.0);
  expect_bounded(
      "{% set s = 'x' * 16000000 %}{% for i in range(100000) %}{% set t = s.replace('x', 'y') %}"
      "{% endfor %}",
      "ERROR: template took longer than 1 s to render", 1.0);
}

// Sorting the longest range is fine, and quick.
TEST(JinjaBudget, SortingABigListIsQuick) {
  expect_bounded("{{ (range(100000)|list)|sort(reverse=true)|first }}", "99999");
  expect_bounded("{{ dict(range(2000)|batch(2)|list)|dictsort|length }}", "1000");
}

// Real templates stay far under the budget: every case of shared/templates/cases.json
// (14 published templates), and the largest of them over a long conversation.
TEST(JinjaBudget, RealTemplatesPeakFarBelowTheBudget) {
  setenv("TZ", "UTC", 1);
  tzset();
  const nlohmann::json doc = test::load_json(test::shared_path("templates/cases.json"));
  size_t peak = 0, rendered = 0;
  std::string peak_case;
  for (const auto& c : doc["cases"]) {
    const std::string name = c["template"].get<std::string>();
    const auto tree = parse_template(doc["templates"][name].get<std::string>());
    std::unordered_map<std::string, Value> vars;
    vars["messages"] = parse_json(c["messages"].dump());
    vars["add_generation_prompt"] = Value(c["add_generation_prompt"].get<bool>());
    vars["bos_token"] = Value(c["bos_token"].get<std::string>());
    vars["eos_token"] = Value(c["eos_token"].get<std::string>());
    Interpreter interpreter(*tree, 1767355200);
    try {
      const std::string text = interpreter.render(vars);
      EXPECT_EQ(text, c["expected"].is_null() ? std::string("(an error)")
                                              : c["expected"].get<std::string>())
          << name;
      ++rendered;
    } catch (const RenderError& e) {
      EXPECT_TRUE(c["expected"].is_null()) << name << ": " << e.what();
    }
    if (interpreter.budget().peak() > peak) {
      peak = interpreter.budget().peak();
      peak_case = name + " / " + c["conversation"].get<std::string>();
    }
  }
  EXPECT_EQ(rendered, 110u);
  std::printf("real templates: peak %zu bytes of values (%s)\n", peak, peak_case.c_str());
  EXPECT_LT(peak, size_t{1} << 20);

  // A conversation of 400 messages of 2 KB each through every template: 800 KB of text.
  std::string messages = "[";
  for (int i = 0; i < 400; ++i) {
    messages += std::string(i ? "," : "") + R"({"role": ")" + (i % 2 ? "assistant" : "user") +
                R"(", "content": ")" + std::string(2000, static_cast<char>('a' + i % 26)) + "\"}";
  }
  messages += "]";
  size_t long_peak = 0;
  for (const auto& [name, source] : doc["templates"].items()) {
    const auto tree = parse_template(source.get<std::string>());
    std::unordered_map<std::string, Value> vars;
    vars["messages"] = parse_json(messages);
    vars["add_generation_prompt"] = Value(true);
    vars["bos_token"] = Value("<s>");
    vars["eos_token"] = Value("</s>");
    Interpreter interpreter(*tree, 1767355200);
    try {
      interpreter.render(vars);
    } catch (const RenderError& e) {
      EXPECT_EQ(std::string(e.what()).find("budget"), std::string::npos)
          << name << ": " << e.what();
    }
    long_peak = std::max(long_peak, interpreter.budget().peak());
  }
  std::printf("real templates over 400 messages of 2 KB: peak %zu bytes of values\n", long_peak);
  EXPECT_LT(long_peak, size_t{16} << 20);
}

}  // namespace
}  // namespace kvchat::jinja

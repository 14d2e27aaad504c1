#include "kvchat/sampling_config.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <utility>

namespace kvchat {
namespace {

constexpr double kIntMax = std::numeric_limits<int32_t>::max();

constexpr std::array<SamplingField, 8> kFields = {{
    {"temperature", 0, 2, false, false},
    {"top_k", 0, kIntMax, false, true},
    {"top_p", 0, 1, true, false},
    {"min_p", 0, 1, false, false},
    {"repeat_penalty", 0, 10, true, false},
    {"repeat_last_n", 0, kIntMax, false, true},
    {"frequency_penalty", -2, 2, false, false},
    {"presence_penalty", -2, 2, false, false},
}};

// The member of `p` (SamplingParams, const or not) that field `name` sets, as a float or an
// int (the other null; both for an unknown name).
template <class Params>
struct FieldRef {
  decltype(&std::declval<Params&>().temperature) real = nullptr;
  decltype(&std::declval<Params&>().top_k) whole = nullptr;
};
template <class Params>
FieldRef<Params> member(Params& p, std::string_view name) {
  if (name == "temperature") return {&p.temperature, nullptr};
  if (name == "top_k") return {nullptr, &p.top_k};
  if (name == "top_p") return {&p.top_p, nullptr};
  if (name == "min_p") return {&p.min_p, nullptr};
  if (name == "repeat_penalty") return {&p.repeat_penalty, nullptr};
  if (name == "repeat_last_n") return {nullptr, &p.repeat_last_n};
  if (name == "frequency_penalty") return {&p.frequency_penalty, nullptr};
  if (name == "presence_penalty") return {&p.presence_penalty, nullptr};
  return {};
}

// A bound as people write it: 2, 0.5, 2147483647.
std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

bool in_range(const SamplingField& f, double v) {
  if (!std::isfinite(v) || v > f.hi) return false;
  return f.lo_open ? v > f.lo : v >= f.lo;
}

}  // namespace

std::span<const SamplingField> sampling_fields() { return kFields; }

const SamplingField* sampling_field(std::string_view name) {
  for (const SamplingField& f : kFields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string range_problem(const SamplingField& field, std::string_view given) {
  const std::string lo = number_text(field.lo), hi = number_text(field.hi);
  const std::string range =
      field.lo_open ? "greater than " + lo + " and at most " + hi : "between " + lo + " and " + hi;
  return "must be " + std::string(field.integer ? "a whole number " : "") + range + ", got " +
         std::string(given);
}

std::optional<FieldError> set_sampling_field(SamplingParams& params, std::string_view name,
                                             double value) {
  const SamplingField* f = sampling_field(name);
  if (!f) return FieldError{std::string(name), "is not a sampling setting"};
  const bool whole = !f->integer || (std::isfinite(value) && std::floor(value) == value);
  if (!whole || !in_range(*f, value)) {
    return FieldError{std::string(f->name), range_problem(*f, number_text(value))};
  }
  const auto m = member(params, name);
  if (m.real) *m.real = static_cast<float>(value);
  if (m.whole) *m.whole = static_cast<int32_t>(value);
  return std::nullopt;
}

double sampling_field_value(const SamplingParams& params, std::string_view name) {
  const auto m = member(params, name);
  if (m.real) return *m.real;
  if (m.whole) return *m.whole;
  return 0;
}

std::optional<FieldError> check_sampling(const SamplingParams& params) {
  for (const SamplingField& f : kFields) {
    SamplingParams scratch;
    if (auto e = set_sampling_field(scratch, f.name, sampling_field_value(params, f.name))) {
      return e;
    }
  }
  return std::nullopt;
}

uint64_t resolve_seed(std::optional<int64_t> seed) {
  if (seed && *seed >= 0) return static_cast<uint64_t>(*seed);
  std::random_device os;
  std::uniform_int_distribution<int64_t> draw(0, kMaxRandomSeed);
  return static_cast<uint64_t>(draw(os));
}

}  // namespace kvchat

// The sampling settings a user sets, stated once for every front end: each field's name,
// range and default (SamplingParams' own), how a value is checked and set, and the seed
// policy. The window (a Settings box), kvchat-cli (a flag) and the server (a JSON field)
// each map their own names onto these fields and a FieldError onto their own words: a
// flag's message, an HTTP 400 naming the field, a Settings message.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kvchat/sampler.h"

namespace kvchat {

// A setting given a value it cannot take. `field` is the setting's name (a SamplingField's,
// or another front-end-neutral name such as "kv_type"); `problem` says what is allowed and
// what was given, without naming the field: "must be between 0 and 2, got 5".
struct FieldError {
  std::string field;
  std::string problem;
};

// A sampling setting: [lo, hi] (lo excluded when lo_open), a whole number or not.
struct SamplingField {
  std::string_view name;  // "temperature", "top_k", ... (SamplingParams' member names)
  double lo = 0, hi = 0;
  bool lo_open = false;  // repeat_penalty: > 0
  bool integer = false;
};

// temperature [0, 2], top_k [0, 2^31-1], top_p (0, 1], min_p [0, 1], repeat_penalty (0, 10],
// repeat_last_n [0, 2^31-1], frequency_penalty and presence_penalty [-2, 2].
std::span<const SamplingField> sampling_fields();
const SamplingField* sampling_field(std::string_view name);  // nullptr: no such field

// Sets field `name` of `params` to `value` after checking it against the field's range (an
// integer field also takes no fraction). Nothing is set on an error.
std::optional<FieldError> set_sampling_field(SamplingParams& params, std::string_view name,
                                             double value);
// The value of field `name` in `params` (0 for an unknown name).
double sampling_field_value(const SamplingParams& params, std::string_view name);
// Every field of `params` checked (the first error).
std::optional<FieldError> check_sampling(const SamplingParams& params);

// The seed policy. A seed >= 0 is used as it is (the same seed, prompt and settings give the
// same reply). kRandomSeed (any negative seed) asks for a fresh one for every reply, drawn
// from the OS in [0, kMaxRandomSeed] (a value every front end can show and take back: the
// window's seed box is an int).
inline constexpr int64_t kRandomSeed = -1;
inline constexpr int64_t kMaxRandomSeed = 2147483647;
uint64_t resolve_seed(std::optional<int64_t> seed);  // unset or negative: a random one

// "must be between 0 and 2, got 5" (or "must be greater than 0 and at most 10, got 0") for
// a value outside `field`'s range; `given` is the value as the user wrote it.
std::string range_problem(const SamplingField& field, std::string_view given);

}  // namespace kvchat

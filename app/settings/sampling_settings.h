// Sampling settings as the app keeps them (a QVariantMap from QML or JSON): one parser
// for chat replies and summary jobs.
#pragma once

#include <QVariantMap>

#include <optional>

#include "kvchat/sampler.h"
#include "kvchat/sampling_config.h"

namespace kvchat::app {

// The fields present in `s` (kvchat/sampling_config.h's: temperature, top_k, top_p, min_p,
// repeat_penalty, repeat_last_n, ...; and seed) override `defaults`. A negative "seed"
// (kRandomSeed, the default) asks for a fresh random one (kvchat::resolve_seed).
SamplingParams sampling_params(const QVariantMap& s, SamplingParams defaults = {});
// The first field of `s` the engine cannot take, in its words (the Settings page says it).
std::optional<FieldError> sampling_problem(const QVariantMap& s);

// The seed policy's values, as the app's settings spell them.
using kvchat::kMaxRandomSeed;
using kvchat::kRandomSeed;

// `s` with a negative "seed" replaced by a fresh random one in [0, kMaxRandomSeed], so the
// reply can say which seed it was sampled with.
QVariantMap with_reply_seed(QVariantMap s);

}  // namespace kvchat::app

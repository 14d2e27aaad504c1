// Sampling settings as the app keeps them (a QVariantMap from QML or JSON): one parser
// for chat replies and summary jobs.
#pragma once

#include <QVariantMap>

#include "kvchat/sampler.h"

namespace kvchat::app {

// The fields present in `s` (temperature, top_k, top_p, min_p, repeat_penalty,
// repeat_last_n, seed) override `defaults`.
SamplingParams sampling_params(const QVariantMap& s, SamplingParams defaults = {});

}  // namespace kvchat::app

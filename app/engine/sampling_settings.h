// Sampling settings as the app keeps them (a QVariantMap from QML or JSON): one parser
// for chat replies and summary jobs.
#pragma once

#include <QVariantMap>

#include "kvchat/sampler.h"

namespace kvchat::app {

// The fields present in `s` (temperature, top_k, top_p, min_p, repeat_penalty,
// repeat_last_n, seed) override `defaults`.
// A negative "seed" (kRandomSeed, the default) asks for a fresh random one.
SamplingParams sampling_params(const QVariantMap& s, SamplingParams defaults = {});

// "seed" -1: every reply samples with a seed of its own, chosen at random.
constexpr qint64 kRandomSeed = -1;
// The largest seed chosen at random: one the seed box (an int) can take back.
constexpr qint64 kMaxRandomSeed = 2147483647;
// `s` with a negative "seed" replaced by a fresh random one in [0, kMaxRandomSeed], so the
// reply can say which seed it was sampled with.
QVariantMap with_reply_seed(QVariantMap s);

}  // namespace kvchat::app

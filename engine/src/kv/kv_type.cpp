#include "kv/kv_type.h"

#include "kv/kv_rotation.h"
#include "kvchat/kv_types.h"

namespace kvchat {

std::string_view kv_type_name(KvType t) {
  switch (t) {
    case KvType::F32: return "f32";
    case KvType::F16: return "f16";
    case KvType::Q8_0: return "q8_0";
    case KvType::Q4_0: return "q4_0";
    case KvType::Q8_0R: return "q8_0r";
    case KvType::Q4_0R: return "q4_0r";
  }
  return "unknown";
}

std::optional<KvType> parse_kv_type(std::string_view name) {
  for (KvType t : kAllKvTypes) {
    if (name == kv_type_name(t)) return t;
  }
  return std::nullopt;
}

std::string kv_types_name(KvType k, KvType v) {
  return k == v ? std::string(kv_type_name(k))
                : std::string(kv_type_name(k)) + "/" + std::string(kv_type_name(v));
}

std::optional<std::pair<KvType, KvType>> parse_kv_types(std::string_view name) {
  const size_t slash = name.find('/');
  const auto k = parse_kv_type(name.substr(0, slash));
  const auto v = slash == std::string_view::npos ? k : parse_kv_type(name.substr(slash + 1));
  if (!k || !v) return std::nullopt;
  return std::pair{*k, *v};
}

std::string kv_type_list() {
  std::string list;
  for (KvType t : kAllKvTypes) list += (list.empty() ? "" : ", ") + std::string(kv_type_name(t));
  return list;
}

std::string kv_type_choices() { return kv_type_list() + ", or K/V such as q8_0/q4_0"; }

KvType kv_layout(KvType t) {
  switch (t) {
    case KvType::Q8_0R: return KvType::Q8_0;
    case KvType::Q4_0R: return KvType::Q4_0;
    default: return t;
  }
}

std::string kv_type_unusable(KvType t, int64_t head_dim) {
  const std::string name(kv_type_name(t)), dim = std::to_string(head_dim);
  if (head_dim % kv_block_values(t) != 0) {
    return name + " needs head_dim to be a multiple of " + std::to_string(kv_block_values(t)) +
           " (this model's is " + dim + ")";
  }
  if (kv_rotated(t) && !rotation_fits(static_cast<int32_t>(head_dim))) {
    return name + " rotates each head with a Walsh-Hadamard transform, which needs head_dim " +
           "to be a power of two up to " + std::to_string(kMaxRotatedHeadDim) +
           " (this model's is " + dim + ")";
  }
  return {};
}

gguf::TensorType kv_storage_type(KvType t) {
  switch (kv_layout(t)) {
    case KvType::F32: return gguf::TensorType::F32;
    case KvType::F16: return gguf::TensorType::F16;
    case KvType::Q8_0: return gguf::TensorType::Q8_0;
    case KvType::Q4_0: return gguf::TensorType::Q4_0;
    default: break;  // kv_layout never returns a rotated type
  }
  return gguf::TensorType::F32;
}

int32_t kv_block_values(KvType t) {
  const KvType l = kv_layout(t);
  return l == KvType::Q8_0 || l == KvType::Q4_0 ? 32 : 1;
}

int32_t kv_block_bytes(KvType t) {
  switch (kv_layout(t)) {
    case KvType::F32: return 4;
    case KvType::F16: return 2;
    case KvType::Q8_0: return 34;
    case KvType::Q4_0: return 18;
    default: break;
  }
  return 4;
}

std::vector<std::string> kv_type_pairs_shown() { return {"f16/q8_0", "q8_0/q4_0", "q8_0/q4_0r"}; }

std::vector<KvTypeCost> kv_type_costs() {
  std::vector<KvTypeCost> costs;
  for (KvType t : kAllKvTypes) {
    costs.push_back({std::string(kv_type_name(t)), static_cast<uint32_t>(kv_block_bytes(t)),
                     static_cast<uint32_t>(kv_block_values(t))});
  }
  return costs;
}

}  // namespace kvchat

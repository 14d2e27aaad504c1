// Host emulation of CUDA's vector types (test equipment): the members, alignments and
// make_* helpers of vector_types.h / vector_functions.h, so a misaligned float4 access is
// as wrong here (UBSan's alignment check) as it is on a device.
#pragma once

struct alignas(8) float2 {
  float x, y;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(8) uint2 {
  unsigned int x, y;
};
struct uint3 {
  unsigned int x, y, z;
};
struct alignas(16) uint4 {
  unsigned int x, y, z, w;
};
struct alignas(8) int2 {
  int x, y;
};
struct alignas(16) int4 {
  int x, y, z, w;
};

inline constexpr float2 make_float2(float x, float y) { return {x, y}; }
inline constexpr float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline constexpr uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
inline constexpr uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) {
  return {x, y, z, w};
}

// Launch dimensions: unspecified components are 1.
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return {x, y, z}; }
};

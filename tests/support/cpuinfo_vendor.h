// The CPU's vendor as Linux reports it (/proc/cpuinfo's vendor_id: "GenuineIntel",
// "AuthenticAMD"), read apart from the engine's CPUID checks that the vendor rules of the
// kernel tests hold against; empty where there is no such line.
#pragma once

#include <fstream>
#include <string>

namespace kvchat {

inline std::string cpuinfo_vendor() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("vendor_id", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return {};
}

}  // namespace kvchat

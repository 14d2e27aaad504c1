#include "util/cpu_topology.h"

#include <fstream>
#include <set>
#include <string>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace kvchat {

namespace {

int hardware_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

#if defined(__linux__)
// The sibling list of one CPU ("0,4" or "0-1"), or "" when sysfs does not say.
std::string core_siblings(int cpu) {
  const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
  for (const char* name : {"core_cpus_list", "thread_siblings_list"}) {
    std::ifstream in(dir + name);
    std::string line;
    if (in && std::getline(in, line) && !line.empty()) return line;
  }
  return {};
}
#endif

}  // namespace

int physical_core_count() {
#if defined(__linux__)
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0) return hardware_threads();
  std::set<std::string> cores;  // one sibling list per physical core
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &mask)) continue;
    std::string siblings = core_siblings(cpu);
    if (siblings.empty()) return hardware_threads();
    cores.insert(std::move(siblings));
  }
  return cores.empty() ? hardware_threads() : static_cast<int>(cores.size());
#else
  return hardware_threads();
#endif
}

}  // namespace kvchat

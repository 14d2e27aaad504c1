// How many threads a CPU forward pass should use by default: one per physical core.
// SMT siblings share a core's load ports and FMA units, so a second thread per core
// adds synchronisation without adding bandwidth or FLOPs.
#pragma once

namespace kvchat {

// Physical cores among the CPUs this process may run on (Linux: the affinity mask,
// each CPU's topology/core_cpus_list or thread_siblings_list counted once per core);
// elsewhere, or when the topology cannot be read, std::thread::hardware_concurrency().
// Always >= 1.
int physical_core_count();

}  // namespace kvchat

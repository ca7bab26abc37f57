#include "app/cpu_placement.hpp"

#include <sched.h>

#include <cerrno>
#include <cstring>

namespace plaudit::app {

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) out.push_back(cpu);
  }
  return out;
}

CpuPlacement PlanCpuPlacement(const std::vector<int>& allowed) {
  if (allowed.size() < 2) return {};
  return CpuPlacement{allowed[0], allowed[1]};
}

std::string CpuList(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

Status PinCallingThread(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) {
    return Fail(ErrorCode::kInvalidArgument, "no such CPU: " + std::to_string(cpu));
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  // 0: the calling thread only (a thread id, not the whole process).
  if (::sched_setaffinity(0, sizeof set, &set) != 0) {
    return Fail(ErrorCode::kUnavailable, "cannot pin the I/O thread to CPU " + std::to_string(cpu) +
                                             ": " + std::strerror(errno));
  }
  return {};
}

}  // namespace plaudit::app

#pragma once
// Where the embedded redis-server and the I/O thread run (--cpu-affinity auto, the default):
// on different CPUs.
//
// Why: a like's I/O thread and its Redis wake each other through the Unix socket, and Linux
// treats such a wakeup as "sync" (the waker is about to sleep) and puts the wakee on the
// waker's CPU. Under load both stay busy, so they ended up taking turns on one CPU while the
// other idled: perf sched showed plauditd and redis-server alternating on CPU 1 for
// 20-130 µs each, Redis waiting up to ~0.5 ms behind plauditd while CPU 0 sat idle, and the
// box ~19% idle under like_put_spread (~1% under /healthz, which has no Redis). Pinned apart
// the idle fell to ~13-15% and like_put_spread went from 62-71k to 67-75k req/s (in-situ,
// alternating rounds, 2026-12-01). Every other thread (SQL, password hashing, Redis's
// background threads and its AOF rewrite child) keeps every CPU.
//
// Only in embedded mode, where plauditd owns the Redis process: with --redis the server is
// someone else's to place. One plauditd per box is assumed: two embedded instances would pin
// to the same two CPUs (use --cpu-affinity off then).
#include <string>
#include <vector>

#include "common/result.hpp"

namespace plaudit::app {

struct CpuPlacement {
  int redis = -1;  // the embedded redis-server's main thread
  int io = -1;     // plauditd's I/O thread (the one running the io_context)
  bool valid() const { return redis >= 0 && io >= 0; }
};

// The CPUs this process may run on (sched_getaffinity), ascending; empty if unknown.
std::vector<int> AllowedCpus();
// The first allowed CPU for Redis, the second for the I/O thread; none with fewer than two.
CpuPlacement PlanCpuPlacement(const std::vector<int>& allowed);
// "0-3,6" as redis-server's *_cpulist options take it.
std::string CpuList(const std::vector<int>& cpus);
// Restricts the calling thread to `cpu` (threads it starts afterwards inherit that).
Status PinCallingThread(int cpu);

}  // namespace plaudit::app

// Which way the injection library observes a process (docs/profile.md, "--observe interpose"):
// through CUPTI (callbacks and activity records), or, at --trace none when asked for, through the
// preloaded interposer (libgraphprof_interpose.so, runtime_interpose.cpp), with no CUPTI call at
// all. Decided once, in InitializeInjection, from facts the library gathers there; host-only, so
// the CPU tests check the rule (tests/unit/interpose_records_test.cpp).
#pragma once
#include <string>

namespace gp::inject {

struct ObserveFacts {
  int level = 2;                 // GRAPHPROF_PROFILE_LEVEL (0: none, -1: clock, --overhead's plain runs)
  bool asked = false;            // GRAPHPROF_PROFILE_OBSERVE=interpose
  bool interposer_loaded = false;  // its symbols are in the process (LD_PRELOAD)
  bool interposer_ready = false;   // it found the real runtime and the process's runtime calls resolve to it
  bool shared_runtime_caller = false;  // CUDA was initialised from the shared libcudart (not a static runtime)
  bool driver_lookups = false;  // the interposer answers dlsym and cuGetProcAddress (driver_lookup.cpp; x86-64)
};

struct ObserveChoice {
  bool interpose = false;
  std::string why_not;  // when asked for and not taken: why (said in the records)
  // Interposed: where the calls are seen. "runtime": the shared runtime's functions (and the
  // driver's, for what calls the driver itself); "driver": only the driver's (a statically linked
  // runtime, or a program that calls the driver: CuPy, XLA).
  std::string at;
  std::string why_at;  // for "driver": why not the runtime
};

ObserveChoice choose_observer(const ObserveFacts& f);

}  // namespace gp::inject

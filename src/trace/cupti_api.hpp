// CUPTI's functions as graphprof calls them: a table of pointers filled with dlopen/dlsym the first
// time cupti() is called (cupti_api.cpp), so nothing links libcupti. Private to src/trace: the
// CUPTI session, the record conversion and this loader are the TUs that include cupti.h.
#pragma once
#include <cupti.h>

#include <string>

namespace gp {

// ---- CUPTI, loaded on first use --------------------------------------------------------------
// graphprof does not link libcupti: the offline commands (analyze, render, compare, merge) and
// the timing passes must work where CUPTI is missing. The trace pass loads it with dlopen the
// first time it is needed, and reports "CUPTI is not available: ..." if that fails.
#define GP_CUPTI_FUNCTIONS(X)                                                                            \
  X(cuptiActivityDisable) X(cuptiActivityEnable) X(cuptiActivityFlushAll) X(cuptiActivityGetNextRecord) \
  X(cuptiActivityGetNumDroppedRecords) X(cuptiActivityRegisterCallbacks) X(cuptiActivitySetAttribute)   \
  X(cuptiEnableCallback) X(cuptiFinalize) X(cuptiGetCallbackName) X(cuptiGetErrorMessage)               \
  X(cuptiGetGraphExecId) X(cuptiGetGraphId) X(cuptiGetGraphNodeId) X(cuptiGetResultString)              \
  X(cuptiGetTimestamp) X(cuptiGetVersion) X(cuptiSubscribe) X(cuptiUnsubscribe)

struct CuptiApi {
#define GP_CUPTI_POINTER(f) decltype(&::f) f = nullptr;
  GP_CUPTI_FUNCTIONS(GP_CUPTI_POINTER)
#undef GP_CUPTI_POINTER
  void* handle = nullptr;
  std::string error;  // why it is not loaded
  bool loaded() const noexcept { return handle != nullptr; }
};

// The process's CUPTI, loaded on the first call; check loaded() (error says why it is not).
const CuptiApi& cupti();

}  // namespace gp

// Names of CUPTI's memcpy kinds (CUpti_ActivityMemcpyKind) for records and reports, without
// cupti.h: the values are CUPTI's stable ABI, and the two places that convert CUPTI records (the
// trace layer's src/trace/cupti_records.hpp and the injection library) static_assert that they
// still match.
#pragma once
#include <cstdint>

namespace gp {

inline const char* copy_kind_name(std::uint8_t kind) {
  // Index = CUPTI_ACTIVITY_MEMCPY_KIND_*: UNKNOWN 0, HTOD 1, ..., PTOP 10.
  static constexpr const char* kNames[] = {"unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                           "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
  return kind < sizeof kNames / sizeof kNames[0] ? kNames[kind] : "unknown";
}

}  // namespace gp

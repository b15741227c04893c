// Which CUDA calls the call sites and the memory ledger watch, by CUPTI callback id: the lists of
// call_site_ids.cpp, for call_site.cpp (and the enabling of their callbacks, call_site.hpp).
#pragma once
#include <cstdint>

#include "ledger_samples.hpp"

namespace gp::inject {

// A call's part: none, a site, a site and ledger samples (captures, instantiations), ledger samples
// only (capture end, upload), an allocation's site.
enum class SiteCallKind { kNone, kSite, kSiteAndLedger, kLedger, kAlloc };

SiteCallKind kind_of(bool driver, std::uint32_t cbid);

// A synchronising runtime call (the GIL is never taken for its site).
bool is_runtime_sync(std::uint32_t cbid);

// The ledger sample of a graph call's entry or exit.
Sample sample_of(bool enter, std::uint32_t cbid);

}  // namespace gp::inject

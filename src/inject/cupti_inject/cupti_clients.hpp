// The application's own CUPTI clients that CUPTI refused while graphprof held it, as the preloaded
// watch library saw them (src/inject/cupti_watch/cupti_watch.cpp).
//
// Line written at the end (format at the top of src/profile/profile_records.cpp):
//   cupti_refused {n, r, caller}   n cuptiSubscribe calls of the application refused; the first one's
//                                  result and calling module
#pragma once
#include <string>

namespace gp::inject {

// The cupti_refused line; empty when the watch library is not loaded or saw no refusal.
std::string refused_subscribers_line();

}  // namespace gp::inject

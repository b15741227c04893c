// Version facts from CUPTI, kept apart so that only src/trace/ includes cupti.h.
#pragma once

namespace gp {

// cuptiGetVersion(); 0 when CUPTI cannot be queried.
int cupti_version() noexcept;

}  // namespace gp

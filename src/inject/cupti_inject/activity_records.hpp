// CUPTI's activity records turned into record lines (activity_lines.hpp, reading them through
// src/trace/cupti_activity.hpp), and the activity buffers handed to and taken back from CUPTI.
#pragma once
#include <cupti.h>

#include <cstddef>
#include <cstdint>

namespace gp::inject {

// CUPTI's buffer callbacks (cuptiActivityRegisterCallbacks).
void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records);
void CUPTIAPI on_buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t size, size_t valid);

// Whether CUPTI handed this library a buffer it did not hand out: the application registered
// buffer callbacks of its own (its profiler took the activity API).
bool foreign_buffer_seen();

}  // namespace gp::inject

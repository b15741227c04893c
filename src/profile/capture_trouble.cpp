// Capture regions and what went wrong inside them (capture_trouble.hpp).
#include "capture_trouble.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "graphprof/core/cuda_error_text.hpp"
#include "api_kinds.hpp"

namespace gp::profile_detail {

namespace {

using api_kinds::starts_with;

bool is_capture_error(std::uint32_t e) { return e >= 900 && e <= 908; }

}  // namespace

std::vector<CaptureTrouble> find_capture_trouble(const ProcessRecords& p, std::set<std::uint32_t>& captured_calls) {
  std::map<std::uint32_t, std::uint32_t> stream_of;  // correlation of a capture call -> stream
  for (const auto& c : p.captures) stream_of[c.correlation_id] = c.stream_id;
  // The end of each capture as the callbacks saw it (the first EndCapture on the same stream after
  // the begin), for when the EndCapture call has no API record of its own.
  // The ends of each stream in correlation order (the first recorded of equal ones first), each
  // begin's found by binary search: a pass over every capture call for each begin took 19 s for
  // 200,000 begins that never ended.
  std::map<std::uint32_t, std::vector<const CaptureCall*>> ends_of_stream;
  for (const auto& e : p.captures)
    if (!e.begin) ends_of_stream[e.stream_id].push_back(&e);
  for (auto& [stream, ends] : ends_of_stream)
    std::stable_sort(ends.begin(), ends.end(), [](const CaptureCall* a, const CaptureCall* b) { return a->correlation_id < b->correlation_id; });
  std::map<std::uint32_t, const CaptureCall*> end_of;  // begin's correlation -> its end
  for (const auto& b : p.captures) {
    if (!b.begin || b.return_value != 0) continue;
    const auto ends = ends_of_stream.find(b.stream_id);
    if (ends == ends_of_stream.end()) continue;
    const auto e = std::upper_bound(ends->second.begin(), ends->second.end(), b.correlation_id,
                                    [](std::uint32_t c, const CaptureCall* x) { return c < x->correlation_id; });
    if (e == ends->second.end()) continue;
    const auto [at, added] = end_of.emplace(b.correlation_id, *e);
    if (!added && (*e)->correlation_id < at->second->correlation_id) at->second = *e;
  }
  std::map<std::uint32_t, std::vector<const ApiRecord*>> by_thread;
  for (const auto& a : p.trace.api) by_thread[a.thread_id].push_back(&a);
  std::vector<CaptureTrouble> out;
  for (auto& [tid, calls] : by_thread) {
    std::sort(calls.begin(), calls.end(), [](const ApiRecord* a, const ApiRecord* b) { return a->start_ns < b->start_ns; });
    bool capturing = false;
    const CaptureCall* end = nullptr;
    std::optional<CaptureTrouble> trouble;
    for (const ApiRecord* a : calls) {
      if (capturing && end != nullptr && a->correlation_id > end->correlation_id) {
        // The capture ended before this call, though its EndCapture has no record.
        capturing = false;
        if (trouble && !trouble->api.empty()) {
          trouble->end_error = cuda_error_name_of(end->return_value);
          out.push_back(*trouble);
        }
        trouble.reset();
      }
      if (starts_with(a->name, "cudaStreamBeginCapture") || starts_with(a->name, "cuStreamBeginCapture")) {
        capturing = a->return_value == 0;
        const auto e = end_of.find(a->correlation_id);
        end = e != end_of.end() ? e->second : nullptr;
        trouble.reset();
        if (!capturing) {
          CaptureTrouble t;
          t.stream_id = stream_of.count(a->correlation_id) ? stream_of[a->correlation_id] : 0;
          t.begin_correlation = a->correlation_id;
          t.api = a->name;
          t.error = cuda_error_name_of(static_cast<int>(a->return_value));
          t.hint = capture_error_hint(static_cast<int>(a->return_value), a->name);
          out.push_back(t);
        } else {
          trouble = CaptureTrouble{};
          trouble->stream_id = stream_of.count(a->correlation_id) ? stream_of[a->correlation_id] : 0;
          trouble->begin_correlation = a->correlation_id;
        }
        continue;
      }
      if (!capturing) continue;
      if (starts_with(a->name, "cudaStreamEndCapture") || starts_with(a->name, "cuStreamEndCapture")) {
        capturing = false;
        if (trouble && (a->return_value != 0 || !trouble->api.empty())) {
          trouble->end_error = a->return_value != 0 ? cuda_error_name_of(static_cast<int>(a->return_value)) : "cudaSuccess";
          if (trouble->api.empty()) {
            trouble->api = a->name;
            trouble->error = trouble->end_error;
            trouble->hint = capture_error_hint(static_cast<int>(a->return_value), a->name);
          }
          out.push_back(*trouble);
        }
        trouble.reset();
        continue;
      }
      captured_calls.insert(a->correlation_id);
      if (trouble && trouble->api.empty() && is_capture_error(a->return_value)) {
        trouble->api = a->name;
        trouble->error = cuda_error_name_of(static_cast<int>(a->return_value));
        trouble->hint = capture_error_hint(static_cast<int>(a->return_value), a->name);
      }
    }
    // A capture still open when the process ended (killed, or crashed inside the region).
    if (capturing && trouble && !trouble->api.empty()) out.push_back(*trouble);
  }
  return out;
}

}  // namespace gp::profile_detail

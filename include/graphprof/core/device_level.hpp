// The device level beside a result's device figures, and why its two device methods differ
// (docs/methodology.md, "Device level"). Host-only: the console, Markdown and HTML reporters use it.
#pragma once
#include <string>

#include "graphprof/core/report.hpp"

namespace gp {

// The two device methods of a graph-mode result of at least 10 nodes, back to back
// (gpu_time_per_iter) and latched (gpu_time_per_iter_latched), agree when they are within this
// fraction of each other (derived.latched_over_back_to_back).
inline constexpr double kDeviceMethodsTolerance = 0.02;
// A device probe reading this fraction above another is at a different device level.
inline constexpr double kDeviceLevelStep = 0.10;
// Up to this much more per root or sink (ns) can a replay that follows the previous replay of a
// graph cost than one replay after an idle stream: 0.44–0.75 µs measured on the H200 for 4 and 16
// chains of 10 kernels (docs/findings.md, Parity); the GPU pass measures the first, the latched
// pass the second.
inline constexpr double kReplayAfterReplayNsPerJoin = 1000;

// Why a result's two device methods differ by more than kDeviceMethodsTolerance, from the device
// probe's readings around the passes (sections.device_probe.points): the latched pass ran at a
// slower device level, the level changed during the GPU pass, a graph with several roots or sinks
// costs more replayed right after itself (sections.graph.roots/sinks), back to back waited for the
// host, or none of these. Empty when they agree, for eager results and for graphs under 10 nodes.
std::string device_methods_note(const ModeResult& r);

// The device level beside a result's device figures (sections.device_probe): the probe's ns per
// kernel back to back / latched before the timing passes, "508/509"; with " → 686/686" (the
// highest readings at any later point) when either moved by more than 10 %; "-" without a probe.
std::string device_level_cell(const ModeResult& r);

// What held the stream in the latched pass, from the report's settings.latch: "a stream wait"
// (wait-value), "a polling latch kernel" (kernel), or "a latch" for reports without the field.
std::string latch_description(const Report& report);

}  // namespace gp

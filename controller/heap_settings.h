// How the controller's process uses malloc, set once at its start (`loadshift run`).
//
// glibc raises its mmap threshold each time a large block is freed, up to 32 MiB, so after a few
// cycles the cycle's large transient blocks (the usage answers and their decoded samples, the
// list pages, the plan's and the index's tables) are carved from the heap among the cache's small
// long-lived objects, and the holes they leave stay resident. A fixed threshold sends every block
// of 256 KiB or more to its own mapping, returned to the system when freed. At 150,000 pods over
// 20 cycles the controller's peak RSS was 610 MiB with glibc's default and 508 MiB with this
// (median cycle 0.886 s and 0.920 s, within this machine's noise; docs/performance.md, "The
// controller in 600 MiB").
#pragma once

#include <cstddef>

namespace loadshift::controller {

// Blocks of this size or more get their own mapping.
inline constexpr size_t kMmapThresholdBytes = 256 * 1024;

// Sets the fixed mmap threshold. Returns false when malloc refused it (not glibc's), true else.
bool apply_heap_settings();

}  // namespace loadshift::controller

#include "controller/heap_settings.h"

#include <malloc.h>

namespace loadshift::controller {

bool apply_heap_settings() {
  return mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMmapThresholdBytes)) == 1;
}

}  // namespace loadshift::controller

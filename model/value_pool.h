// The decoders' pool of shared values: one copy of what many pods hold alike.
//
// share_alike(pod) replaces each of a pod's Shared values (labels, owners, containers, node
// affinity, tolerations; model/model.h) by an equal value another pod already holds, or pools the
// pod's own. The decoders call it on every pod they finish, so the 10 to 30 pods of a workload, or
// every pod of a pool's tolerations, hold one copy. Values are compared whole (operator==), never
// by a hash alone: a pod reads exactly what it was decoded with.
//
// The pool is one per process and thread-safe. It keeps a value only while some object holds
// it: when it has grown to twice what it held after its last sweep (at least 1,024 values of a
// kind), it drops the values no object holds any more. Its own memory is one hash entry per
// distinct value.
#pragma once

#include <cstddef>

#include "model/model.h"

namespace loadshift::model {

// Pools the pod's shareable values (see above). The pod reads the same before and after.
void share_alike(Pod& pod);

struct ValuePoolStats {
  size_t values = 0;  // distinct values pooled, of every kind
  size_t sweeps = 0;  // sweeps run since the process started
};
ValuePoolStats value_pool_stats();

}  // namespace loadshift::model

// GPU topology: what GPUs each node has free and what each pod needs, from API objects only.
//
// Follows shared/research/gpu-topology.md section 6: a per-node GPU view (device stack, product,
// per-device free slots / memory / cores from the HAMi, Volcano vGPU or MetaX sGPU register
// annotations and the allocation annotations of the pods there), a per-pod demand (whole,
// replica, MIG, shared), and the conditions for moving a GPU pod: same stack, same product
// unless the pod chooses one itself, the MIG profile and a settled MIG layout on the target,
// per-device capacity for shared GPUs (ledger-aware), grouping (metax-tech.com/gpu-group-size,
// NVLink clique) and target health.
//
// Whole-GPU counts (nvidia.com/gpu on native nodes, metax-tech.com/gpu, nvidia.com/mig-*) are
// checked by the generic resource predicate, not here. Nothing in this module throws: bad
// annotations become readable errors in the node view (register_ok / register_error).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/model.h"
#include "placement/ledger.h"
#include "placement/verdict.h"

namespace loadshift::placement {

enum class GpuStack : uint8_t {
  kNone,
  kNativeNvidia,     // nvidia.com/gpu (and nvidia.com/mig-*) from the NVIDIA device plugin
  kHamiNvidia,       // hami.io/node-nvidia-register (or hami.io/node-handshake without it)
  kHamiMetaxSgpu,    // metax-tech.com/node-gpu-devices (sGPU)
  kMetaxGpu,         // metax-tech.com/gpu whole cards
  kVolcanoVgpu,      // volcano.sh/node-vgpu-register (or allocatable volcano.sh/vgpu-number)
  kVolcanoGpuShare,  // capacity volcano.sh/gpu-memory or volcano.sh/gpu-number
};
// "none", "native-nvidia", "hami-nvidia", "hami-metax-sgpu", "metax-gpu", "volcano-vgpu",
// "volcano-gpushare".
std::string_view to_string(GpuStack stack);

struct GpuDevice {
  std::string uuid;
  int32_t index = 0;
  int32_t numa = 0;
  std::string type;  // model as registered, e.g. "NVIDIA-H20", "NVIDIA A100-SXM4-80GB"
  std::string mode;  // hami-core | mig | mps (HAMi, Volcano vGPU); empty when not registered
  std::string qos;   // MetaX sGPU qosPolicy of the card; empty elsewhere
  bool healthy = false;
  bool cordoned = false;  // listed in hami.io/device-cordon
  int64_t slots = 0, mem_mib = 0, cores = 0;
  int64_t used_slots = 0, used_mem_mib = 0, used_cores = 0;
  int32_t link_zone = 0;  // MetaX linkZone (> 0: MetaXLink zone id)
};

struct NodeGpuView {
  GpuStack stack = GpuStack::kNone;
  // nvidia.com/gpu.product or metax-tech.com/gpu.product with a trailing "-SHARED" stripped; when
  // the node has no such label, the registered device type, sanitised as GFD does
  // ("NVIDIA H20" -> "NVIDIA-H20") if all devices agree. Empty when unknown.
  std::string product;
  std::string raw_product;   // the label as written, or the registered type
  std::string sharing;       // nvidia.com/gpu.sharing-strategy (none | time-slicing | mps)
  int32_t replicas = 1;      // nvidia.com/gpu.replicas
  std::string mig_state;     // nvidia.com/mig.config.state
  std::string clique;        // nvidia.com/gpu.clique, else network.topology.nvidia.com/accelerator
  std::string group_domain;  // value of GpuOptions::group_label (MetaX node groups); empty: none
  std::string compute_domain;  // resource.nvidia.com/computeDomain
  // HAMi / Volcano vGPU / MetaX sGPU register entries (Volcano gpushare: one per card), with
  // the usage of the live pods attributed to this node.
  std::vector<GpuDevice> devices;
  // The device inventory can be trusted: the register annotation is present and parsable, the
  // pods' allocation annotations are parsable and (HAMi) the device plugin advertises GPUs.
  // When false, register_error says why, naming the annotation, and no shared-GPU pod may be
  // moved here.
  bool register_ok = true;
  std::string register_error;

  // True when nvidia.com/gpu here is a time-sliced / MPS replica rather than a whole card.
  bool shares_gpus() const { return replicas > 1 || sharing == "time-slicing" || sharing == "mps"; }
};

enum class GpuDemandKind : uint8_t {
  kNone,
  kWhole,        // nvidia.com/gpu on a native node, metax-tech.com/gpu, volcano.sh/gpu-number
  kReplica,      // a time-sliced / MPS replica (or nvidia.com/gpu.shared)
  kMig,          // nvidia.com/mig-* or gpu on a MIG-single node
  kHamiVgpu,     // HAMi nvidia.com/gpu (+ gpumem / gpucores)
  kMetaxSgpu,    // metax-tech.com/sgpu (+ vcore / vmemory)
  kVolcanoVgpu,  // volcano.sh/vgpu-*
  kGpuShare,     // volcano.sh/gpu-memory
  kDra,          // spec.resourceClaims
};
// "none", "whole", "replica", "mig", "hami-vgpu", "metax-sgpu", "volcano-vgpu", "gpushare", "dra".
std::string_view to_string(GpuDemandKind kind);

// One container's shared-GPU request: `count` distinct devices, each with memory and cores.
struct GpuSliceRequest {
  std::string container;
  int64_t count = 0;
  int64_t mem_mib = 0;      // > 0: absolute MiB per device; else mem_percent of the device
  int64_t mem_percent = 0;  // 1-100 when mem_mib is 0 (100: the whole device memory)
  int64_t cores = 0;        // percent of the device's compute (100: an exclusive card)
};

// Per-device choices a pod makes through annotations (research sections 2.4, 3 and 4).
struct GpuDevicePreferences {
  std::vector<std::string> use_types;    // nvidia.com/use-gputype: substring, case-insensitive
  std::vector<std::string> nouse_types;  // nvidia.com/nouse-gputype
  std::vector<std::string> nouse_uuids;  // */nouse-gpuuuid
  // nvidia.com/vgpu-mode (HAMi: the device mode must occur in it) or volcano.sh/vgpu-mode
  // (Volcano: the device mode must equal it); empty: any mode.
  std::string vgpu_mode;
  bool numa_bind = false;  // nvidia.com/numa-bind: "true"
  bool mutex = false;      // hami.io/gpu-scheduler-policy contains "mutex"
  std::string qos;         // metax-tech.com/sgpu-qos-policy (best-effort default)
};

struct PodGpuDemand {
  GpuDemandKind kind = GpuDemandKind::kNone;
  GpuStack placed_by = GpuStack::kNone;    // stack of the node the pod runs on
  GpuStack needs_stack = GpuStack::kNone;  // stack a target must have (from kind and resources)
  NodeId node = kNoNode;                   // the node the pod runs on (spec.nodeName), if known
  // Pod-level GPU resource amounts (max of init peak and app sum), sorted by name.
  std::vector<std::pair<std::string, int64_t>> resources;
  // Shared kinds: one entry per container with a GPU request, app containers first, then init
  // containers (all fitted cumulatively: conservative). Volcano gpushare: one pod-level entry.
  std::vector<GpuSliceRequest> slices;
  GpuDevicePreferences preferences;
  int32_t group_size = 0;  // metax-tech.com/gpu-group-size, 0 when absent
  int64_t group_gpus = 0;  // GPUs per pod: metax-tech.com/gpu, else nvidia.com/gpu
  // The pod chooses its GPU model itself: a nodeSelector or required node-affinity key ending in
  // /gpu.product, /gpu.family, /gpu.memory or /gpu.compute.major (checked by the affinity
  // predicates), nvidia.com/use-gputype (checked per device), or a toleration of a */gpu.product
  // taint with operator Equal (checked here against tolerated_products).
  bool has_product_constraint = false;
  std::vector<std::string> tolerated_products;

  // The amount of `resource` in `resources`, 0 when absent.
  int64_t amount(std::string_view resource) const;
};

struct GpuOptions {
  // Node label whose value names a GPU node group (MetaX dragonfly / switchbox); empty: none.
  std::string group_label;
};

// Hash for string-keyed maps looked up by string_view without a copy.
struct TransparentStringHash {
  using is_transparent = void;
  size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};

// GPU views of every node and demands of every pod of a snapshot, built once per cycle.
// Read-only after construction; one index serves any number of threads.
class GpuIndex {
 public:
  GpuIndex() = default;
  GpuIndex(const model::Snapshot& snapshot, const GpuOptions& options);

  const NodeGpuView& node(NodeId id) const { return nodes_[id]; }
  const PodGpuDemand& pod(PodId id) const { return pods_[id]; }
  size_t node_count() const { return nodes_.size(); }
  size_t pod_count() const { return pods_.size(); }
  const GpuOptions& options() const { return options_; }

  // The node named `name`, or kNoNode.
  NodeId node_id(std::string_view name) const;
  // Pods with a GPU demand that share `pod`'s controller owner (uid), `pod` included; empty
  // when the pod has no GPU demand or no controller.
  std::span<const PodId> peers(PodId pod) const;

 private:
  std::vector<NodeGpuView> nodes_;
  std::vector<PodGpuDemand> pods_;
  GpuOptions options_;
  std::unordered_map<std::string, NodeId, TransparentStringHash, std::equal_to<>> node_by_name_;
  std::vector<std::vector<PodId>> owner_groups_;
  std::vector<uint32_t> owner_group_of_pod_;  // index into owner_groups_, or UINT32_MAX
};

// True when `resource` is managed by a GPU scheduler extender on a node of stack `stack`, so the
// generic resource check must skip it as kube-scheduler does with ignoredByScheduler: HAMi's
// nvidia.com/gpumem, gpumem-percentage, gpucores and priority and MetaX's sgpu, vcore and vmemory
// on every stack (they are never a plain count), and nvidia.com/gpu on HAMi nodes (there it
// counts vGPU slots, not cards). Also volcano.sh/vgpu-memory-percentage, a percentage no node
// advertises. metax-tech.com/gpu and Volcano's other resources (vgpu-number, vgpu-memory,
// vgpu-cores, gpu-memory, gpu-number) are in allocatable and counted, so never skipped.
bool ignored_by_scheduler(std::string_view resource, GpuStack stack);

// Why `pod` must never be moved for GPU reasons (research section 6.4: pinned GPU UUIDs, DRA
// claims, HAMi / Volcano allocation not settled, MIG layout changing, dynamic MIG, replicas > 1,
// ComputeDomain members), or empty when it may be. Gang rules live in strategies.
std::optional<std::string> gpu_unmovable_reason(const model::Snapshot& snapshot,
                                                const GpuIndex& gpus, PodId pod);

// The GPU rule for moving `pod` to `target`, given what `ledger` already planned there. On
// failure appends kGpu rejections to `out` (when not null; one per failed condition) and
// returns false. Pods with no GPU demand pass in O(1) without allocating. A target without any
// GPU stack passes when the pod asks for a GPU resource the generic resource check counts
// (that check refuses it, with the clearer reason); it fails when all the pod's GPU resources
// are ones that check skips (HAMi, MetaX sGPU).
bool check_gpu(const model::Snapshot& snapshot, const GpuIndex& gpus, PodId pod, NodeId target,
               const Ledger& ledger, Reasons* out);

}  // namespace loadshift::placement

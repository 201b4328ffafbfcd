// Pod GPU demands: which kind of GPU a pod uses, per-container slices, and its own choices.
#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

#include "placement/gpu.h"
#include "placement/gpu_annotations.h"
#include "placement/gpu_internal.h"

namespace loadshift::placement {
namespace {

constexpr std::string_view kNvidiaGpu = "nvidia.com/gpu";
constexpr std::string_view kHamiMem = "nvidia.com/gpumem";
constexpr std::string_view kHamiMemPercent = "nvidia.com/gpumem-percentage";
constexpr std::string_view kHamiCores = "nvidia.com/gpucores";
constexpr std::string_view kHamiPriority = "nvidia.com/priority";
constexpr std::string_view kMetaxGpu = "metax-tech.com/gpu";
constexpr std::string_view kMetaxSgpu = "metax-tech.com/sgpu";
constexpr std::string_view kMetaxVcore = "metax-tech.com/vcore";
constexpr std::string_view kMetaxVmemory = "metax-tech.com/vmemory";
constexpr std::string_view kVolcanoVgpuNumber = "volcano.sh/vgpu-number";
constexpr std::string_view kVolcanoVgpuMemory = "volcano.sh/vgpu-memory";
constexpr std::string_view kVolcanoVgpuMemPercent = "volcano.sh/vgpu-memory-percentage";
constexpr std::string_view kVolcanoVgpuCores = "volcano.sh/vgpu-cores";
constexpr std::string_view kVolcanoGpuMemory = "volcano.sh/gpu-memory";
constexpr std::string_view kVolcanoGpuNumber = "volcano.sh/gpu-number";
constexpr std::string_view kHamiSchedulerName = "hami-scheduler";
constexpr std::string_view kGroupSizeAnnotation = "metax-tech.com/gpu-group-size";

bool is_gpu_resource(std::string_view name) {
  return name.starts_with("nvidia.com/") || name.starts_with("metax-tech.com/") ||
         name.starts_with("volcano.sh/gpu-") || name.starts_with("volcano.sh/vgpu-");
}

std::optional<int64_t> find_amount(const model::ResourceList& list, std::string_view name) {
  const auto& scalars = list.scalars();
  auto it =
      std::lower_bound(scalars.begin(), scalars.end(), name,
                       [](const auto& entry, std::string_view key) { return entry.first < key; });
  if (it == scalars.end() || it->first != name) return std::nullopt;
  return it->second;
}

// A container's amount of `name`: limits first, then requests (as HAMi and Volcano read them).
std::optional<int64_t> container_amount(const model::Container& c, std::string_view name) {
  if (auto limit = find_amount(c.limits, name)) return limit;
  return find_amount(c.requests, name);
}

// GPU resources of one container, limits winning over requests.
std::map<std::string, int64_t, std::less<>> container_gpu_resources(const model::Container& c) {
  std::map<std::string, int64_t, std::less<>> amounts;
  for (const auto& [name, amount] : c.requests.scalars()) {
    if (is_gpu_resource(name)) amounts[name] = amount;
  }
  for (const auto& [name, amount] : c.limits.scalars()) {
    if (is_gpu_resource(name)) amounts[name] = amount;
  }
  return amounts;
}

// Pod-level amounts: max(sum of app containers and sidecars, largest plain init container).
std::vector<std::pair<std::string, int64_t>> pod_gpu_resources(const model::Pod& pod) {
  std::map<std::string, int64_t, std::less<>> running, init_peak;
  for (const model::Container& c : pod.containers) {
    for (const auto& [name, amount] : container_gpu_resources(c)) running[name] += amount;
  }
  for (const model::Container& c : pod.init_containers) {
    for (const auto& [name, amount] : container_gpu_resources(c)) {
      if (c.restart_always) {
        running[name] += amount;
      } else {
        init_peak[name] = std::max(init_peak[name], amount);
      }
    }
  }
  for (const auto& [name, amount] : init_peak) running[name] = std::max(running[name], amount);
  std::vector<std::pair<std::string, int64_t>> out;
  for (auto& [name, amount] : running) {
    if (amount > 0) out.emplace_back(name, amount);
  }
  return out;
}

int64_t clamp_percent(int64_t value) {
  return std::clamp<int64_t>(value, 0, 100);
}

// MetaX vmemory: a plain number is GiB; with a unit it is bytes. The parsed Quantity no longer
// shows the unit, so amounts of at least 1 MiB are taken as bytes (nobody asks for a million GiB).
int64_t metax_vmemory_mib(int64_t amount) {
  constexpr int64_t kMiB = 1024 * 1024;
  return amount >= kMiB ? amount / kMiB : amount * 1024;
}

std::optional<GpuSliceRequest> hami_slice(const model::Container& c) {
  std::optional<int64_t> count = container_amount(c, kNvidiaGpu);
  if (!count || *count <= 0) return std::nullopt;
  GpuSliceRequest slice{c.name, *count, 0, 0, 0};
  std::optional<int64_t> mem = container_amount(c, kHamiMem);
  std::optional<int64_t> percent = container_amount(c, kHamiMemPercent);
  if (mem && *mem > 0) {
    slice.mem_mib = *mem;
  } else {
    slice.mem_percent = percent ? clamp_percent(*percent) : 100;
  }
  if (std::optional<int64_t> cores = container_amount(c, kHamiCores)) {
    slice.cores = clamp_percent(*cores);
  } else if (slice.mem_mib == 0 && slice.mem_percent == 100) {
    slice.cores = 100;  // HAMi's webhook makes a whole-memory request an exclusive card
  }
  return slice;
}

std::optional<GpuSliceRequest> volcano_vgpu_slice(const model::Container& c) {
  std::optional<int64_t> count = container_amount(c, kVolcanoVgpuNumber);
  std::optional<int64_t> mem = container_amount(c, kVolcanoVgpuMemory);
  if (!count && mem) count = 1;  // vgpu-memory alone asks for one device
  if (!count || *count <= 0) return std::nullopt;
  GpuSliceRequest slice{c.name, *count, 0, 0, 0};
  std::optional<int64_t> percent = container_amount(c, kVolcanoVgpuMemPercent);
  if (mem && *mem > 0) {
    slice.mem_mib = *mem;
  } else {
    slice.mem_percent = percent ? clamp_percent(*percent) : 100;
  }
  slice.cores = clamp_percent(container_amount(c, kVolcanoVgpuCores).value_or(0));
  return slice;
}

std::optional<GpuSliceRequest> metax_sgpu_slice(const model::Container& c) {
  std::optional<int64_t> count = container_amount(c, kMetaxSgpu);
  if (!count || *count <= 0) return std::nullopt;
  GpuSliceRequest slice{c.name, *count, 0, 0, 0};
  int64_t mem = metax_vmemory_mib(container_amount(c, kMetaxVmemory).value_or(0));
  if (mem > 0) {
    slice.mem_mib = mem;
  } else {
    slice.mem_percent = 100;
  }
  slice.cores = clamp_percent(container_amount(c, kMetaxVcore).value_or(100));
  return slice;
}

template <typename SliceOf>
void add_container_slices(const model::Pod& pod, SliceOf slice_of,
                          std::vector<GpuSliceRequest>* out) {
  for (const model::Container& c : pod.containers) {
    if (auto slice = slice_of(c)) out->push_back(std::move(*slice));
  }
  for (const model::Container& c : pod.init_containers) {
    if (auto slice = slice_of(c)) out->push_back(std::move(*slice));
  }
}

bool has_any(const PodGpuDemand& d, std::initializer_list<std::string_view> names) {
  return std::any_of(names.begin(), names.end(),
                     [&](std::string_view n) { return d.amount(n) > 0; });
}

bool is_model_key(std::string_view key) {
  return key.ends_with("/gpu.product") || key.ends_with("/gpu.family") ||
         key.ends_with("/gpu.memory") || key.ends_with("/gpu.compute.major");
}

GpuDemandKind classify(const model::Pod& pod, const PodGpuDemand& d, const NodeGpuView* source) {
  if (pod.has_resource_claims) return GpuDemandKind::kDra;
  if (d.resources.empty()) return GpuDemandKind::kNone;
  if (has_any(d, {kMetaxSgpu, kMetaxVcore, kMetaxVmemory})) return GpuDemandKind::kMetaxSgpu;
  if (has_any(d, {kVolcanoVgpuNumber, kVolcanoVgpuMemory, kVolcanoVgpuMemPercent})) {
    return GpuDemandKind::kVolcanoVgpu;
  }
  if (d.amount(kVolcanoGpuMemory) > 0) return GpuDemandKind::kGpuShare;
  for (const auto& [name, amount] : d.resources) {
    if (name.starts_with("nvidia.com/mig-")) return GpuDemandKind::kMig;
  }
  const model::StringMap& annotations = pod.meta.annotations;
  bool hami = has_any(d, {kHamiMem, kHamiMemPercent, kHamiCores}) ||
              pod.scheduler_name == kHamiSchedulerName ||
              annotations.contains(kHamiNodeAnnotation) ||
              annotations.contains(kHamiAllocatedAnnotation) ||
              (source != nullptr && source->stack == GpuStack::kHamiNvidia);
  if (d.amount(kNvidiaGpu) > 0) {
    if (hami) return GpuDemandKind::kHamiVgpu;
    if (source != nullptr && source->product.find("-MIG-") != std::string::npos) {
      return GpuDemandKind::kMig;
    }
    if (source != nullptr && source->shares_gpus()) return GpuDemandKind::kReplica;
    return GpuDemandKind::kWhole;
  }
  for (const auto& [name, amount] : d.resources) {
    if (name.starts_with("nvidia.com/gpu.")) return GpuDemandKind::kReplica;  // gpu.shared, ...
  }
  if (d.amount(kMetaxGpu) > 0 || d.amount(kVolcanoGpuNumber) > 0) return GpuDemandKind::kWhole;
  return GpuDemandKind::kNone;
}

void read_preferences(const model::Pod& pod, PodGpuDemand* d) {
  const model::StringMap& a = pod.meta.annotations;
  GpuDevicePreferences& p = d->preferences;
  if (const std::string* v = a.find("nvidia.com/use-gputype")) p.use_types = split_list(*v);
  if (const std::string* v = a.find("nvidia.com/nouse-gputype")) p.nouse_types = split_list(*v);
  for (std::string_view key : {"nvidia.com/nouse-gpuuuid", "metax-tech.com/nouse-gpuuuid",
                               "volcano.sh/vgpu-nouse-gpuuuid"}) {
    if (const std::string* v = a.find(key)) {
      for (std::string& uuid : split_list(*v)) p.nouse_uuids.push_back(std::move(uuid));
    }
  }
  std::string_view mode_key =
      d->kind == GpuDemandKind::kVolcanoVgpu ? "volcano.sh/vgpu-mode" : "nvidia.com/vgpu-mode";
  if (const std::string* v = a.find(mode_key)) p.vgpu_mode = *v;
  if (const std::string* v = a.find("nvidia.com/numa-bind")) {
    bool bind = false;
    p.numa_bind = parse_go_bool(*v, &bind) && bind;
  }
  if (const std::string* v = a.find("hami.io/gpu-scheduler-policy")) {
    std::vector<std::string> policies = split_list(*v);
    p.mutex = std::find(policies.begin(), policies.end(), "mutex") != policies.end();
  }
  if (d->kind == GpuDemandKind::kMetaxSgpu) {
    const std::string* qos = a.find("metax-tech.com/sgpu-qos-policy");
    p.qos = qos ? *qos : "best-effort";
  }
}

void read_product_choice(const model::Pod& pod, PodGpuDemand* d) {
  for (const auto& [key, value] : pod.node_selector.items()) {
    if (is_model_key(key)) d->has_product_constraint = true;
  }
  if (pod.node_affinity->required) {
    for (const model::NodeSelectorTerm& term : *pod.node_affinity->required) {
      for (const model::NodeSelectorRequirement& r : term.match_expressions) {
        if (is_model_key(r.key)) d->has_product_constraint = true;
      }
    }
  }
  if (!d->preferences.use_types.empty()) d->has_product_constraint = true;
  for (const model::Toleration& t : pod.tolerations) {
    if (t.key.ends_with("/gpu.product") && t.op == model::TolerationOperator::kEqual &&
        !t.value.empty()) {
      d->has_product_constraint = true;
      if (std::find(d->tolerated_products.begin(), d->tolerated_products.end(), t.value) ==
          d->tolerated_products.end()) {
        d->tolerated_products.push_back(t.value);
      }
    }
  }
}

void read_group(const model::Pod& pod, PodGpuDemand* d) {
  const std::string* text = pod.meta.annotations.find(kGroupSizeAnnotation);
  if (text == nullptr) return;
  int32_t size = 0;
  auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), size);
  if (error != std::errc() || end != text->data() + text->size() || size <= 0) return;
  d->group_size = size;
  d->group_gpus = d->amount(kMetaxGpu) > 0 ? d->amount(kMetaxGpu) : d->amount(kNvidiaGpu);
}

void build_slices(const model::Pod& pod, PodGpuDemand* d) {
  switch (d->kind) {
    case GpuDemandKind::kHamiVgpu:
      add_container_slices(pod, hami_slice, &d->slices);
      break;
    case GpuDemandKind::kVolcanoVgpu:
      add_container_slices(pod, volcano_vgpu_slice, &d->slices);
      break;
    case GpuDemandKind::kMetaxSgpu:
      add_container_slices(pod, metax_sgpu_slice, &d->slices);
      break;
    case GpuDemandKind::kGpuShare:
      // One card holds the whole pod's volcano.sh/gpu-memory.
      d->slices.push_back(GpuSliceRequest{"", 1, d->amount(kVolcanoGpuMemory), 0, 0});
      break;
    case GpuDemandKind::kWhole:
      if (int64_t cards = d->amount(kVolcanoGpuNumber); cards > 0) {
        d->slices.push_back(GpuSliceRequest{"", cards, 0, 100, 100});  // idle cards only
      }
      break;
    default:
      break;
  }
}

}  // namespace

std::string_view to_string(GpuDemandKind kind) {
  switch (kind) {
    case GpuDemandKind::kNone:
      return "none";
    case GpuDemandKind::kWhole:
      return "whole";
    case GpuDemandKind::kReplica:
      return "replica";
    case GpuDemandKind::kMig:
      return "mig";
    case GpuDemandKind::kHamiVgpu:
      return "hami-vgpu";
    case GpuDemandKind::kMetaxSgpu:
      return "metax-sgpu";
    case GpuDemandKind::kVolcanoVgpu:
      return "volcano-vgpu";
    case GpuDemandKind::kGpuShare:
      return "gpushare";
    case GpuDemandKind::kDra:
      return "dra";
  }
  return "?";
}

int64_t PodGpuDemand::amount(std::string_view resource) const {
  auto it =
      std::lower_bound(resources.begin(), resources.end(), resource,
                       [](const auto& entry, std::string_view key) { return entry.first < key; });
  return it != resources.end() && it->first == resource ? it->second : 0;
}

PodGpuDemand build_pod_gpu_demand(const model::Pod& pod, NodeId node, const NodeGpuView* source) {
  PodGpuDemand d;
  d.node = node;
  d.placed_by = source ? source->stack : GpuStack::kNone;
  d.resources = pod_gpu_resources(pod);
  d.kind = classify(pod, d, source);
  if (d.kind == GpuDemandKind::kNone) {
    d.resources.clear();
    d.placed_by = GpuStack::kNone;
    return d;
  }
  d.needs_stack = stack_for_demand(d);
  read_preferences(pod, &d);
  read_product_choice(pod, &d);
  read_group(pod, &d);
  build_slices(pod, &d);
  return d;
}

GpuStack stack_for_demand(const PodGpuDemand& d) {
  switch (d.kind) {
    case GpuDemandKind::kNone:
    case GpuDemandKind::kDra:
      return GpuStack::kNone;
    case GpuDemandKind::kHamiVgpu:
      return GpuStack::kHamiNvidia;
    case GpuDemandKind::kMetaxSgpu:
      return GpuStack::kHamiMetaxSgpu;
    case GpuDemandKind::kVolcanoVgpu:
      return GpuStack::kVolcanoVgpu;
    case GpuDemandKind::kGpuShare:
      return GpuStack::kVolcanoGpuShare;
    case GpuDemandKind::kReplica:
    case GpuDemandKind::kMig:
      return GpuStack::kNativeNvidia;
    case GpuDemandKind::kWhole:
      if (d.amount(kNvidiaGpu) > 0) return GpuStack::kNativeNvidia;
      if (d.amount(kMetaxGpu) > 0) return GpuStack::kMetaxGpu;
      return GpuStack::kVolcanoGpuShare;  // volcano.sh/gpu-number
  }
  return GpuStack::kNone;
}

bool fitted_per_device(const PodGpuDemand& d) {
  switch (d.needs_stack) {
    case GpuStack::kHamiNvidia:
    case GpuStack::kHamiMetaxSgpu:
    case GpuStack::kVolcanoVgpu:
    case GpuStack::kVolcanoGpuShare:
      return !d.slices.empty();
    default:
      return false;
  }
}

bool ignored_by_scheduler(std::string_view resource, GpuStack stack) {
  if (resource == kHamiMem || resource == kHamiMemPercent || resource == kHamiCores ||
      resource == kHamiPriority || resource == kMetaxSgpu || resource == kMetaxVcore ||
      resource == kMetaxVmemory || resource == kVolcanoVgpuMemPercent) {
    return true;
  }
  return resource == kNvidiaGpu && stack == GpuStack::kHamiNvidia;
}

}  // namespace loadshift::placement

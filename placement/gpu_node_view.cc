// Node GPU views: stack detection, GPU labels, device inventory from the register annotations.
#include <algorithm>
#include <charconv>
#include <climits>

#include "placement/gpu.h"
#include "placement/gpu_annotations.h"
#include "placement/gpu_internal.h"

namespace loadshift::placement {
namespace {

constexpr std::string_view kNvidiaProductLabel = "nvidia.com/gpu.product";
constexpr std::string_view kMetaxProductLabel = "metax-tech.com/gpu.product";
constexpr std::string_view kSharingLabel = "nvidia.com/gpu.sharing-strategy";
constexpr std::string_view kReplicasLabel = "nvidia.com/gpu.replicas";
constexpr std::string_view kMigStateLabel = "nvidia.com/mig.config.state";
constexpr std::string_view kCliqueLabel = "nvidia.com/gpu.clique";
constexpr std::string_view kAcceleratorLabel = "network.topology.nvidia.com/accelerator";
constexpr std::string_view kComputeDomainLabel = "resource.nvidia.com/computeDomain";

bool offers(const model::Node& node, std::string_view resource) {
  auto has = [&](const model::ResourceList& list) {
    const auto& scalars = list.scalars();
    return std::any_of(scalars.begin(), scalars.end(),
                       [&](const auto& entry) { return entry.first == resource; });
  };
  return has(node.allocatable) || has(node.capacity);
}

bool offers_prefix(const model::Node& node, std::string_view prefix) {
  auto has = [&](const model::ResourceList& list) {
    const auto& scalars = list.scalars();
    return std::any_of(scalars.begin(), scalars.end(),
                       [&](const auto& entry) { return entry.first.starts_with(prefix); });
  };
  return has(node.allocatable) || has(node.capacity);
}

// Research section 6.1, most specific first: an annotation a GPU scheduler writes decides; a
// resource only the stack advertises decides next; plain device-plugin resources last.
GpuStack detect_stack(const model::Node& node) {
  const model::StringMap& annotations = node.meta.annotations;
  if (annotations.contains(kHamiRegisterAnnotation)) return GpuStack::kHamiNvidia;
  if (annotations.contains(kMetaxSgpuRegisterAnnotation)) return GpuStack::kHamiMetaxSgpu;
  if (annotations.contains(kVolcanoVgpuRegisterAnnotation)) return GpuStack::kVolcanoVgpu;
  if (annotations.contains(kHamiHandshakeAnnotation) && offers(node, "nvidia.com/gpu")) {
    return GpuStack::kHamiNvidia;  // HAMi manages the node but its register is missing
  }
  if (offers(node, "metax-tech.com/sgpu")) return GpuStack::kHamiMetaxSgpu;
  if (offers(node, "volcano.sh/vgpu-number")) return GpuStack::kVolcanoVgpu;
  if (offers(node, "volcano.sh/gpu-memory") || offers(node, "volcano.sh/gpu-number")) {
    return GpuStack::kVolcanoGpuShare;
  }
  if (offers_prefix(node, "nvidia.com/gpu") || offers_prefix(node, "nvidia.com/mig-")) {
    return GpuStack::kNativeNvidia;
  }
  if (offers(node, "metax-tech.com/gpu")) return GpuStack::kMetaxGpu;
  return GpuStack::kNone;
}

std::string label(const model::Node& node, std::string_view key) {
  const std::string* value = node.meta.labels.find(key);
  return value ? *value : std::string();
}

int32_t parse_replicas(const std::string& text) {
  int32_t value = 1;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1) return 1;
  return value;
}

void set_register_error(NodeGpuView* view, std::string error) {
  if (!view->register_ok) return;  // keep the first problem
  view->register_ok = false;
  view->register_error = std::move(error);
}

void load_register(const model::Node& node, NodeGpuView* view) {
  const model::StringMap& annotations = node.meta.annotations;
  std::string_view key;
  RegisterDecode (*decode)(std::string_view) = nullptr;
  switch (view->stack) {
    case GpuStack::kHamiNvidia:
      key = kHamiRegisterAnnotation;
      decode = decode_hami_register;
      break;
    case GpuStack::kHamiMetaxSgpu:
      key = kMetaxSgpuRegisterAnnotation;
      decode = decode_metax_sgpu_register;
      break;
    case GpuStack::kVolcanoVgpu:
      key = kVolcanoVgpuRegisterAnnotation;
      decode = decode_volcano_register;
      break;
    default:
      return;
  }
  const std::string* text = annotations.find(key);
  if (text == nullptr) {
    set_register_error(view, "annotation " + std::string(key) + " is missing");
    return;
  }
  RegisterDecode decoded = decode(*text);
  if (!decoded.ok()) {
    set_register_error(view, "annotation " + std::string(key) + ": " + decoded.error);
    return;
  }
  view->devices = std::move(decoded.devices);
  if (view->stack == GpuStack::kHamiNvidia && node.allocatable.get("nvidia.com/gpu") <= 0) {
    // HAMi drops a node's devices once its device plugin stops advertising them.
    set_register_error(view,
                       "allocatable nvidia.com/gpu is 0: the HAMi device plugin is not serving");
  }
}

// Volcano gpushare has no register: cards are volcano.sh/gpu-number, each with an equal share
// of volcano.sh/gpu-memory; volcano.sh/gpu-unhealthy-ids lists cards to skip.
void load_gpushare_cards(const model::Node& node, NodeGpuView* view) {
  int64_t cards = node.capacity.get("volcano.sh/gpu-number");
  if (cards <= 0) cards = node.allocatable.get("volcano.sh/gpu-number");
  int64_t memory = node.capacity.get("volcano.sh/gpu-memory");
  if (memory <= 0) memory = node.allocatable.get("volcano.sh/gpu-memory");
  if (cards <= 0) {
    set_register_error(view, "capacity volcano.sh/gpu-number is missing or 0");
    return;
  }
  std::vector<std::string> unhealthy;
  if (const std::string* ids = node.meta.annotations.find(kVolcanoUnhealthyIdsAnnotation)) {
    unhealthy = split_list(*ids);
  }
  cards = std::min<int64_t>(cards, 1024);
  for (int64_t i = 0; i < cards; ++i) {
    GpuDevice card;
    card.uuid = std::to_string(i);
    card.index = static_cast<int32_t>(i);
    card.type = view->product;
    card.healthy = std::find(unhealthy.begin(), unhealthy.end(), card.uuid) == unhealthy.end();
    card.slots = INT32_MAX;  // gpushare limits memory, not the number of pods per card
    card.mem_mib = memory / cards;
    card.cores = 100;
    view->devices.push_back(std::move(card));
  }
}

void set_product(const model::Node& node, NodeGpuView* view) {
  bool metax = view->stack == GpuStack::kHamiMetaxSgpu || view->stack == GpuStack::kMetaxGpu;
  std::string_view first = metax ? kMetaxProductLabel : kNvidiaProductLabel;
  std::string_view second = metax ? kNvidiaProductLabel : kMetaxProductLabel;
  view->raw_product = label(node, first);
  if (view->raw_product.empty()) view->raw_product = label(node, second);
  view->product = view->raw_product;
  constexpr std::string_view kShared = "-SHARED";
  if (view->product.ends_with(kShared)) view->product.resize(view->product.size() - kShared.size());
}

// Without a product label, a register whose devices agree on the model names the product.
void product_from_devices(NodeGpuView* view) {
  if (!view->product.empty() || view->devices.empty()) return;
  if (view->stack == GpuStack::kVolcanoGpuShare) return;
  const std::string& type = view->devices.front().type;
  for (const GpuDevice& d : view->devices) {
    if (d.type != type) return;  // mixed models: unknown
  }
  view->raw_product = type;
  view->product = sanitize_product(type);
}

}  // namespace

std::string_view to_string(GpuStack stack) {
  switch (stack) {
    case GpuStack::kNone:
      return "none";
    case GpuStack::kNativeNvidia:
      return "native-nvidia";
    case GpuStack::kHamiNvidia:
      return "hami-nvidia";
    case GpuStack::kHamiMetaxSgpu:
      return "hami-metax-sgpu";
    case GpuStack::kMetaxGpu:
      return "metax-gpu";
    case GpuStack::kVolcanoVgpu:
      return "volcano-vgpu";
    case GpuStack::kVolcanoGpuShare:
      return "volcano-gpushare";
  }
  return "?";
}

NodeGpuView build_node_gpu_view(const model::Node& node, const GpuOptions& options) {
  NodeGpuView view;
  view.stack = detect_stack(node);
  set_product(node, &view);
  view.sharing = label(node, kSharingLabel);
  view.replicas = parse_replicas(label(node, kReplicasLabel));
  view.mig_state = label(node, kMigStateLabel);
  view.clique = label(node, kCliqueLabel);
  if (view.clique.empty()) view.clique = label(node, kAcceleratorLabel);
  if (!options.group_label.empty()) view.group_domain = label(node, options.group_label);
  view.compute_domain = label(node, kComputeDomainLabel);

  if (view.stack == GpuStack::kVolcanoGpuShare) {
    load_gpushare_cards(node, &view);
  } else {
    load_register(node, &view);
  }
  if (const std::string* cordon = node.meta.annotations.find(kHamiDeviceCordonAnnotation)) {
    std::vector<std::string> uuids = split_list(*cordon);
    for (GpuDevice& d : view.devices) {
      d.cordoned = std::find(uuids.begin(), uuids.end(), d.uuid) != uuids.end();
    }
  }
  product_from_devices(&view);
  return view;
}

}  // namespace loadshift::placement

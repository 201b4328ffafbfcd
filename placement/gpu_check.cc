// check_gpu: may a GPU pod move to a target node? (research section 6.3)
#include <algorithm>
#include <vector>

#include "placement/gpu.h"
#include "placement/gpu_internal.h"

namespace loadshift::placement {
namespace {

constexpr std::string_view kGroupSizeAnnotation = "metax-tech.com/gpu-group-size";

std::string or_none(std::string_view text) {
  return text.empty() ? std::string("(none)") : std::string(text);
}

// The MIG profile of a MIG-single product ("A100-SXM4-40GB-MIG-1g.5gb" -> "1g.5gb"), or empty.
std::string_view mig_profile(std::string_view product) {
  size_t at = product.find("-MIG-");
  return at == std::string_view::npos ? std::string_view() : product.substr(at + 5);
}

std::string describe_sharing(const NodeGpuView& view) {
  std::string strategy = view.sharing.empty() ? "sharing" : view.sharing;
  return strategy + ", " + std::to_string(view.replicas) + " replicas";
}

// Collects failures: with `out` null the first failure ends the check and no text is built.
class Outcome {
 public:
  explicit Outcome(Reasons* out) : out_(out) {}
  // Records a failure whose reason `make_reason()` builds; returns whether to keep checking.
  template <typename MakeReason>
  bool fail(MakeReason make_reason) {
    ok_ = false;
    if (out_ == nullptr) return false;
    out_->push_back(Rejection{Rule::kGpu, make_reason()});
    return true;
  }
  bool ok() const { return ok_; }

 private:
  Reasons* out_;
  bool ok_ = true;
};

// Where a pod lives for this plan: its planned target, else its node.
NodeId location(const GpuIndex& gpus, const Ledger& ledger, PodId pod) {
  NodeId planned = ledger.planned_node(pod);
  return planned != kNoNode ? planned : gpus.pod(pod).node;
}

// Sharing mode and MIG layout: a whole card, a replica and a MIG instance never substitute for
// each other, and MIG pods need a settled layout with their profile.
bool check_gpu_shape(const model::Snapshot& snapshot, const GpuIndex& gpus,
                     const PodGpuDemand& demand, NodeId target, Outcome* outcome) {
  const NodeGpuView& node = gpus.node(target);
  const NodeGpuView* source = demand.node != kNoNode ? &gpus.node(demand.node) : nullptr;
  bool nvidia_count = demand.amount("nvidia.com/gpu") > 0;
  if ((demand.kind == GpuDemandKind::kWhole || demand.kind == GpuDemandKind::kReplica) &&
      !mig_profile(node.product).empty()) {
    if (!outcome->fail([&] {
          return "node's GPUs are MIG instances (product " + node.product +
                 "); the pod does not use MIG";
        }))
      return false;
  }
  if (demand.kind == GpuDemandKind::kWhole && nvidia_count && node.shares_gpus()) {
    if (!outcome->fail([&] {
          return "node shares its GPUs (" + describe_sharing(node) + "); the pod needs whole GPUs";
        }))
      return false;
  }
  if (demand.kind == GpuDemandKind::kReplica) {
    if (!node.shares_gpus()) {
      if (!outcome->fail([&] {
            return std::string("node does not share its GPUs; the pod runs on a GPU replica");
          }))
        return false;
    } else if (source != nullptr &&
               (source->sharing != node.sharing || source->replicas != node.replicas)) {
      if (!outcome->fail([&] {
            return "node shares its GPUs (" + describe_sharing(node) + "), the pod's node (" +
                   describe_sharing(*source) + ")";
          }))
        return false;
    }
  }
  if (demand.kind != GpuDemandKind::kMig) return true;
  if (!node.mig_state.empty() && node.mig_state != "success") {
    if (!outcome->fail([&] { return "MIG reconfiguration on the node is " + node.mig_state; }))
      return false;
  }
  const model::Node& target_node = snapshot.nodes[target];
  for (const auto& resource : demand.resources) {
    const std::string& name = resource.first;  // clang 14 cannot capture structured bindings
    if (!name.starts_with("nvidia.com/mig-")) continue;
    if (target_node.allocatable.get(name) > 0) continue;
    if (!outcome->fail([&] { return "MIG profile " + name + " is not offered by the node"; }))
      return false;
  }
  if (nvidia_count && source != nullptr) {  // MIG single: nvidia.com/gpu is one MIG instance
    std::string_view want = mig_profile(source->product);
    std::string_view have = mig_profile(node.product);
    if (want != have) {
      if (!outcome->fail([&] {
            return "MIG profile " + or_none(have) + " differs from " + or_none(want) +
                   " of the pod's node";
          }))
        return false;
    }
  }
  return true;
}

bool check_product(const model::Snapshot& snapshot, const GpuIndex& gpus,
                   const PodGpuDemand& demand, NodeId target, Outcome* outcome) {
  const NodeGpuView& node = gpus.node(target);
  if (!demand.tolerated_products.empty()) {
    const auto& allowed = demand.tolerated_products;
    bool listed = std::any_of(allowed.begin(), allowed.end(), [&](const std::string& p) {
      return !p.empty() && (p == node.product || p == node.raw_product);
    });
    if (listed) return true;
    return outcome->fail([&] {
      std::string list;
      for (const std::string& p : allowed) list += (list.empty() ? "" : ", ") + p;
      return "GPU product " + or_none(node.product) + " is not one the pod tolerates (" + list +
             ")";
    });
  }
  if (demand.has_product_constraint || demand.node == kNoNode) return true;
  const NodeGpuView& source = gpus.node(demand.node);
  if (source.product == node.product) return true;
  return outcome->fail([&] {
    return "GPU product " + or_none(node.product) + " differs from " + or_none(source.product) +
           " on the pod's node " + snapshot.nodes[demand.node].meta.name;
  });
}

bool check_device_capacity(const GpuIndex& gpus, PodId pod, const PodGpuDemand& demand,
                           NodeId target, const Ledger& ledger, Outcome* outcome, bool explain) {
  const NodeGpuView& node = gpus.node(target);
  thread_local std::vector<DeviceUse> use;
  use.clear();
  for (const GpuDevice& d : node.devices)
    use.push_back({d.used_slots, d.used_mem_mib, d.used_cores});
  // Pods this plan already put here take their devices first, in planning order.
  if (target < ledger.node_count()) {
    for (PodId other : ledger.incoming(target)) {
      if (other == pod || other >= gpus.pod_count()) continue;
      const PodGpuDemand& planned = gpus.pod(other);
      if (planned.needs_stack != node.stack || !fitted_per_device(planned)) continue;
      fit_gpu_slices(node, planned, use, nullptr);
    }
  }
  std::string why;
  if (fit_gpu_slices(node, demand, use, explain ? &why : nullptr)) return true;
  return outcome->fail([&] { return std::move(why); });
}

// metax-tech.com/gpu-group-size: the pod's GPU group (G GPUs, g per pod, k = G/g pods) spans a
// node group; the target must be in the node group of the pod's peers.
bool check_group(const model::Snapshot& snapshot, const GpuIndex& gpus, PodId pod,
                 const PodGpuDemand& demand, NodeId target, const Ledger& ledger,
                 Outcome* outcome) {
  if (demand.group_size <= 0 || demand.group_gpus <= 0) return true;
  if (demand.group_size / demand.group_gpus <= 1) return true;  // the group fits in one node
  const std::string& group_label = gpus.options().group_label;
  auto group_text = [&] {
    return std::string(kGroupSizeAnnotation) + "=" + std::to_string(demand.group_size);
  };
  if (group_label.empty()) {
    return outcome->fail(
        [&] { return "pod has " + group_text() + " but no GPU node-group label is configured"; });
  }
  const NodeGpuView& node = gpus.node(target);
  if (node.group_domain.empty()) {
    return outcome->fail([&] {
      return "node has no GPU node-group label " + group_label + " (pod has " + group_text() + ")";
    });
  }
  const std::string* first = nullptr;
  bool several = false;
  for (PodId peer : gpus.peers(pod)) {
    if (peer == pod || snapshot.pods[peer].terminated()) continue;
    NodeId where = location(gpus, ledger, peer);
    if (where == kNoNode) continue;
    const std::string& domain = gpus.node(where).group_domain;
    if (domain.empty()) continue;
    if (first == nullptr) {
      first = &domain;
    } else if (domain != *first) {
      several = true;
      break;
    }
  }
  if (first == nullptr) return true;
  if (!several) {
    if (node.group_domain == *first) return true;
    return outcome->fail([&] {
      return "GPU node group " + group_label + "=" + node.group_domain + " differs from " + *first +
             " of the pod's group peers";
    });
  }
  // Peers span several node groups: without ranks, the pod stays in the group it is in.
  std::string_view own = demand.node != kNoNode
                             ? std::string_view(gpus.node(demand.node).group_domain)
                             : std::string_view();
  if (!own.empty() && node.group_domain == own) return true;
  return outcome->fail([&] {
    return "the pod's group peers span several node groups; the pod must stay in its own group " +
           or_none(own);
  });
}

// NVLink fabric: when every other live peer sits on nodes of one nvidia.com/gpu.clique, the
// target must be in that clique too.
bool check_clique(const model::Snapshot& snapshot, const GpuIndex& gpus, PodId pod, NodeId target,
                  const Ledger& ledger, Outcome* outcome) {
  const std::string* clique = nullptr;
  for (PodId peer : gpus.peers(pod)) {
    if (peer == pod || snapshot.pods[peer].terminated()) continue;
    NodeId where = location(gpus, ledger, peer);
    if (where == kNoNode) continue;
    const std::string& value = gpus.node(where).clique;
    if (value.empty()) return true;  // a peer outside any clique: no shared fabric to keep
    if (clique == nullptr) {
      clique = &value;
    } else if (value != *clique) {
      return true;
    }
  }
  const NodeGpuView& node = gpus.node(target);
  if (clique == nullptr || node.clique == *clique) return true;
  return outcome->fail([&] {
    return "NVLink clique " + or_none(node.clique) + " differs from " + *clique +
           " of the pod's peers";
  });
}

}  // namespace

bool check_gpu(const model::Snapshot& snapshot, const GpuIndex& gpus, PodId pod, NodeId target,
               const Ledger& ledger, Reasons* out) {
  if (pod >= gpus.pod_count()) return true;
  const PodGpuDemand& demand = gpus.pod(pod);
  if (demand.kind == GpuDemandKind::kNone) return true;

  Outcome outcome(out);
  if (target >= gpus.node_count() || target >= snapshot.nodes.size()) {
    outcome.fail([] { return std::string("node is not in the GPU index"); });
    return false;
  }
  if (demand.kind == GpuDemandKind::kDra) {
    outcome.fail([] { return std::string("DRA resource claims are not modelled"); });
    return false;
  }
  const NodeGpuView& node = gpus.node(target);
  if (node.stack == GpuStack::kNone) {
    // A node without GPUs offers none of the GPU resources the resource check counts; that
    // check already refuses it, so only requests it skips (HAMi / MetaX sGPU) are refused here.
    bool counted = std::any_of(demand.resources.begin(), demand.resources.end(), [](const auto& r) {
      return !ignored_by_scheduler(r.first, GpuStack::kNone);
    });
    if (counted) return true;
    outcome.fail([&] {
      return "node has no GPUs; the pod's GPU request (" + std::string(to_string(demand.kind)) +
             ") needs " + std::string(to_string(demand.needs_stack));
    });
    return false;
  }
  if (node.stack != demand.needs_stack) {
    outcome.fail([&] {
      return "node's GPU stack is " + std::string(to_string(node.stack)) +
             ", the pod's GPU request (" + std::string(to_string(demand.kind)) + ") needs " +
             std::string(to_string(demand.needs_stack));
    });
    return false;  // nothing else compares across stacks
  }
  bool per_device = fitted_per_device(demand);
  if (per_device && !node.register_ok) {
    if (!outcome.fail([&] { return "node's GPU inventory is unusable: " + node.register_error; }))
      return false;
    per_device = false;
  }
  if (!check_gpu_shape(snapshot, gpus, demand, target, &outcome) && out == nullptr) return false;
  if (!check_product(snapshot, gpus, demand, target, &outcome) && out == nullptr) return false;
  if (per_device &&
      !check_device_capacity(gpus, pod, demand, target, ledger, &outcome, out != nullptr) &&
      out == nullptr) {
    return false;
  }
  if (!check_group(snapshot, gpus, pod, demand, target, ledger, &outcome) && out == nullptr) {
    return false;
  }
  if (!check_clique(snapshot, gpus, pod, target, ledger, &outcome) && out == nullptr) return false;
  return outcome.ok();
}

}  // namespace loadshift::placement

#include "placement/scheduler_model.h"

#include <algorithm>
#include <cmath>

#include "placement/inter_pod_rules.h"
#include "placement/placer.h"
#include "placement/predicates.h"

namespace loadshift::placement {
namespace {

constexpr int64_t kMaxCustomPriorityScore = 10;
// schedutil.DefaultMilliCPURequest and DefaultMemoryRequest: what NodeResourcesFit charges a
// container that requests no cpu or no memory.
constexpr int64_t kDefaultMilliCpu = 100;
constexpr int64_t kDefaultMemory = int64_t{200} * 1024 * 1024;

// A container's request of cpu (`cpu`) or memory with the scheduler's default for an absent
// (here: zero) one.
int64_t nonzero(const model::Container& c, bool cpu) {
  const int64_t amount = cpu ? c.requests.cpu_milli : c.requests.memory;
  return amount != 0 ? amount : cpu ? kDefaultMilliCpu : kDefaultMemory;
}

// The pod's request of cpu (`cpu`) or memory as NodeResourcesFit counts it: containers (sidecars
// included) summed, the max with each init container, plus overhead; defaults for containers
// that request none.
int64_t pod_nonzero(const model::Pod& pod, bool cpu) {
  int64_t sum = 0;
  for (const model::Container& c : pod.containers) sum += nonzero(c, cpu);
  int64_t sidecars = 0;
  int64_t init_max = 0;
  for (const model::Container& c : pod.init_containers) {
    if (c.restart_always) {
      sidecars += nonzero(c, cpu);
      continue;
    }
    init_max = std::max(init_max, sidecars + nonzero(c, cpu));
  }
  return std::max(sum + sidecars, init_max) + (cpu ? pod.overhead.cpu_milli : pod.overhead.memory);
}

// noderesources' leastRequestedScore, mostRequestedScore.
int64_t least_requested(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return (capacity - requested) * kMaxNodeScore / capacity;
}
int64_t most_requested(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  requested = std::min(requested, capacity);
  return requested * kMaxNodeScore / capacity;
}

// helper.BuildBrokenLinearFunction over the shape scaled to 0..100, at utilization percent `p`.
int64_t broken_linear(const std::vector<FitScoring::ShapePoint>& shape, int64_t p) {
  if (shape.empty()) return 0;
  auto scaled = [](int64_t score) { return score * (kMaxNodeScore / kMaxCustomPriorityScore); };
  for (size_t i = 0; i < shape.size(); ++i) {
    if (p <= shape[i].utilization) {
      if (i == 0) return scaled(shape[0].score);
      const auto& a = shape[i - 1];
      const auto& b = shape[i];
      return scaled(a.score) + (scaled(b.score) - scaled(a.score)) * (p - a.utilization) /
                                   (b.utilization - a.utilization);
    }
  }
  return scaled(shape.back().score);
}

// framework's DefaultNormalizeScore(MaxNodeScore, reverse, scores).
void default_normalize(std::vector<int64_t>& scores, bool reverse) {
  int64_t max = 0;
  for (int64_t s : scores) max = std::max(max, s);
  if (max == 0) {
    if (reverse) std::fill(scores.begin(), scores.end(), kMaxNodeScore);
    return;
  }
  for (int64_t& s : scores) {
    s = kMaxNodeScore * s / max;
    if (reverse) s = kMaxNodeScore - s;
  }
}

}  // namespace

const char* to_string(FitScoring::Type type) {
  switch (type) {
    case FitScoring::Type::kLeastAllocated:
      return "LeastAllocated";
    case FitScoring::Type::kMostAllocated:
      return "MostAllocated";
    case FitScoring::Type::kRequestedToCapacityRatio:
      return "RequestedToCapacityRatio";
  }
  return "?";
}

SchedulerModel::SchedulerModel(const ClusterIndex& index, SchedulerProfile profile)
    : index_(index), profile_(std::move(profile)) {
  const model::Snapshot& snapshot = index.snapshot();
  for (const FitScoring::Resource& r : profile_.fit.resources) {
    FitResource::Kind kind = r.name == model::kCpu      ? FitResource::kCpu
                             : r.name == model::kMemory ? FitResource::kMemory
                                                        : FitResource::kOther;
    fit_resources_.push_back({kind, &r.name, r.weight});
  }
  for (NodeId node = 0; node < snapshot.nodes.size(); ++node) {
    for (const model::Taint& taint : snapshot.nodes[node].taints) {
      if (taint.effect == model::TaintEffect::kPreferNoSchedule && taint.key != kSoftTaintKey) {
        any_soft_taint_ = true;
      }
    }
  }
  pod_nonzero_cpu_.resize(snapshot.pods.size());
  pod_nonzero_memory_.resize(snapshot.pods.size());
  for (PodId pod = 0; pod < snapshot.pods.size(); ++pod) {
    pod_nonzero_cpu_[pod] = pod_nonzero(snapshot.pods[pod], /*cpu=*/true);
    pod_nonzero_memory_[pod] = pod_nonzero(snapshot.pods[pod], /*cpu=*/false);
  }
  if (profile_.system_default_spreading) index_owners_and_zones();
  node_nonzero_cpu_.assign(snapshot.nodes.size(), 0);
  node_nonzero_memory_.assign(snapshot.nodes.size(), 0);
  for (NodeId node = 0; node < snapshot.nodes.size(); ++node) {
    node_allocatable_cpu_.push_back(snapshot.nodes[node].allocatable.cpu_milli);
    node_allocatable_memory_.push_back(snapshot.nodes[node].allocatable.memory);
    for (PodId pod : index.pods_on(node)) {
      node_nonzero_cpu_[node] += pod_nonzero_cpu_[pod];
      node_nonzero_memory_[node] += pod_nonzero_memory_[pod];
    }
  }
}

bool SchedulerModel::recreated(PodId pod) const {
  const model::OwnerReference* owner = index_.snapshot().pods[pod].controller();
  return owner != nullptr && owner->kind != "DaemonSet" && owner->kind != "Node";
}

bool SchedulerModel::recreated_in_place(PodId pod) const {
  const model::OwnerReference* owner = index_.snapshot().pods[pod].controller();
  return owner != nullptr && (owner->kind == "DaemonSet" || owner->kind == "Node");
}

bool SchedulerModel::replaced_after_deletion(PodId pod) const {
  const model::OwnerReference* owner = index_.snapshot().pods[pod].controller();
  return owner != nullptr && owner->kind == "StatefulSet";
}

// NodeInfo.NonZeroRequested for cpu and memory (with the ledger's moves in), Requested for the
// rest: what NodeResourcesFit reads.
int64_t SchedulerModel::nonzero_requested(NodeId node, FitResource::Kind kind,
                                          std::string_view name, const Ledger& ledger) const {
  const bool cpu = kind == FitResource::kCpu;
  if (kind == FitResource::kOther) {
    return index_.requested(node).get(name) + ledger.reserved(node).get(name);
  }
  int64_t sum = cpu ? node_nonzero_cpu_[node] : node_nonzero_memory_[node];
  for (PodId moved : ledger.incoming(node)) {
    sum += cpu ? pod_nonzero_cpu_[moved] : pod_nonzero_memory_[moved];
  }
  return sum;
}

int64_t SchedulerModel::fit_score(PodId pod, NodeId node, const Ledger& ledger,
                                  bool without_self) const {
  const model::Node& n = index_.snapshot().nodes[node];
  // Volcano's nodeorder scores leastrequested on cpu and memory alike, whatever the policy says of
  // kube-scheduler's NodeResourcesFit.
  static const std::string kCpuName(model::kCpu), kMemoryName(model::kMemory);
  static const std::vector<FitResource> kVolcano{{FitResource::kCpu, &kCpuName, 1},
                                                 {FitResource::kMemory, &kMemoryName, 1}};
  const bool volcano = index_.snapshot().pods[pod].scheduler_name == "volcano";
  const FitScoring::Type type = volcano ? FitScoring::Type::kLeastAllocated : profile_.fit.type;
  int64_t sum = 0, weights = 0;
  for (const FitResource& r : volcano ? kVolcano : fit_resources_) {
    int64_t allocatable = r.kind == FitResource::kCpu      ? node_allocatable_cpu_[node]
                          : r.kind == FitResource::kMemory ? node_allocatable_memory_[node]
                                                           : n.allocatable.get(*r.name);
    if (allocatable == 0) continue;
    int64_t request = r.kind == FitResource::kCpu      ? pod_nonzero_cpu_[pod]
                      : r.kind == FitResource::kMemory ? pod_nonzero_memory_[pod]
                                                       : index_.requests(pod).get(*r.name);
    // noderesources skips an extended resource the pod does not request.
    if (r.kind == FitResource::kOther && request == 0 && *r.name != model::kEphemeralStorage)
      continue;
    int64_t requested = nonzero_requested(node, r.kind, *r.name, ledger) + request;
    if (without_self) requested -= request;
    int64_t score = 0;
    switch (type) {
      case FitScoring::Type::kLeastAllocated:
        score = least_requested(requested, allocatable);
        break;
      case FitScoring::Type::kMostAllocated:
        score = most_requested(requested, allocatable);
        break;
      case FitScoring::Type::kRequestedToCapacityRatio:
        score = broken_linear(profile_.fit.shape,
                              std::min(requested, allocatable) * kMaxNodeScore / allocatable);
        // RequestedToCapacityRatio counts only the resources that score above 0.
        if (score <= 0) continue;
        break;
    }
    sum += score * r.weight;
    weights += r.weight;
  }
  if (weights == 0) return 0;
  if (type == FitScoring::Type::kRequestedToCapacityRatio) {
    return static_cast<int64_t>(
        std::lround(static_cast<double>(sum) / static_cast<double>(weights)));
  }
  return sum / weights;
}

// NodeResourcesBalancedAllocation: 1 minus the spread of the cpu and memory fractions (requests,
// without defaults, the pod's included; each capped at 1).
int64_t SchedulerModel::balanced_score(PodId pod, NodeId node, const Ledger& ledger,
                                       bool without_self) const {
  double fractions[2] = {0, 0};
  size_t count = 0;
  const model::ResourceList& on_node = index_.requested(node);
  const model::ResourceList& reserved = ledger.reserved(node);
  const model::ResourceList& request = index_.requests(pod);
  const int64_t self = without_self ? 0 : 1;
  auto add = [&](int64_t allocatable, int64_t requested) {
    if (allocatable == 0) return;
    fractions[count++] =
        std::min(1.0, static_cast<double>(requested) / static_cast<double>(allocatable));
  };
  add(node_allocatable_cpu_[node],
      on_node.cpu_milli + reserved.cpu_milli + self * request.cpu_milli);
  add(node_allocatable_memory_[node], on_node.memory + reserved.memory + self * request.memory);
  double std_dev = count == 2 ? std::abs((fractions[0] - fractions[1]) / 2) : 0.0;
  return static_cast<int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
}

// Volcano's binpack: the resources the pod requests (cpu and memory, weight 1 each), used after
// placing over allocatable; a resource that would not fit scores 0 but keeps its weight.
int64_t SchedulerModel::binpack_score(PodId pod, NodeId node, const Ledger& ledger,
                                      bool without_self) const {
  double sum = 0;
  int64_t weights = 0;
  for (bool cpu : {true, false}) {
    int64_t request = cpu ? index_.requests(pod).cpu_milli : index_.requests(pod).memory;
    if (request == 0) continue;
    ++weights;
    double allocatable =
        static_cast<double>(cpu ? node_allocatable_cpu_[node] : node_allocatable_memory_[node]);
    int64_t on_node = cpu ? index_.requested(node).cpu_milli + ledger.reserved(node).cpu_milli
                          : index_.requested(node).memory + ledger.reserved(node).memory;
    double used = static_cast<double>(on_node + (without_self ? 0 : request));
    // Volcano's BinPackingScore: a resource that would not fit makes the whole node score 0.
    if (allocatable <= 0 || used > allocatable) return 0;
    sum += used / allocatable;
  }
  if (weights == 0) return 0;
  return static_cast<int64_t>(sum / static_cast<double>(weights) *
                              static_cast<double>(kMaxNodeScore));
}

int64_t SchedulerModel::untolerated_soft_taints(PodId pod, NodeId node) const {
  const model::Pod& p = index_.snapshot().pods[pod];
  const model::Node& n = index_.snapshot().nodes[node];
  const SoftTaint state = node < soft_taint_.size() ? soft_taint_[node] : kAsIs;
  if (state != kTainted && !index_.soft_tainted(node)) return 0;  // most nodes: no such taint
  static const model::Taint ours{kSoftTaintKey, "", model::TaintEffect::kPreferNoSchedule};
  auto tolerated = [&](const model::Taint& taint) {
    return std::any_of(p.tolerations.begin(), p.tolerations.end(),
                       [&](const model::Toleration& t) { return tolerates(t, taint); });
  };
  int64_t count = 0;
  if (index_.soft_tainted(node)) {
    for (const model::Taint& taint : n.taints) {
      if (taint.effect != model::TaintEffect::kPreferNoSchedule) continue;
      // The state given replaces the snapshot's own entry (the API allows one per key and
      // effect): never counted twice, and gone once the controller removes it.
      if (state != kAsIs && taint.key == kSoftTaintKey) continue;
      if (!tolerated(taint)) ++count;
    }
  }
  if (state == kTainted && !tolerated(ours)) ++count;
  return count;
}

bool SchedulerModel::admits(const Placer& placer, PodId pod, NodeId node,
                            const Ledger& ledger) const {
  if (usage_refuses(pod, node)) return false;
  if (node == index_.node_of(pod) && replaced_after_deletion(pod)) {
    return placer.node_rules_pass(pod, node);
  }
  return placer.feasible_replacement(pod, node, ledger);
}

bool SchedulerModel::usage_refuses(PodId pod, NodeId node) const {
  const std::optional<VolcanoUsageScoring>& usage = profile_.volcano_usage;
  if (!usage || !usage->predicate || node >= node_load_.size() || !node_load_[node].known) {
    return false;
  }
  if (index_.snapshot().pods[pod].scheduler_name != "volcano") return false;
  const NodeLoad& load = node_load_[node];
  return load.cpu > usage->cpu_threshold || load.memory > usage->memory_threshold;
}

// usage's nodeOrderFn before its weight: the free share of cpu and memory, weighted.
int64_t SchedulerModel::usage_score(NodeId node) const {
  const std::optional<VolcanoUsageScoring>& usage = profile_.volcano_usage;
  if (!usage || node >= node_load_.size() || !node_load_[node].known) return 0;
  const int64_t weights = usage->cpu_weight + usage->memory_weight;
  if (weights <= 0) return 0;
  const NodeLoad& load = node_load_[node];
  double score = ((100 - load.cpu) / 100 * static_cast<double>(usage->cpu_weight) +
                  (100 - load.memory) / 100 * static_cast<double>(usage->memory_weight)) /
                 static_cast<double>(weights);
  return static_cast<int64_t>(score * static_cast<double>(kMaxNodeScore));
}

SchedulerModel::Weights SchedulerModel::weights_for(bool volcano) const {
  const SchedulerProfile& w = profile_;
  Weights out{w.fit_weight,
              w.balanced_weight,
              w.taint_weight,
              w.node_affinity_weight,
              w.inter_pod_weight,
              w.spread_weight,
              0,
              0};
  if (!volcano) return out;
  if (!w.volcano_nodeorder) out = Weights{0, 0, 0, 0, 0, 0, 0, 0};
  out.binpack = w.volcano_binpack_weight;
  out.usage = w.volcano_usage ? w.volcano_usage->weight : 0;
  return out;
}

int64_t SchedulerModel::margin(PodId pod) const {
  if (index_.snapshot().pods[pod].scheduler_name != "volcano") return 0;
  Weights w = weights_for(true);
  return w.binpack + w.usage;
}

std::vector<NodeScore> SchedulerModel::scores(PodId pod, std::span<const NodeId> nodes,
                                              const Ledger& ledger) const {
  const Placer placer(index_);
  const model::Snapshot& snapshot = index_.snapshot();
  const model::Pod& p = snapshot.pods[pod];
  const bool volcano = p.scheduler_name == "volcano";
  std::vector<NodeScore> out;
  std::vector<int64_t> taints, affinity, inter_pod, spread;
  std::vector<bool> spread_missing;
  const PodInterRules* rules = index_.pod_topology().rules(pod);
  const NodeId at =
      ledger.planned_node(pod) != kNoNode ? ledger.planned_node(pod) : index_.node_of(pod);
  for (NodeId node : nodes) {
    if (!admits(placer, pod, node, ledger)) continue;
    const bool without_self = node == index_.node_of(pod) && replaced_after_deletion(pod);
    NodeScore s;
    s.node = node;
    s.fit = fit_score(pod, node, ledger, without_self);
    s.balanced = balanced_score(pod, node, ledger, without_self);
    if (volcano) s.binpack = binpack_score(pod, node, ledger, without_self);
    if (volcano) s.usage = usage_score(node);
    taints.push_back(untolerated_soft_taints(pod, node));
    affinity.push_back(
        p.node_affinity->preferred.empty() ? 0 : preferred_affinity_score(p, snapshot.nodes[node]));
    InterPodScore ip;
    if (rules != nullptr)
      ip = score_inter_pod(index_.pod_topology(), *rules, pod, at, node, ledger);
    inter_pod.push_back(ip.affinity);
    spread.push_back(static_cast<int64_t>(std::llround(ip.spread)));
    spread_missing.push_back(ip.spread_missing_key);
    out.push_back(s);
  }
  if (out.empty()) return out;
  // TaintToleration and NodeAffinity: DefaultNormalizeScore (taints reversed: fewer is better).
  default_normalize(taints, /*reverse=*/true);
  // Volcano's nodeorder adds NodeAffinity's raw score, unnormalised.
  if (!volcano) default_normalize(affinity, /*reverse=*/false);
  // InterPodAffinity: (score - min) / (max - min), 0 when all are equal.
  int64_t lo = *std::min_element(inter_pod.begin(), inter_pod.end());
  int64_t hi = *std::max_element(inter_pod.begin(), inter_pod.end());
  // PodTopologySpread: nodes lacking a key score 0; the others max + min - score over max.
  int64_t spread_lo = 0, spread_hi = 0;
  bool first = true;
  for (size_t i = 0; i < out.size(); ++i) {
    if (spread_missing[i]) continue;
    spread_lo = first ? spread[i] : std::min(spread_lo, spread[i]);
    spread_hi = first ? spread[i] : std::max(spread_hi, spread[i]);
    first = false;
  }
  const bool has_spread = rules != nullptr && !rules->soft_spread.empty();
  std::vector<int64_t> by_default;
  if (default_spreading(pod)) {
    // Normalised over the feasible nodes, as the scheduler does.
    std::vector<size_t> per_slot(zone_count_ + 1, 0);
    std::vector<char> feasible(index_.snapshot().nodes.size(), 0);
    for (const NodeScore& s : out) {
      ++per_slot[zone_slot(s.node)];
      feasible[s.node] = 1;
    }
    DefaultSpread spread(
        *this, pod, per_slot, out.size(), [&feasible](NodeId node) { return feasible[node] != 0; },
        ledger);
    for (const NodeScore& s : out) by_default.push_back(spread.score(s.node));
  }
  const Weights w = weights_for(volcano);
  for (size_t i = 0; i < out.size(); ++i) {
    NodeScore& s = out[i];
    s.taint = taints[i];
    s.node_affinity = affinity[i];
    // Go's order of operations: MaxNodeScore * ((score - min) / (max - min)), then truncated.
    s.inter_pod = hi > lo ? static_cast<int64_t>(static_cast<double>(kMaxNodeScore) *
                                                 (static_cast<double>(inter_pod[i] - lo) /
                                                  static_cast<double>(hi - lo)))
                          : 0;
    if (!by_default.empty()) {
      s.spread = by_default[i];
    } else if (!has_spread || spread_missing[i]) {
      s.spread = 0;
    } else if (spread_hi == 0) {
      s.spread = kMaxNodeScore;
    } else {
      s.spread = kMaxNodeScore * (spread_hi + spread_lo - spread[i]) / spread_hi;
    }
    s.total = w.fit * s.fit + w.balanced * s.balanced + w.taint * s.taint +
              w.node_affinity * s.node_affinity + w.inter_pod * s.inter_pod + w.spread * s.spread +
              w.binpack * s.binpack + w.usage * s.usage;
  }
  return out;
}

Landing SchedulerModel::predict(PodId pod, std::span<const NodeId> nodes, const Ledger& ledger,
                                NodeId also) const {
  if (totals_known_before_filters(pod)) return predict_fast(pod, nodes, ledger, also);
  Landing landing;
  landing.volcano = index_.snapshot().pods[pod].scheduler_name == "volcano";
  std::vector<NodeScore> all = scores(pod, nodes, ledger);
  if (all.empty()) return landing;
  int64_t top = all.front().total;
  for (const NodeScore& s : all) top = std::max(top, s.total);
  landing.score = top;
  const int64_t floor = top - margin(pod);
  for (const NodeScore& s : all) {
    if (s.total >= floor) {
      landing.best.push_back(s.node);
      landing.detail.push_back(s);
    } else if (s.node == also) {
      landing.detail.push_back(s);
    }
  }
  return landing;
}

std::string SchedulerModel::describe(const NodeScore& s) const {
  std::string out = index_.snapshot().nodes[s.node].meta.name + " " + std::to_string(s.total) +
                    " (fit " + std::to_string(s.fit) + ", balanced " + std::to_string(s.balanced) +
                    ", taints " + std::to_string(s.taint) + ", affinity " +
                    std::to_string(s.node_affinity) + ", inter-pod " + std::to_string(s.inter_pod) +
                    ", spread " + std::to_string(s.spread);
  if (s.binpack != 0) out += ", binpack " + std::to_string(s.binpack);
  if (s.usage != 0) out += ", usage " + std::to_string(s.usage);
  return out + ")";
}

}  // namespace loadshift::placement

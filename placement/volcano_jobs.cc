#include "placement/volcano_jobs.h"

#include <charconv>
#include <limits>
#include <span>
#include <string_view>
#include <unordered_map>

namespace loadshift::placement {
namespace {

constexpr std::string_view kKubeGroupNameAnnotation = "scheduling.k8s.io/group-name";
constexpr std::string_view kVolcanoGroupNameAnnotation = "scheduling.volcano.sh/group-name";
constexpr std::string_view kJobNameKey = "volcano.sh/job-name";  // annotation or label
constexpr std::string_view kTopologyModeAnnotation = "volcano.sh/network-topology-mode";
constexpr std::string_view kHighestTierAnnotation = "volcano.sh/network-topology-highest-tier";

std::string namespaced(std::string_view namespace_, std::string_view name) {
  std::string key(namespace_);
  key += '/';
  key += name;
  return key;
}

// The value of `key` in `map`, empty when absent.
std::string_view value_of(const model::StringMap& map, std::string_view key) {
  const std::string* value = map.find(key);
  return value ? std::string_view(*value) : std::string_view();
}

// What a pod names: its PodGroup and its vcjob, each empty when not named.
struct PodLink {
  std::string_view group;
  std::string_view job;
};

PodLink link_of(const model::Pod& pod) {
  PodLink link{.group = value_of(pod.meta.annotations, kKubeGroupNameAnnotation),
               .job = value_of(pod.meta.annotations, kJobNameKey)};
  if (link.group.empty()) link.group = value_of(pod.meta.annotations, kVolcanoGroupNameAnnotation);
  if (link.job.empty()) link.job = value_of(pod.meta.labels, kJobNameKey);
  return link;
}

// How jobs are named in warnings and reasons: "default/hello-volcano-job" (the vcjob when known,
// else the PodGroup).
std::string job_label(const GangJob& job) {
  return namespaced(job.namespace_, job.job_name.empty() ? job.name : job.job_name);
}

// Lookups the constructor needs, and where its results go.
struct Build {
  const model::Snapshot& snapshot;
  std::vector<GangJob>& jobs;
  std::vector<std::string>& warnings;
  std::unordered_map<std::string_view, NodeId> node_ids;
  std::unordered_map<std::string, const model::PodGroup*> pod_groups;          // "ns/name"
  std::unordered_map<std::string, const model::PodGroup*> pod_group_of_vcjob;  // "ns/vcjob name"
  std::unordered_map<std::string, const model::VolcanoJob*> vcjobs;            // "ns/name"
  std::unordered_map<std::string, JobId> job_ids;  // "g:ns/PodGroup" or "j:ns/vcjob"
};

template <typename T>
const T* find_object(const std::unordered_map<std::string, const T*>& objects,
                     std::string_view namespace_, std::string_view name) {
  if (name.empty()) return nullptr;
  const auto found = objects.find(namespaced(namespace_, name));
  return found == objects.end() ? nullptr : found->second;
}

void index_objects(Build& build) {
  const model::Snapshot& snapshot = build.snapshot;
  for (NodeId id = 0; id < snapshot.nodes.size(); ++id) {
    build.node_ids.emplace(snapshot.nodes[id].meta.name, id);
  }
  for (const model::PodGroup& group : snapshot.pod_groups) {
    build.pod_groups.emplace(namespaced(group.meta.namespace_, group.meta.name), &group);
    if (!group.job_name.empty()) {
      build.pod_group_of_vcjob.emplace(namespaced(group.meta.namespace_, group.job_name), &group);
    }
  }
  for (const model::VolcanoJob& job : snapshot.jobs) {
    build.vcjobs.emplace(namespaced(job.meta.namespace_, job.meta.name), &job);
  }
}

// The node `pod` lives on, or kNoNode when it is terminated, unbound or on an unknown node.
NodeId live_node(const Build& build, const model::Pod& pod) {
  if (pod.terminated() || pod.node_name.empty()) return kNoNode;
  const auto found = build.node_ids.find(pod.node_name);
  return found == build.node_ids.end() ? kNoNode : found->second;
}

// A new job for the first pod that links to it.
GangJob new_job(Build& build, const model::Pod& pod, const PodLink& link) {
  const std::string_view ns = pod.meta.namespace_;
  GangJob job;
  job.namespace_ = pod.meta.namespace_;
  job.pod_group = find_object(build.pod_groups, ns, link.group);
  if (!job.pod_group && link.group.empty()) {
    job.pod_group = find_object(build.pod_group_of_vcjob, ns, link.job);
  }
  // A PodGroup's owner may be a batch/v1 Job rather than a vcjob: only a vcjob that exists counts.
  std::string_view job_name = link.job;
  if (job_name.empty() && job.pod_group && find_object(build.vcjobs, ns, job.pod_group->job_name)) {
    job_name = job.pod_group->job_name;
  }
  job.job_name = std::string(job_name);
  job.job = find_object(build.vcjobs, ns, job_name);
  job.name = job.pod_group ? job.pod_group->meta.name
                           : std::string(link.group.empty() ? job_name : link.group);
  if (!link.group.empty() && !job.pod_group) {
    build.warnings.push_back("job " + job_label(job) + ": PodGroup " + namespaced(ns, link.group) +
                             " named by pod " + pod.key() + " is not in the snapshot");
  }
  if (!link.job.empty() && !job.job) {
    build.warnings.push_back("job " + job_label(job) + ": vcjob " + namespaced(ns, link.job) +
                             " named by pod " + pod.key() + " is not in the snapshot");
  }
  return job;
}

// The job `pod` belongs to, made on first sight. Jobs are keyed by PodGroup when there is one,
// so every pod of a gang lands in one job however it names it.
JobId job_for(Build& build, const model::Pod& pod, const PodLink& link) {
  std::string_view group = link.group;
  if (group.empty()) {
    const model::PodGroup* owned =
        find_object(build.pod_group_of_vcjob, pod.meta.namespace_, link.job);
    if (owned) group = owned->meta.name;
  }
  const std::string key = group.empty() ? "j:" + namespaced(pod.meta.namespace_, link.job)
                                        : "g:" + namespaced(pod.meta.namespace_, group);
  const auto [it, inserted] = build.job_ids.try_emplace(key, static_cast<JobId>(build.jobs.size()));
  if (inserted) build.jobs.push_back(new_job(build, pod, link));
  return it->second;
}

// Topology from the pod annotations, for workloads that are not vcjobs; empty when `pod` has
// neither annotation.
std::optional<model::NetworkTopology> topology_from_annotations(Build& build, const GangJob& job,
                                                                const model::Pod& pod) {
  const std::string* mode = pod.meta.annotations.find(kTopologyModeAnnotation);
  const std::string* tier = pod.meta.annotations.find(kHighestTierAnnotation);
  if (!mode && !tier) return std::nullopt;
  model::NetworkTopology topology;
  if (mode && *mode == "soft") {
    topology.mode = model::TopologyMode::kSoft;
  } else if (mode && *mode != "hard") {
    build.warnings.push_back("job " + job_label(job) + ": pod " + pod.key() + " annotation " +
                             std::string(kTopologyModeAnnotation) + "=\"" + *mode +
                             "\" is neither hard nor soft; hard assumed");
  }
  if (tier) {
    int32_t value = -1;
    const char* end = tier->data() + tier->size();
    const auto [ptr, error] = std::from_chars(tier->data(), end, value);
    if (error == std::errc() && ptr == end && value >= 0) {
      topology.highest_tier_allowed = value;
    } else {
      build.warnings.push_back("job " + job_label(job) + ": pod " + pod.key() + " annotation " +
                               std::string(kHighestTierAnnotation) + "=\"" + *tier +
                               "\" is not a tier (a non-negative integer); no tier bound applied");
    }
  }
  return topology;
}

// PodGroup spec.networkTopology, else the vcjob's, else the first pod annotations found.
std::optional<model::NetworkTopology> topology_of(Build& build, const GangJob& job) {
  if (job.pod_group && job.pod_group->network_topology) return job.pod_group->network_topology;
  if (job.job && job.job->network_topology) return job.job->network_topology;
  for (PodId id : job.pods) {
    auto topology = topology_from_annotations(build, job, build.snapshot.pods[id]);
    if (topology) return topology;
  }
  return std::nullopt;
}

// highestTierAllowed, else the tier of highestTierName; empty (with a warning) when neither
// gives a tier.
std::optional<int32_t> tier_bound(Build& build, const HyperNodeTree& tree, const GangJob& job) {
  if (!job.topology) return std::nullopt;
  const model::NetworkTopology& topology = *job.topology;
  const std::string prefix = "job " + job_label(job) + ": ";
  if (topology.highest_tier_allowed) {
    if (!topology.highest_tier_name.empty()) {
      build.warnings.push_back(prefix +
                               "networkTopology sets both highestTierAllowed and highestTierName; "
                               "highestTierAllowed is used");
    }
    return topology.highest_tier_allowed;
  }
  if (!topology.highest_tier_name.empty()) {
    std::optional<int32_t> tier = tree.tier_of_name(topology.highest_tier_name);
    if (!tier) {
      build.warnings.push_back(prefix + "no HyperNode has tierName \"" +
                               topology.highest_tier_name + "\"; no tier bound applied");
    }
    return tier;
  }
  if (topology.mode == model::TopologyMode::kHard) {
    build.warnings.push_back(prefix +
                             "hard networkTopology without highestTierAllowed or highestTierName; "
                             "no tier bound applied");
  }
  return std::nullopt;
}

void resolve_job(Build& build, const HyperNodeTree& tree, GangJob& job) {
  job.min_available = job.pod_group ? job.pod_group->min_member
                      : job.job     ? job.job->min_available
                                    : 0;
  job.topology = topology_of(build, job);
  job.highest_tier = tier_bound(build, tree, job);
}

// The node the job's i-th pod counts on when `pod` moves: where the ledger planned it, if it did,
// else where it lives; kNoNode for `pod` itself and for pods that are not live.
NodeId other_pod_node(const GangJob& job, size_t i, PodId pod, const Ledger& ledger,
                      bool ledger_empty) {
  if (job.pods[i] == pod || job.live_nodes[i] == kNoNode) return kNoNode;
  const NodeId planned = ledger_empty ? kNoNode : ledger.planned_node(job.pods[i]);
  return planned != kNoNode ? planned : job.live_nodes[i];
}

bool has_other_live_pod(const GangJob& job, PodId pod) {
  for (size_t i = 0; i < job.pods.size(); ++i) {
    if (job.pods[i] != pod && job.live_nodes[i] != kNoNode) return true;
  }
  return false;
}

// The lowest (tier, name) real domain of tier <= `max_tier` holding `target` and the nodes of the
// job's other live pods, or kNoDomain. Walks the target's domains and, for each, the job's pods
// until one is outside, so a far target costs O(depth) and a near one O(job size x depth).
constexpr HyperNodeTree::DomainId kNoDomain = UINT32_MAX;
HyperNodeTree::DomainId common_domain(const HyperNodeTree& tree, const GangJob& job, PodId pod,
                                      NodeId target, const Ledger& ledger, int32_t max_tier) {
  const bool ledger_empty = ledger.moves().empty();
  const std::span<const HyperNodeTree::DomainId> candidates = tree.domain_ids_of(target);
  size_t candidate = 0;
  size_t next = 0;            // the next pod of the job to test against the candidate
  NodeId last_held = target;  // a node the candidate is known to hold
  while (candidate < candidates.size() && tree.tier_of(candidates[candidate]) <= max_tier) {
    if (next == job.pods.size()) return candidates[candidate];
    const NodeId node = other_pod_node(job, next++, pod, ledger, ledger_empty);
    if (node == kNoNode || node == last_held) continue;
    if (tree.holds(candidates[candidate], node)) {
      last_held = node;
    } else {
      ++candidate;
      next = 0;
      last_held = target;
    }
  }
  return kNoDomain;
}

std::string node_name(const model::Snapshot& snapshot, NodeId node) {
  if (node < snapshot.nodes.size()) return snapshot.nodes[node].meta.name;
  return "node #" + std::to_string(node);
}

// Why moving `pod` to `target` breaks the job's bound (the slow path: only for rejections).
std::string topology_reason(const model::Snapshot& snapshot, const HyperNodeTree& tree,
                            const GangJob& job, PodId pod, NodeId target, const Ledger& ledger) {
  const std::string bound = std::to_string(*job.highest_tier);
  std::string reason =
      "job " + job_label(job) + " requires its pods under one HyperNode of tier <= " + bound + "; ";
  const std::string target_name = node_name(snapshot, target);
  if (!has_other_live_pod(job, pod)) {
    return reason + target_name + " is in no HyperNode of tier <= " + bound;
  }
  reason += "with this pod on " + target_name + " they ";
  const HyperNodeTree::DomainId domain =
      common_domain(tree, job, pod, target, ledger, std::numeric_limits<int32_t>::max());
  if (domain == kNoDomain) return reason + "share no HyperNode";
  return reason + "span " + std::string(tree.name_of(domain)) + " (tier " +
         std::to_string(tree.tier_of(domain)) + ")";
}

}  // namespace

GangIndex::GangIndex(const model::Snapshot& snapshot, const HyperNodeTree& tree)
    : job_of_pod_(snapshot.pods.size(), kNoJob) {
  Build build{.snapshot = snapshot,
              .jobs = jobs_,
              .warnings = warnings_,
              .node_ids = {},
              .pod_groups = {},
              .pod_group_of_vcjob = {},
              .vcjobs = {},
              .job_ids = {}};
  index_objects(build);
  for (PodId id = 0; id < snapshot.pods.size(); ++id) {
    const model::Pod& pod = snapshot.pods[id];
    const PodLink link = link_of(pod);
    if (link.group.empty() && link.job.empty()) continue;
    const JobId job = job_for(build, pod, link);
    job_of_pod_[id] = job;
    jobs_[job].pods.push_back(id);
    jobs_[job].live_nodes.push_back(live_node(build, pod));
  }
  for (GangJob& job : jobs_) resolve_job(build, tree, job);
}

bool check_network_topology(const model::Snapshot& snapshot, const HyperNodeTree& tree,
                            const GangIndex& gangs, PodId pod, NodeId target, const Ledger& ledger,
                            Reasons* out) {
  const JobId id = gangs.job_of(pod);
  if (id == kNoJob) return true;
  const GangJob& job = gangs.job(id);
  if (!job.topology || job.topology->mode != model::TopologyMode::kHard || !job.highest_tier)
    return true;
  if (common_domain(tree, job, pod, target, ledger, *job.highest_tier) != kNoDomain) return true;
  if (out) {
    out->push_back(Rejection{.rule = Rule::kNetworkTopology,
                             .reason = topology_reason(snapshot, tree, job, pod, target, ledger)});
  }
  return false;
}

int32_t network_topology_tier(const model::Snapshot& /*snapshot*/, const HyperNodeTree& tree,
                              const GangIndex& gangs, PodId pod, NodeId target,
                              const Ledger& ledger) {
  const JobId id = gangs.job_of(pod);
  if (id == kNoJob || !gangs.job(id).topology) return 0;
  const HyperNodeTree::DomainId domain =
      common_domain(tree, gangs.job(id), pod, target, ledger, std::numeric_limits<int32_t>::max());
  return domain == kNoDomain ? tree.virtual_root_tier() : tree.tier_of(domain);
}

}  // namespace loadshift::placement

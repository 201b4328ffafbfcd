// EvictionFilter: DefaultEvictor's rules in upstream's order (kubernetes-sigs/descheduler
// defaultevictor.go), then loadshift's placement, Volcano-gang and GPU rules. What can be
// computed once per snapshot (the threshold, PDBs by namespace, pods per owner) is, in Cache.
#include "strategies/evictability.h"

#include <algorithm>
#include <unordered_map>

#include "model/rfc3339.h"

namespace loadshift::strategies {
namespace {

constexpr int32_t kSystemCriticalPriority = 2000000000;

// The hint after a gang or GPU refusal: a switch the plugin's args really have.
std::string switch_hint(const WorkloadSwitches& switches, const std::string& key,
                        const std::string& what) {
  if (switches.set_in_args) return "set " + key + " to allow";
  return "this plugin never moves " + what + "; only LoadAware's " + key + " allows it";
}

constexpr std::string_view kEvictAnnotation = "descheduler.alpha.kubernetes.io/evict";
constexpr std::string_view kPreferNoEvictionAnnotation =
    "descheduler.alpha.kubernetes.io/prefer-no-eviction";
constexpr std::string_view kMirrorAnnotation = "kubernetes.io/config.mirror";
constexpr std::string_view kConfigSourceAnnotation = "kubernetes.io/config.source";
constexpr std::string_view kPreemptable = "volcano.sh/preemptable";
// Every namespace carries this label with its own name (Kubernetes 1.21+).
constexpr std::string_view kNamespaceNameLabel = "kubernetes.io/metadata.name";

const model::PriorityClass* find_class(const model::Snapshot& snapshot, std::string_view name) {
  for (const model::PriorityClass& c : snapshot.priority_classes) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// The value of volcano.sh/preemptable (annotation first, then label), or nullptr.
const std::string* preemptable_value(const model::ObjectMeta& meta) {
  if (const std::string* value = meta.annotations.find(kPreemptable)) return value;
  return meta.labels.find(kPreemptable);
}

// Volcano reads the value with strconv.ParseBool and treats an unreadable one as false.
bool preemptable_false(const std::string& value) {
  static const char* const kTrue[] = {"1", "t", "T", "true", "TRUE", "True"};
  return std::find(std::begin(kTrue), std::end(kTrue), value) == std::end(kTrue);
}

std::string preemptable_detail(const std::string& value, const std::string& where) {
  static const char* const kFalse[] = {"0", "f", "F", "false", "FALSE", "False"};
  bool plain = std::find(std::begin(kFalse), std::end(kFalse), value) != std::end(kFalse);
  std::string out = std::string(kPreemptable) + "=" + value + " on " + where;
  if (!plain) out += " (not a boolean; Volcano reads it as false)";
  return out;
}

bool is_restart_action(const std::string& action) {
  return action == "RestartJob" || action == "RestartTask" || action == "RestartPartition";
}

bool is_eviction_event(const std::string& event) {
  return event == "PodEvicted" || event == "*" || event == "AnyEvent";
}

// "policy PodEvicted -> RestartJob" for the first lifecycle policy that restarts on eviction.
std::optional<std::string> restart_on_eviction(const std::vector<model::LifecyclePolicy>& list,
                                               const char* scope) {
  for (const model::LifecyclePolicy& policy : list) {
    if (!is_restart_action(policy.action)) continue;
    std::vector<std::string> events = policy.events;
    if (!policy.event.empty()) events.push_back(policy.event);
    for (const std::string& event : events) {
      if (is_eviction_event(event)) {
        return std::string(scope) + " " + (event == "*" ? "AnyEvent (*)" : event) + " -> " +
               policy.action;
      }
    }
  }
  return std::nullopt;
}

std::string owner_key(const model::Pod& pod, const model::OwnerReference& owner) {
  if (!owner.uid.empty()) return owner.uid;
  return pod.meta.namespace_ + "/" + owner.kind + "/" + owner.name;
}

std::string format_age(std::chrono::milliseconds age) {
  int64_t seconds = age.count() / 1000;
  if (seconds < 0) return "-" + format_age(-age);
  std::string out;
  if (seconds >= 3600) out += std::to_string(seconds / 3600) + "h";
  if (seconds % 3600 >= 60) out += std::to_string(seconds % 3600 / 60) + "m";
  if (seconds % 60 != 0 || out.empty()) out += std::to_string(seconds % 60) + "s";
  return out;
}

}  // namespace

struct EvictionFilter::Cache {
  // Set when priorityThreshold.name names no PriorityClass: then nothing is evictable.
  std::optional<std::string> threshold_error;
  std::string threshold_class;  // priorityThreshold.name, when the threshold came from it
  // PDBs by namespace (only with the PodsWithoutPDB protection).
  std::unordered_map<std::string, std::vector<const model::PodDisruptionBudget*>> pdbs;
  // Pods per single owner (owner uid, else "ns/Kind/name"; only with minReplicas > 1).
  std::unordered_map<std::string, uint32_t> pods_per_owner;
  // The labels of the snapshot's Namespaces, by name (with a namespaceLabelSelector).
  std::unordered_map<std::string_view, const model::StringMap*> namespace_labels;
  // namespaceLabelSelector names keys other than kubernetes.io/metadata.name, which a snapshot
  // without Namespace objects cannot tell.
  bool namespace_labels_unknown = false;
};

const std::vector<std::string>& default_gpu_vendor_prefixes() {
  static const std::vector<std::string> kPrefixes = policy::LoadAwareArgs{}.gpu_vendor_prefixes;
  return kPrefixes;
}

int32_t pod_priority(const model::Snapshot& snapshot, const model::Pod& pod) {
  if (pod.priority) return *pod.priority;
  if (!pod.priority_class_name.empty()) {
    if (const model::PriorityClass* c = find_class(snapshot, pod.priority_class_name)) {
      return c->value;
    }
  }
  for (const model::PriorityClass& c : snapshot.priority_classes) {
    if (c.global_default) return c.value;
  }
  return 0;
}

bool is_gpu_resource(std::string_view resource, const std::vector<std::string>& vendor_prefixes) {
  for (const std::string& prefix : vendor_prefixes) {
    if (!prefix.empty() && resource.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

EvictionFilter::EvictionFilter(const placement::ClusterIndex& index,
                               const policy::DefaultEvictorArgs& args,
                               std::chrono::system_clock::time_point now)
    : index_(index), args_(args), now_(now) {
  const model::Snapshot& snapshot = index.snapshot();
  auto cache = std::make_shared<Cache>();
  if (!args.priority_threshold.name.empty()) {
    if (const model::PriorityClass* c = find_class(snapshot, args.priority_threshold.name)) {
      priority_threshold_ = c->value;
      cache->threshold_class = c->name;
    } else {
      cache->threshold_error = "priority threshold class " + args.priority_threshold.name +
                               " not found: no PriorityClass of that name in the snapshot, so no "
                               "pod is known to be below the threshold";
    }
  } else if (args.priority_threshold.value) {
    priority_threshold_ = *args.priority_threshold.value;
  }
  if (args.protections.without_pdb) {
    for (const model::PodDisruptionBudget& pdb : snapshot.pdbs) {
      cache->pdbs[pdb.meta.namespace_].push_back(&pdb);
    }
  }
  if (args.min_replicas > 1) {
    for (const model::Pod& pod : snapshot.pods) {
      if (pod.owners.size() == 1) ++cache->pods_per_owner[owner_key(pod, pod.owners[0])];
    }
  }
  if (args.namespace_label_selector) {
    for (const model::Namespace& ns : snapshot.namespaces) {
      cache->namespace_labels.emplace(ns.meta.name, &ns.meta.labels);
    }
    for (const auto& [key, value] : args.namespace_label_selector->match_labels.items()) {
      if (key != kNamespaceNameLabel) cache->namespace_labels_unknown = true;
    }
    for (const model::LabelSelectorRequirement& r :
         args.namespace_label_selector->match_expressions) {
      if (r.key != kNamespaceNameLabel) cache->namespace_labels_unknown = true;
    }
  }
  cache_ = std::move(cache);
}

std::optional<std::string> EvictionFilter::reject_reason(placement::PodId id,
                                                         const WorkloadSwitches& switches) const {
  const model::Snapshot& snapshot = index_.snapshot();
  const model::Pod& pod = snapshot.pods[id];
  const model::StringMap& annotations = pod.meta.annotations;
  const policy::PodProtections& protections = args_.protections;

  // 1. The evict annotation (any value, even "false") skips DefaultEvictor's checks 2-13.
  if (!annotations.contains(kEvictAnnotation)) {
    // 2.
    if (args_.no_eviction_policy == policy::NoEvictionPolicy::kMandatory &&
        annotations.contains(kPreferNoEvictionAnnotation)) {
      return "prefer-no-eviction: annotation " + std::string(kPreferNoEvictionAnnotation) +
             " under noEvictionPolicy Mandatory";
    }
    // 3.
    if (annotations.contains(kMirrorAnnotation)) {
      return "mirror pod: annotation " + std::string(kMirrorAnnotation);
    }
    if (const std::string* source = annotations.find(kConfigSourceAnnotation);
        source != nullptr && *source != "api") {
      return "static pod: " + std::string(kConfigSourceAnnotation) + "=" + *source;
    }
    // 4.
    if (pod.meta.deleting) return std::string("terminating: deletionTimestamp is set");
    // 5. SystemCriticalPods also carries priorityThreshold; disabling it drops both (upstream).
    if (protections.system_critical) {
      if (cache_->threshold_error) return *cache_->threshold_error;
      const int32_t priority = pod_priority(snapshot, pod);
      std::string of_class =
          pod.priority_class_name.empty() ? "" : " (priorityClass " + pod.priority_class_name + ")";
      if (priority >= kSystemCriticalPriority) {
        return "system-critical pod: priority " + std::to_string(priority) +
               " >= " + std::to_string(kSystemCriticalPriority) + of_class;
      }
      if (priority >= priority_threshold_) {
        std::string threshold = std::to_string(priority_threshold_);
        if (!cache_->threshold_class.empty()) {
          threshold += " (threshold priorityClass " + cache_->threshold_class + ")";
        }
        return "priority at or above threshold: " + std::to_string(priority) + " >= " + threshold +
               of_class;
      }
    }
    // 6. FailedBarePods: ownerless pods never go; disabling it lets Failed ones go.
    if (pod.owners.empty()) {
      if (protections.failed_bare) return std::string("no owner: bare pod");
      if (pod.phase != model::PodPhase::kFailed) {
        return "no owner: bare pod in phase " + std::string(model::to_string(pod.phase)) +
               " (only Failed bare pods may be evicted)";
      }
    }
    // 7.
    if (protections.local_storage) {
      for (const model::Volume& volume : pod.volumes) {
        if (volume.kind == model::kVolumeEmptyDir) {
          return "local storage: emptyDir volume " + volume.name;
        }
        if (volume.kind == model::kVolumeHostPath) {
          return "local storage: hostPath volume " + volume.name;
        }
      }
    }
    // 8.
    if (protections.daemon_set) {
      for (const model::OwnerReference& owner : pod.owners) {
        if (owner.kind == "DaemonSet") {
          return "DaemonSet pod: owned by DaemonSet " + pod.meta.namespace_ + "/" + owner.name;
        }
      }
    }
    // 9. The snapshot holds no PVC objects, so with protectedStorageClasses a claim's class is
    // unknown, which upstream treats as protected.
    if (protections.with_pvc) {
      for (const model::Volume& volume : pod.volumes) {
        if (volume.kind != model::kVolumePersistentClaim) continue;
        std::string reason = "PVC pod: claim " + volume.claim_name;
        if (!protections.protected_storage_classes.empty()) {
          reason += " (its storage class is unknown: the snapshot holds no PersistentVolumeClaims)";
        }
        return reason;
      }
    }
    // 10.
    if (protections.without_pdb) {
      bool covered = false;
      if (auto it = cache_->pdbs.find(pod.meta.namespace_); it != cache_->pdbs.end()) {
        for (const model::PodDisruptionBudget* pdb : it->second) {
          if (pdb->selector && model::matches(*pdb->selector, pod.meta.labels)) {
            covered = true;
            break;
          }
        }
      }
      if (!covered) {
        return "no PodDisruptionBudget: none in namespace " + pod.meta.namespace_ +
               " selects the pod";
      }
    }
    // 10b. PodsWithResourceClaims (extra protection).
    if (protections.with_resource_claims && pod.has_resource_claims) {
      return std::string("resource claims: the pod has spec.resourceClaims");
    }
    // 11.
    if (args_.label_selector && !model::matches(*args_.label_selector, pod.meta.labels)) {
      return std::string(
          "label selector does not match: the pod's labels are not selected by "
          "DefaultEvictor labelSelector");
    }
    // 12. Pods with exactly one owner; upstream counts every pod of that owner.
    if (args_.min_replicas > 1 && pod.owners.size() == 1) {
      const model::OwnerReference& owner = pod.owners[0];
      auto it = cache_->pods_per_owner.find(owner_key(pod, owner));
      uint32_t count = it == cache_->pods_per_owner.end() ? 0 : it->second;
      if (count < args_.min_replicas) {
        return "minReplicas: owner " + owner.kind + " " + owner.name + " has " +
               std::to_string(count) + " < " + std::to_string(args_.min_replicas);
      }
    }
    // 13. Age since status.startTime, as upstream; a pod without one has not started.
    if (args_.min_pod_age) {
      if (pod.start_time.empty()) {
        return "younger than minPodAge: no status.startTime (the pod has not started)";
      }
      std::optional<std::chrono::system_clock::time_point> started =
          model::parse_rfc3339(pod.start_time);
      if (!started) {
        return "unreadable start time: status.startTime \"" + pod.start_time +
               "\" is not an RFC 3339 time";
      }
      auto age = std::chrono::duration_cast<std::chrono::milliseconds>(now_ - *started);
      if (age.count() < args_.min_pod_age->milliseconds) {
        return "younger than minPodAge: " + format_age(age) + " < " + args_.min_pod_age->text;
      }
    }
  }

  // 14. namespaceLabelSelector, against the Namespace's labels; without Namespaces in the
  // snapshot, against the one label every namespace has.
  const bool namespace_selected_all =
      args_.namespace_label_selector && args_.namespace_label_selector->match_labels.empty() &&
      args_.namespace_label_selector->match_expressions.empty();  // {}: no constraint (upstream)
  if (namespace_selected_all) {
    // nothing to check
  } else if (args_.namespace_label_selector && !index_.snapshot().namespaces.empty()) {
    auto ns = cache_->namespace_labels.find(pod.meta.namespace_);
    if (ns == cache_->namespace_labels.end()) {
      return "namespace labels unknown: namespace " + pod.meta.namespace_ +
             " is not among the snapshot's Namespaces";
    }
    if (!model::matches(*args_.namespace_label_selector, *ns->second)) {
      return "namespace not selected: namespace " + pod.meta.namespace_ +
             " does not match namespaceLabelSelector";
    }
  } else if (args_.namespace_label_selector) {
    if (cache_->namespace_labels_unknown) {
      return "namespace labels unknown: namespaceLabelSelector needs labels of namespace " +
             pod.meta.namespace_ + " other than " + std::string(kNamespaceNameLabel) +
             ", and the snapshot holds no Namespace objects";
    }
    model::StringMap labels({{std::string(kNamespaceNameLabel), pod.meta.namespace_}});
    if (!model::matches(*args_.namespace_label_selector, labels)) {
      return "namespace not selected: namespace " + pod.meta.namespace_ +
             " does not match namespaceLabelSelector";
    }
  }

  // 15. Only for a pod that would be placed again: a finished one goes without a target.
  if (const std::optional<std::string>& unmovable = index_.unmovable_reason(id);
      unmovable && !pod.terminated()) {
    return "unmovable: " + *unmovable;
  }

  // 16. Volcano.
  if (const std::string* value = preemptable_value(pod.meta); value && preemptable_false(*value)) {
    return "not preemptable: " + preemptable_detail(*value, "the pod");
  }
  if (placement::JobId job_id = index_.gangs().job_of(id); job_id != placement::kNoJob) {
    const placement::GangJob& job = index_.gangs().job(job_id);
    if (job.pod_group != nullptr) {
      const std::string* value = preemptable_value(job.pod_group->meta);
      if (value && preemptable_false(*value)) {
        return "not preemptable: " +
               preemptable_detail(*value, "PodGroup " + job.pod_group->meta.namespace_ + "/" +
                                              job.pod_group->meta.name);
      }
    }
    if (job.job != nullptr && switches.respect_restart_policies && !switches.evict_gang_pods) {
      std::optional<std::string> rule = restart_on_eviction(job.job->policies, "policy");
      if (!rule) rule = restart_on_eviction(job.job->task_policies, "task policy");
      if (rule) {
        return "Volcano job restarts on eviction: job " + job.job->meta.namespace_ + "/" +
               job.job->meta.name + " " + *rule + " (" +
               switch_hint(switches, "gang.evictGangPods", "Volcano jobs that restart") + ")";
      }
    }
  }

  // 17. GPU pods.
  if (!switches.evict_gpu_pods) {
    for (const auto& [resource, amount] : index_.requests(id).scalars()) {
      if (amount > 0 && is_gpu_resource(resource, switches.gpu_vendor_prefixes)) {
        return "GPU pod: requests " + resource + " (" +
               switch_hint(switches, "gpu.evictGpuPods", "GPU pods") + ")";
      }
    }
    const placement::GpuIndex& gpus = index_.gpus();
    if (id < gpus.pod_count() && gpus.pod(id).kind != placement::GpuDemandKind::kNone) {
      const placement::PodGpuDemand& demand = gpus.pod(id);
      std::string what = demand.resources.empty() ? std::string(placement::to_string(demand.kind))
                                                  : demand.resources.front().first;
      return "GPU pod: requests " + what + " (" +
             switch_hint(switches, "gpu.evictGpuPods", "GPU pods") + ")";
    }
  }
  return std::nullopt;
}

}  // namespace loadshift::strategies

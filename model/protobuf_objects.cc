// Pod and Node messages into the model. Mirrors the JSON readers field for field
// (model/kube_json_kinds.h, kube_json_fields.h, kube_json_pod_status.h); where the encodings
// differ, the difference is named:
// - Go writes every string field, empty ones too: an empty string counts as absent, as an omitted
//   JSON member does. Pointer fields (priority, tolerationSeconds, labelSelector, the required
//   node affinity, a terminated state) are written only when set: their presence is the JSON's
//   non-null.
// - metav1.Time is seconds since the epoch; zero (an empty message) is Go's zero time, which JSON
//   writes as null.
#include "model/protobuf_objects.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <utility>

#include "model/kube_names.h"
#include "model/quantity.h"
#include "model/value_pool.h"

namespace loadshift::model::pb {

std::string Failure::path() const {
  std::string path;
  for (auto it = reversed_path_.rbegin(); it != reversed_path_.rend(); ++it) {
    if (!path.empty() && (*it)[0] != '[') path += '.';
    path += *it;
  }
  return path;
}

namespace {

// "2026-11-22T04:00:00Z", as the API server writes a metav1.Time in JSON; empty for Go's zero
// time (JSON null).
std::string time_text(const meta::Time& time) {
  if (time.seconds() == 0 && time.nanos() == 0) return "";
  using namespace std::chrono;
  sys_seconds at{seconds(time.seconds())};
  sys_days day = floor<days>(at);
  year_month_day date{day};
  hh_mm_ss clock{at - day};
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02lld:%02lld:%02lldZ",
                static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                static_cast<unsigned>(date.day()), static_cast<long long>(clock.hours().count()),
                static_cast<long long>(clock.minutes().count()),
                static_cast<long long>(clock.seconds().count()));
  return text;
}

// An enum by name: "" leaves `out` empty; another name is an error.
template <typename Enum, size_t N>
bool read_enum(const std::string& text, const EnumNames<Enum, N>& names, std::optional<Enum>& out,
               Failure& failure) {
  out.reset();
  if (text.empty()) return true;
  out = find_enum(names, text);
  if (out) return true;
  return failure.wrong("expected " + one_of(names) + ", found " + quoted(text));
}

// A required enum: absent or empty is an error at `field`.
template <typename Enum, size_t N>
bool read_required_enum(std::string_view field, const std::string& text,
                        const EnumNames<Enum, N>& names, Enum& out, Failure& failure) {
  std::optional<Enum> value;
  if (!read_enum(text, names, value, failure)) return failure.in_field(field);
  if (!value) {
    failure.wrong("expected " + one_of(names) + ", found nothing");
    return failure.in_field(field);
  }
  out = *value;
  return true;
}

template <typename Map>
StringMap string_map(const Map& map, std::string_view dropped_key = {}) {
  std::vector<std::pair<std::string, std::string>> pairs;
  pairs.reserve(map.size());
  for (const auto& [key, value] : map) {
    if (!dropped_key.empty() && key == dropped_key) continue;
    pairs.emplace_back(key, value);
  }
  return StringMap(std::move(pairs));
}

// A ResourceList; the name of every entry read is appended to `names` when given.
template <typename Map>
bool read_resource_list(const Map& map, ResourceList& out, Failure& failure,
                        std::vector<std::string>* names = nullptr) {
  for (const auto& [resource, quantity] : map) {
    QuantityResult amount = parse_resource_quantity(resource, quantity.string());
    if (!amount.ok) {
      failure.wrong(amount.error);
      return failure.in_field(resource);
    }
    out.set(resource, amount.value);
    if (names != nullptr) names->push_back(resource);
  }
  return true;
}

// Calls read(element, out) for each element of `list`, appending to `out`; a failure names the
// element and then `field`.
template <typename List, typename Out, typename Read>
bool read_list(std::string_view field, const List& list, std::vector<Out>& out, Failure& failure,
               Read&& read) {
  out.reserve(out.size() + static_cast<size_t>(list.size()));
  for (int i = 0; i < list.size(); ++i) {
    if (!read(list.Get(i), out.emplace_back())) {
      failure.in_element(static_cast<size_t>(i));
      return failure.in_field(field);
    }
  }
  return true;
}

template <typename List>
std::vector<std::string> strings(const List& list) {
  return std::vector<std::string>(list.begin(), list.end());
}

bool read_object_meta(const meta::ObjectMeta& message, bool namespaced, ObjectMeta& meta,
                      std::vector<OwnerReference>* owners, Failure& failure) {
  meta.name = message.name();
  meta.namespace_ = message.namespace_();
  meta.uid = message.uid();
  meta.resource_version = message.resourceversion();
  meta.labels = string_map(message.labels());
  meta.annotations = string_map(message.annotations(), kLastAppliedAnnotation);
  if (message.has_creationtimestamp())
    meta.creation_timestamp = time_text(message.creationtimestamp());
  meta.deleting = message.has_deletiontimestamp();
  if (owners != nullptr) {
    owners->reserve(static_cast<size_t>(message.ownerreferences_size()));
    for (const meta::OwnerReference& owner : message.ownerreferences()) {
      owners->push_back(OwnerReference{owner.apiversion(), owner.kind(), owner.name(), owner.uid(),
                                       owner.controller()});
    }
  }
  if (meta.name.empty()) {
    failure.wrong("required field is missing");
    failure.in_field("name");
    return failure.in_field("metadata");
  }
  if (namespaced && meta.namespace_.empty()) meta.namespace_ = "default";
  return true;
}

bool read_label_selector(const meta::LabelSelector& message, LabelSelector& selector,
                         Failure& failure) {
  selector.match_labels = string_map(message.matchlabels());
  return read_list("matchExpressions", message.matchexpressions(), selector.match_expressions,
                   failure,
                   [&](const meta::LabelSelectorRequirement& item, LabelSelectorRequirement& out) {
                     out.key = item.key();
                     out.values = strings(item.values());
                     std::string_view op;
                     if (!read_required_enum("operator", item.operator_(), kLabelSelectorOperators,
                                             op, failure)) {
                       return false;
                     }
                     out.op = std::string(op);
                     return true;
                   });
}

// A pointer field: absent is an empty optional (JSON null), present a selector (maybe empty).
bool read_optional_label_selector(std::string_view field, bool present,
                                  const meta::LabelSelector& message,
                                  std::optional<LabelSelector>& out, Failure& failure) {
  out.reset();
  if (!present) return true;
  return read_label_selector(message, out.emplace(), failure) || failure.in_field(field);
}

bool read_node_selector_term(const core::NodeSelectorTerm& message, NodeSelectorTerm& term,
                             Failure& failure) {
  auto requirement = [&](const core::NodeSelectorRequirement& item, NodeSelectorRequirement& out) {
    out.key = item.key();
    out.values = strings(item.values());
    return read_required_enum("operator", item.operator_(), kNodeSelectorOperators, out.op,
                              failure);
  };
  return read_list("matchExpressions", message.matchexpressions(), term.match_expressions, failure,
                   requirement) &&
         read_list("matchFields", message.matchfields(), term.match_fields, failure, requirement);
}

bool read_node_affinity(const core::NodeAffinity& message, NodeAffinity& affinity,
                        Failure& failure) {
  if (message.has_requiredduringschedulingignoredduringexecution()) {
    // Present: even without terms it constrains (an empty list matches no node).
    std::vector<NodeSelectorTerm>& terms = affinity.required.emplace();
    if (!read_list("nodeSelectorTerms",
                   message.requiredduringschedulingignoredduringexecution().nodeselectorterms(),
                   terms, failure, [&](const core::NodeSelectorTerm& item, NodeSelectorTerm& out) {
                     return read_node_selector_term(item, out, failure);
                   })) {
      return failure.in_field("requiredDuringSchedulingIgnoredDuringExecution");
    }
  }
  return read_list("preferredDuringSchedulingIgnoredDuringExecution",
                   message.preferredduringschedulingignoredduringexecution(), affinity.preferred,
                   failure,
                   [&](const core::PreferredSchedulingTerm& item, PreferredSchedulingTerm& out) {
                     out.weight = item.weight();
                     return read_node_selector_term(item.preference(), out.preference, failure) ||
                            failure.in_field("preference");
                   });
}

bool read_pod_affinity_term(const core::PodAffinityTerm& message, PodAffinityTerm& term,
                            Failure& failure) {
  term.namespaces = strings(message.namespaces());
  term.topology_key = message.topologykey();
  return read_optional_label_selector("labelSelector", message.has_labelselector(),
                                      message.labelselector(), term.label_selector, failure) &&
         read_optional_label_selector("namespaceSelector", message.has_namespaceselector(),
                                      message.namespaceselector(), term.namespace_selector,
                                      failure);
}

template <typename Terms>
bool read_inter_pod_terms(const Terms& message, InterPodTerms& terms, Failure& failure) {
  return read_list("requiredDuringSchedulingIgnoredDuringExecution",
                   message.requiredduringschedulingignoredduringexecution(), terms.required,
                   failure,
                   [&](const core::PodAffinityTerm& item, PodAffinityTerm& out) {
                     return read_pod_affinity_term(item, out, failure);
                   }) &&
         read_list("preferredDuringSchedulingIgnoredDuringExecution",
                   message.preferredduringschedulingignoredduringexecution(), terms.preferred,
                   failure,
                   [&](const core::WeightedPodAffinityTerm& item, WeightedPodAffinityTerm& out) {
                     out.weight = item.weight();
                     return read_pod_affinity_term(item.podaffinityterm(), out.term, failure) ||
                            failure.in_field("podAffinityTerm");
                   });
}

bool read_affinity(const core::Affinity& message, Pod& pod, Failure& failure) {
  if (message.has_nodeaffinity() &&
      !read_node_affinity(message.nodeaffinity(), pod.node_affinity.edit(), failure)) {
    return failure.in_field("nodeAffinity");
  }
  if (!read_inter_pod_terms(message.podaffinity(), pod.pod_affinity, failure)) {
    return failure.in_field("podAffinity");
  }
  if (!read_inter_pod_terms(message.podantiaffinity(), pod.pod_anti_affinity, failure)) {
    return failure.in_field("podAntiAffinity");
  }
  return true;
}

bool read_toleration(const core::Toleration& message, Toleration& toleration, Failure& failure) {
  toleration.key = message.key();
  toleration.value = message.value();
  std::optional<TolerationOperator> op;
  if (!read_enum(message.operator_(), kTolerationOperators, op, failure)) {
    return failure.in_field("operator");
  }
  toleration.op = op.value_or(TolerationOperator::kEqual);
  if (!read_enum(message.effect(), kTaintEffects, toleration.effect, failure)) {
    return failure.in_field("effect");
  }
  if (message.has_tolerationseconds()) toleration.toleration_seconds = message.tolerationseconds();
  return true;
}

// One of spec.topologySpreadConstraints; absent optional fields keep the scheduler's defaults.
bool read_topology_spread(const core::TopologySpreadConstraint& message,
                          TopologySpreadConstraint& c, Failure& failure) {
  c.max_skew = message.maxskew();
  c.topology_key = message.topologykey();
  if (!read_optional_label_selector("labelSelector", message.has_labelselector(),
                                    message.labelselector(), c.label_selector, failure)) {
    return false;
  }
  if (message.has_mindomains()) c.min_domains = message.mindomains();
  std::optional<InclusionPolicy> policy;
  if (!read_enum(message.nodeaffinitypolicy(), kInclusionPolicies, policy, failure)) {
    return failure.in_field("nodeAffinityPolicy");
  }
  if (policy) c.node_affinity_policy = *policy;
  if (!read_enum(message.nodetaintspolicy(), kInclusionPolicies, policy, failure)) {
    return failure.in_field("nodeTaintsPolicy");
  }
  if (policy) c.node_taints_policy = *policy;
  c.match_label_keys = strings(message.matchlabelkeys());
  return read_required_enum("whenUnsatisfiable", message.whenunsatisfiable(), kUnsatisfiableActions,
                            c.when_unsatisfiable, failure);
}

// Host ports count only from regular containers and restartable init containers (sidecars); a
// resource with a limit and no request gets the limit as its request (SetDefaults_Pod).
bool read_container(const core::Container& message, bool init, Container& container, Pod& pod,
                    Failure& failure) {
  container.name = message.name();
  container.image = message.image();
  if (init) container.restart_always = message.restartpolicy() == "Always";
  std::vector<std::string> requested, limited;
  if (!read_resource_list(message.resources().requests(), container.requests, failure,
                          &requested)) {
    failure.in_field("requests");
    return failure.in_field("resources");
  }
  if (!read_resource_list(message.resources().limits(), container.limits, failure, &limited)) {
    failure.in_field("limits");
    return failure.in_field("resources");
  }
  if (!init || container.restart_always) {
    for (const core::ContainerPort& port : message.ports()) {
      if (port.hostport() > 0) pod.host_ports.push_back(port.hostport());
    }
  }
  for (const std::string& name : limited) {
    if (std::find(requested.begin(), requested.end(), name) == requested.end()) {
      container.requests.set(name, container.limits.get(name));
    }
  }
  return true;
}

void read_volume(const core::Volume& message, Volume& volume) {
  volume.name = message.name();
  const core::VolumeSource& source = message.volumesource();
  if (source.has_emptydir()) {
    volume.kind = kVolumeEmptyDir;
    volume.memory_medium = source.emptydir().medium() == "Memory";
  } else if (source.has_persistentvolumeclaim()) {
    volume.kind = kVolumePersistentClaim;
    volume.claim_name = source.persistentvolumeclaim().claimname();
  } else if (source.has_hostpath()) {
    volume.kind = kVolumeHostPath;
  } else if (source.has_ephemeral()) {
    volume.kind = kVolumeEphemeral;
  } else {
    volume.kind = kVolumeOther;
  }
}

bool read_pod_spec(const core::PodSpec& message, Pod& pod, Failure& failure) {
  auto container = [&](bool init) {
    return [&pod, &failure, init](const core::Container& item, Container& out) {
      return read_container(item, init, out, pod, failure);
    };
  };
  if (!read_list("initContainers", message.initcontainers(), pod.init_containers, failure,
                 container(true)) ||
      !read_list("containers", message.containers(), pod.containers.edit(), failure,
                 container(false))) {
    return false;
  }
  pod.node_name = message.nodename();
  if (message.has_priority()) pod.priority = message.priority();
  pod.priority_class_name = message.priorityclassname();
  pod.scheduler_name = message.schedulername();
  pod.restart_policy = message.restartpolicy();
  if (!read_resource_list(message.overhead(), pod.overhead, failure)) {
    return failure.in_field("overhead");
  }
  pod.node_selector = string_map(message.nodeselector());
  if (message.has_affinity() && !read_affinity(message.affinity(), pod, failure)) {
    return failure.in_field("affinity");
  }
  if (!read_list("topologySpreadConstraints", message.topologyspreadconstraints(),
                 pod.topology_spread, failure,
                 [&](const core::TopologySpreadConstraint& item, TopologySpreadConstraint& out) {
                   return read_topology_spread(item, out, failure);
                 }) ||
      !read_list("tolerations", message.tolerations(), pod.tolerations.edit(), failure,
                 [&](const core::Toleration& item, Toleration& out) {
                   return read_toleration(item, out, failure);
                 })) {
    return false;
  }
  pod.volumes.reserve(static_cast<size_t>(message.volumes_size()));
  for (const core::Volume& volume : message.volumes())
    read_volume(volume, pod.volumes.emplace_back());
  pod.has_resource_claims = message.resourceclaims_size() > 0;
  return true;
}

template <typename List>
void read_container_statuses(const List& list, std::vector<ContainerStatus>& out) {
  out.reserve(static_cast<size_t>(list.size()));
  for (const core::ContainerStatus& message : list) {
    ContainerStatus& status = out.emplace_back();
    status.restart_count = message.restartcount();
    status.waiting_reason = message.state().waiting().reason();
    status.terminated = message.state().has_terminated();
    status.terminated_reason = message.state().terminated().reason();
    status.exit_code = message.state().terminated().exitcode();
  }
}

bool read_pod_status(const core::PodStatus& message, Pod& pod, Failure& failure) {
  std::optional<PodPhase> phase;
  if (!read_enum(message.phase(), kPodPhases, phase, failure)) return failure.in_field("phase");
  pod.phase = phase.value_or(PodPhase::kPending);
  pod.qos_class = message.qosclass();
  if (message.has_starttime()) pod.start_time = time_text(message.starttime());
  pod.reason = message.reason();
  read_container_statuses(message.containerstatuses(), pod.container_statuses);
  read_container_statuses(message.initcontainerstatuses(), pod.init_container_statuses);
  read_container_statuses(message.ephemeralcontainerstatuses(), pod.ephemeral_container_statuses);
  PodConditions conditions;
  for (const core::PodCondition& condition : message.conditions()) {
    std::optional<int64_t> last_transition;
    const meta::Time& time = condition.lasttransitiontime();
    if (time.seconds() != 0 || time.nanos() != 0) last_transition = time.seconds();
    conditions.add({condition.type(), condition.status(), condition.reason(), last_transition});
    if (condition.type() == "Ready") pod.ready = condition.status() == "True";
  }
  pod.conditions = conditions;  // the copy is exactly sized; the appends over-allocate
  return true;
}

}  // namespace

bool read_pod(const core::Pod& message, Pod& pod, Failure& failure) {
  if (!read_object_meta(message.metadata(), true, pod.meta, &pod.owners.edit(), failure)) {
    return false;
  }
  if (message.has_spec() && !read_pod_spec(message.spec(), pod, failure)) {
    return failure.in_field("spec");
  }
  if (message.has_status() && !read_pod_status(message.status(), pod, failure)) {
    return failure.in_field("status");
  }
  if (pod.scheduler_name.empty()) pod.scheduler_name = "default-scheduler";
  std::sort(pod.host_ports.begin(), pod.host_ports.end());
  share_alike(pod);
  return true;
}

bool read_node(const core::Node& message, Node& node, Failure& failure) {
  if (!read_object_meta(message.metadata(), false, node.meta, nullptr, failure)) return false;
  const core::NodeSpec& spec = message.spec();
  node.unschedulable = spec.unschedulable();
  if (!read_list(
          "taints", spec.taints(), node.taints, failure, [&](const core::Taint& item, Taint& out) {
            out.key = item.key();
            out.value = item.value();
            return read_required_enum("effect", item.effect(), kTaintEffects, out.effect, failure);
          })) {
    return failure.in_field("spec");
  }
  const core::NodeStatus& status = message.status();
  if (!read_resource_list(status.allocatable(), node.allocatable, failure)) {
    failure.in_field("allocatable");
    return failure.in_field("status");
  }
  if (!read_resource_list(status.capacity(), node.capacity, failure)) {
    failure.in_field("capacity");
    return failure.in_field("status");
  }
  node.conditions.reserve(static_cast<size_t>(status.conditions_size()));
  for (const core::NodeCondition& condition : status.conditions()) {
    node.conditions.push_back({condition.type(), condition.status(), condition.reason()});
  }
  node.addresses.reserve(static_cast<size_t>(status.addresses_size()));
  for (const core::NodeAddress& address : status.addresses()) {
    node.addresses.push_back({address.type(), address.address()});
  }
  return true;
}

}  // namespace loadshift::model::pb

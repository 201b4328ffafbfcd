// The cluster model: the compact form of the Kubernetes objects that planning reads.
//
// Objects are decoded from Kubernetes JSON (model/decode.h) into these plain structs. Only
// what placement and planning need is kept; managedFields, status noise and the
// last-applied-configuration annotation are dropped while decoding, so 150,000 pods fit in a few
// hundred MiB. Everything here is a value type; a Snapshot owns its objects and is immutable once
// built. Indexes over a Snapshot live in placement/cluster_index.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/object_list.h"
#include "model/pod_conditions.h"
#include "model/resources.h"
#include "model/shared_value.h"

namespace loadshift::model {

// Labels or annotations: (key, value) pairs sorted by key, keys unique.
class StringMap {
 public:
  StringMap() = default;
  // Takes pairs in any order; a later duplicate key replaces an earlier one.
  explicit StringMap(std::vector<std::pair<std::string, std::string>> pairs);

  // The value of `key`, or nullptr when absent. O(log n).
  const std::string* find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  // Inserts or replaces; keeps the map sorted.
  void set(std::string key, std::string value);

  const std::vector<std::pair<std::string, std::string>>& items() const { return *items_; }
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }

  // Equal when they hold the same pairs. Copies share their pairs (model/shared_value.h).
  friend bool operator==(const StringMap&, const StringMap&) = default;
  friend void share_alike(struct Pod& pod);  // model/value_pool.h pools a pod's labels

 private:
  Shared<std::vector<std::pair<std::string, std::string>>> items_;
};

struct ObjectMeta {
  std::string namespace_;  // empty for cluster-scoped objects
  std::string name;
  std::string uid;
  StringMap labels;
  StringMap annotations;           // without kubectl.kubernetes.io/last-applied-configuration
  std::string creation_timestamp;  // RFC 3339 as written by the API server; empty if absent
  std::string resource_version;    // metadata.resourceVersion; empty in files that omit it
  bool deleting = false;           // metadata.deletionTimestamp is set
  friend bool operator==(const ObjectMeta&, const ObjectMeta&) = default;
};

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  friend bool operator==(const OwnerReference&, const OwnerReference&) = default;
};

// ---- taints and tolerations -------------------------------------------------------------

enum class TaintEffect : uint8_t { kNoSchedule, kPreferNoSchedule, kNoExecute };
std::string_view to_string(TaintEffect effect);

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::kNoSchedule;
  friend bool operator==(const Taint&, const Taint&) = default;
};

enum class TolerationOperator : uint8_t { kEqual, kExists };

struct Toleration {
  std::string key;  // empty with kExists: tolerates every taint (of `effect`, if set)
  TolerationOperator op = TolerationOperator::kEqual;
  std::string value;
  std::optional<TaintEffect> effect;  // empty: every effect
  std::optional<int64_t> toleration_seconds;
  friend bool operator==(const Toleration&, const Toleration&) = default;
};

// ---- node selection ----------------------------------------------------------------------

enum class SelectorOperator : uint8_t { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };
std::string_view to_string(SelectorOperator op);

struct NodeSelectorRequirement {
  std::string key;
  SelectorOperator op = SelectorOperator::kIn;
  std::vector<std::string> values;
  friend bool operator==(const NodeSelectorRequirement&, const NodeSelectorRequirement&) = default;
};

// Expressions and fields are ANDed. A term with neither matches no node (as in the scheduler).
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;  // only key metadata.name is meaningful
  friend bool operator==(const NodeSelectorTerm&, const NodeSelectorTerm&) = default;
};

struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;
  friend bool operator==(const PreferredSchedulingTerm&, const PreferredSchedulingTerm&) = default;
};

struct NodeAffinity {
  // requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, ORed. Empty optional: no
  // requirement. An present-but-empty list matches nothing, as in the scheduler.
  std::optional<std::vector<NodeSelectorTerm>> required;
  std::vector<PreferredSchedulingTerm> preferred;
  friend bool operator==(const NodeAffinity&, const NodeAffinity&) = default;
};

struct LabelSelectorRequirement {
  std::string key;
  std::string op;  // In | NotIn | Exists | DoesNotExist
  std::vector<std::string> values;
  friend bool operator==(const LabelSelectorRequirement&,
                         const LabelSelectorRequirement&) = default;
};

// metav1.LabelSelector. Where null means "nothing", the model holds an std::optional.
struct LabelSelector {
  StringMap match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
  friend bool operator==(const LabelSelector&, const LabelSelector&) = default;
};
bool matches(const LabelSelector& selector, const StringMap& labels);

// One PodAffinityTerm of podAffinity or podAntiAffinity. matchLabelKeys and mismatchLabelKeys are
// not read: kube-apiserver merges them into labelSelector when it creates the pod.
struct PodAffinityTerm {
  // labelSelector; an empty optional (null) selects no pod, an empty selector every pod.
  std::optional<LabelSelector> label_selector;
  std::vector<std::string> namespaces;
  // namespaceSelector (by the Namespaces' labels, added to `namespaces`); null: `namespaces`, or
  // the pod's own namespace when that is empty too.
  std::optional<LabelSelector> namespace_selector;
  std::string topology_key;
  friend bool operator==(const PodAffinityTerm&, const PodAffinityTerm&) = default;
};

// preferredDuringSchedulingIgnoredDuringExecution[]: a term with its weight (1..100).
struct WeightedPodAffinityTerm {
  int32_t weight = 0;
  PodAffinityTerm term;
  friend bool operator==(const WeightedPodAffinityTerm&, const WeightedPodAffinityTerm&) = default;
};

// spec.affinity.podAffinity or spec.affinity.podAntiAffinity.
struct InterPodTerms {
  std::vector<PodAffinityTerm> required;  // requiredDuringSchedulingIgnoredDuringExecution
  std::vector<WeightedPodAffinityTerm> preferred;
  bool empty() const { return required.empty() && preferred.empty(); }
  friend bool operator==(const InterPodTerms&, const InterPodTerms&) = default;
};

enum class UnsatisfiableAction : uint8_t { kDoNotSchedule, kScheduleAnyway };
enum class InclusionPolicy : uint8_t { kHonor, kIgnore };

// One of spec.topologySpreadConstraints, with the scheduler's defaults for absent fields.
struct TopologySpreadConstraint {
  int32_t max_skew = 1;
  std::string topology_key;
  UnsatisfiableAction when_unsatisfiable = UnsatisfiableAction::kDoNotSchedule;
  std::optional<LabelSelector> label_selector;  // null selects no pod
  int32_t min_domains = 1;                      // absent: 1
  InclusionPolicy node_affinity_policy = InclusionPolicy::kHonor;
  InclusionPolicy node_taints_policy = InclusionPolicy::kIgnore;
  // matchLabelKeys: the scheduler adds key=value of the pod's own labels to the selector.
  std::vector<std::string> match_label_keys;
  friend bool operator==(const TopologySpreadConstraint&,
                         const TopologySpreadConstraint&) = default;
};

// ---- nodes ---------------------------------------------------------------------------------

struct NodeCondition {
  std::string type;
  std::string status;  // "True" | "False" | "Unknown"
  std::string reason;
  friend bool operator==(const NodeCondition&, const NodeCondition&) = default;
};

struct NodeAddress {
  std::string type;  // InternalIP, ExternalIP, Hostname, ...
  std::string address;
  friend bool operator==(const NodeAddress&, const NodeAddress&) = default;
};

struct Node {
  ObjectMeta meta;
  std::vector<Taint> taints;
  bool unschedulable = false;  // spec.unschedulable (cordoned)
  ResourceList allocatable;
  ResourceList capacity;
  std::vector<NodeCondition> conditions;
  std::vector<NodeAddress> addresses;

  const NodeCondition* condition(std::string_view type) const;
  // The first InternalIP address, or empty.
  std::string_view internal_ip() const;
  friend bool operator==(const Node&, const Node&) = default;
};

// ---- pods ----------------------------------------------------------------------------------

enum class PodPhase : uint8_t { kPending, kRunning, kSucceeded, kFailed, kUnknown };
std::string_view to_string(PodPhase phase);

struct Container {
  std::string name;
  std::string image;  // RemoveDuplicates tells copies of a workload by their images
  ResourceList requests;
  ResourceList limits;
  bool restart_always = false;  // init containers with restartPolicy Always (sidecars)
  friend bool operator==(const Container&, const Container&) = default;
};

// Kinds of volumes, as far as eviction rules care.
enum VolumeKind : uint8_t {
  kVolumeEmptyDir = 1 << 0,
  kVolumeHostPath = 1 << 1,
  kVolumePersistentClaim = 1 << 2,
  kVolumeEphemeral = 1 << 3,  // generic ephemeral volume (a PVC made per pod)
  kVolumeOther = 1 << 4,
};

struct Volume {
  std::string name;
  VolumeKind kind = kVolumeOther;
  std::string claim_name;      // persistentVolumeClaim.claimName
  bool memory_medium = false;  // emptyDir.medium == Memory
  friend bool operator==(const Volume&, const Volume&) = default;
};

// What the deschedule plugins read of one container's status (status.containerStatuses[],
// initContainerStatuses[] and ephemeralContainerStatuses[]): its restarts and its current state's
// reason. lastState is not read.
struct ContainerStatus {
  int32_t restart_count = 0;
  std::string waiting_reason;     // state.waiting.reason; empty when not waiting
  bool terminated = false;        // state.terminated is set
  std::string terminated_reason;  // state.terminated.reason
  int32_t exit_code = 0;          // state.terminated.exitCode (0 counts: "terminated" says so)
  friend bool operator==(const ContainerStatus&, const ContainerStatus&) = default;
};

// The labels, owners, containers, node affinity and tolerations of a pod are Shared: the pods of
// one workload hold one copy of each (model/value_pool.h). Read them as the values they wrap;
// write through edit().
struct Pod {
  ObjectMeta meta;
  Shared<std::vector<OwnerReference>> owners;
  std::string node_name;
  PodPhase phase = PodPhase::kPending;
  std::optional<int32_t> priority;  // spec.priority, filled by admission from the class
  std::string priority_class_name;
  std::string scheduler_name;  // "default-scheduler" when unset
  std::string qos_class;       // status.qosClass, may be empty
  Shared<std::vector<Container>> containers;
  std::vector<Container> init_containers;
  ResourceList overhead;
  StringMap node_selector;
  Shared<NodeAffinity> node_affinity;
  InterPodTerms pod_affinity;       // spec.affinity.podAffinity
  InterPodTerms pod_anti_affinity;  // spec.affinity.podAntiAffinity
  std::vector<TopologySpreadConstraint> topology_spread;  // spec.topologySpreadConstraints
  Shared<std::vector<Toleration>> tolerations;
  std::vector<Volume> volumes;
  std::vector<int32_t> host_ports;   // containers[].ports[].hostPort when set (TCP/UDP/SCTP mixed)
  bool has_resource_claims = false;  // spec.resourceClaims (DRA)
  std::string start_time;            // status.startTime
  // status.conditions Ready: "True" -> true, anything else -> false; empty without a Ready
  // condition (a pod not yet scheduled, or a hand-written snapshot).
  std::optional<bool> ready;
  std::string restart_policy;
  std::string reason;  // status.reason: Evicted, NodeAffinity, Shutdown, OutOfcpu, ...
  std::vector<ContainerStatus> container_statuses;
  std::vector<ContainerStatus> init_container_statuses;
  std::vector<ContainerStatus> ephemeral_container_statuses;
  PodConditions conditions;  // status.conditions, Ready included

  // The controller owner reference, or nullptr.
  const OwnerReference* controller() const;
  bool terminated() const { return phase == PodPhase::kSucceeded || phase == PodPhase::kFailed; }
  std::string key() const { return meta.namespace_ + "/" + meta.name; }
  friend bool operator==(const Pod&, const Pod&) = default;
};

// The requests the scheduler charges for a pod: for each resource,
// max(max over init containers (plus restartable sidecars before them), sum over containers plus
// sidecars) + overhead. Always includes one unit of `pods`.
ResourceList effective_requests(const Pod& pod);

// ---- other kinds -----------------------------------------------------------------------------

struct PriorityClass {
  std::string name;
  int32_t value = 0;
  bool global_default = false;
  std::string preemption_policy;
};

// An int or a percentage string, as in PDB minAvailable/maxUnavailable.
struct IntOrPercent {
  int32_t value = 0;
  bool percent = false;
};

struct PodDisruptionBudget {
  ObjectMeta meta;
  std::optional<LabelSelector> selector;  // empty optional: selects nothing
  std::optional<IntOrPercent> min_available;
  std::optional<IntOrPercent> max_unavailable;
  int32_t disruptions_allowed = 0;
  int32_t current_healthy = 0;
  int32_t desired_healthy = 0;
  int32_t expected_pods = 0;
};

// ---- Volcano -------------------------------------------------------------------------------

enum class HyperNodeMemberType : uint8_t { kNode, kHyperNode };

struct HyperNodeMember {
  HyperNodeMemberType type = HyperNodeMemberType::kNode;
  std::string exact_name;                    // selector.exactMatch.name
  std::string regex;                         // selector.regexMatch.pattern
  std::optional<LabelSelector> label_match;  // selector.labelMatch (type Node only)
};

struct HyperNode {
  ObjectMeta meta;
  int32_t tier = 0;
  std::string tier_name;
  std::vector<HyperNodeMember> members;
};

enum class TopologyMode : uint8_t { kHard, kSoft };

struct NetworkTopology {
  TopologyMode mode = TopologyMode::kHard;
  std::optional<int32_t> highest_tier_allowed;
  std::string highest_tier_name;
};

struct LifecyclePolicy {
  std::string event;  // e.g. PodEvicted, AnyEvent; may be empty when `events` is used
  std::vector<std::string> events;
  std::string action;  // e.g. RestartJob
};

// batch.volcano.sh/v1alpha1 Job (only the fields planning reads).
struct VolcanoJob {
  ObjectMeta meta;
  int32_t min_available = 0;
  std::optional<NetworkTopology> network_topology;
  std::vector<LifecyclePolicy> policies;       // job-level
  std::vector<LifecyclePolicy> task_policies;  // union of tasks[].policies
  std::string scheduler_name;
  std::string queue;
};

// scheduling.volcano.sh/v1beta1 PodGroup.
struct PodGroup {
  ObjectMeta meta;
  int32_t min_member = 0;
  std::optional<NetworkTopology> network_topology;
  std::string job_name;  // controller ownerReference of kind Job, when present
  std::string phase;
  int32_t running = 0;
};

// ---- storage ---------------------------------------------------------------------------------

// v1 PersistentVolumeClaim (the fields placement reads).
struct PersistentVolumeClaim {
  ObjectMeta meta;
  std::string volume_name;  // spec.volumeName: the bound PersistentVolume, empty when unbound
  std::string phase;        // status.phase: Pending | Bound | Lost
};

// v1 PersistentVolume (the fields placement reads).
struct PersistentVolume {
  ObjectMeta meta;
  // spec.nodeAffinity.required.nodeSelectorTerms, ORed: the nodes that can use the volume
  // (local volumes, zonal disks). Empty optional: any node.
  std::optional<std::vector<NodeSelectorTerm>> node_affinity;
  std::string csi_driver;         // spec.csi.driver; empty for other volume sources
  std::string csi_volume_handle;  // spec.csi.volumeHandle
};

struct CsiNodeDriver {
  std::string name;
  std::optional<int32_t> allocatable_count;  // allocatable.count: volumes the node can attach
};

// storage.k8s.io/v1 CSINode; named as its Node.
struct CsiNode {
  ObjectMeta meta;
  std::vector<CsiNodeDriver> drivers;
};

// v1 Namespace: its labels, which a pod affinity term's namespaceSelector selects by.
struct Namespace {
  ObjectMeta meta;
};

// Everything planning reads, as decoded. Indexes live in ClusterIndex. Pods, by far the most
// objects, are an ObjectList: a copy of a Snapshot shares them (the watch cache hands one out per
// cycle without copying 150,000 pods).
struct Snapshot {
  std::vector<Node> nodes;
  ObjectList<Pod> pods;
  std::vector<PriorityClass> priority_classes;
  std::vector<PodDisruptionBudget> pdbs;
  std::vector<HyperNode> hyper_nodes;
  std::vector<VolcanoJob> jobs;
  std::vector<PodGroup> pod_groups;
  std::vector<PersistentVolumeClaim> persistent_volume_claims;
  std::vector<PersistentVolume> persistent_volumes;
  std::vector<CsiNode> csi_nodes;
  // Empty when the snapshot has none (files without `kubectl get namespaces`): a namespaceSelector
  // cannot be evaluated then.
  std::vector<Namespace> namespaces;
};

}  // namespace loadshift::model

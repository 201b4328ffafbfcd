// Volumes that tie a pod to nodes, as kube-scheduler's VolumeBinding and NodeVolumeLimits (CSI)
// filters decide them, for the pod's persistentVolumeClaim volumes.
//
// Pod level (the pod is not moved, with a reason): a claim that is not in the snapshot or is being
// deleted, a claim not bound to a volume yet (WaitForFirstConsumer or pending provisioning: where
// it could be provisioned is not known to loadshift), a claim bound to a volume that is not in
// the snapshot. A claim is bound when spec.volumeName is set and the binding is complete: the
// pv.kubernetes.io/bind-completed annotation the PV controller sets, or status.phase Bound (what
// a hand-written manifest says).
// Node level: every bound volume's spec.nodeAffinity.required must match the node ("volume node
// affinity conflict"; evaluated on the node's labels only, as the scheduler does, so matchFields
// metadata.name never matches a name); a volume's zone and region labels
// (topology.kubernetes.io/zone|region and their failure-domain.beta.kubernetes.io forms; values
// may list several zones joined by "__") must hold on a node that has any of those labels
// (VolumeZone); and for each CSI driver, the node's attachable-volume
// limit (CSINode spec.drivers[].allocatable.count, else the node's allocatable
// attachable-volumes-csi-<driver>) must hold the volumes attached there by live pods and pods
// planned onto it plus the pod's new ones (a volume already attached there counts once).
//
// A pod with a generic ephemeral volume is not moved: the claim is made anew for the pod that
// replaces an evicted one, and where it can bind is not known. A claim counts as bound only with
// spec.volumeName and the pv.kubernetes.io/bind-completed annotation, as the scheduler's volume
// binder counts it. Built once per ClusterIndex; pods without claims cost one branch per check.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"
#include "placement/ledger.h"
#include "placement/verdict.h"

namespace loadshift::placement {

class VolumeIndex {
 public:
  VolumeIndex() = default;
  // `pods_on_node[n]`: the live pods bound to node n. `snapshot` must outlive this object.
  VolumeIndex(const model::Snapshot& snapshot, const std::vector<std::vector<PodId>>& pods_on_node);

  // Why the pod's claims keep it where it is, or empty.
  const std::optional<std::string>& unmovable_reason(PodId pod) const;

  // Volume node affinity and CSI attach limits of `pod` on `node`, with what `ledger` planned
  // onto the node. Appends a reason per failure when `out` is not null.
  bool check(PodId pod, NodeId node, const Ledger& ledger, Reasons* out) const;

 private:
  struct PinnedVolume {
    const model::PersistentVolume* volume;
    std::string claim;  // "namespace/name", for reasons
  };
  struct ZoneConstraint {
    const model::PersistentVolume* volume;
    const std::string* key;           // one of the topology labels
    std::vector<std::string> values;  // the label's value split at "__"
  };
  struct PodVolumes {
    std::optional<std::string> unmovable;
    std::vector<PinnedVolume> pinned;      // bound volumes with node affinity
    std::vector<ZoneConstraint> zones;     // bound volumes' zone and region labels
    std::vector<std::string> csi_drivers;  // per CSI volume: its driver
    std::vector<std::string> csi_volumes;  // per CSI volume: "driver/handle", unique
  };
  static constexpr uint32_t kNoVolumes = UINT32_MAX;

  const PodVolumes* volumes_of(PodId pod) const {
    uint32_t entry = entry_of_pod_.empty() ? kNoVolumes : entry_of_pod_[pod];
    return entry == kNoVolumes ? nullptr : &entries_[entry];
  }
  bool check_zones(const PodVolumes& volumes, const model::Node& node, Reasons* out) const;
  bool check_csi_limits(const PodVolumes& volumes, NodeId node, const Ledger& ledger,
                        Reasons* out) const;
  std::optional<int64_t> csi_limit(const std::string& driver, NodeId node) const;

  const model::Snapshot* snapshot_ = nullptr;
  std::vector<uint32_t> entry_of_pod_;
  std::vector<PodVolumes> entries_;
  std::vector<const model::CsiNode*> csi_node_of_node_;
  std::vector<std::vector<std::string>> attached_;  // per node: sorted unique "driver/handle"
};

}  // namespace loadshift::placement

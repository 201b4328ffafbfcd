#include "placement/volume_index.h"

#include <algorithm>
#include <unordered_map>

#include "placement/node_selector_parsing.h"
#include "placement/predicates.h"

namespace loadshift::placement {
namespace {

std::string namespaced(const std::string& ns, const std::string& name) {
  return ns + "/" + name;
}

constexpr std::string_view kBindCompleted = "pv.kubernetes.io/bind-completed";

// The labels VolumeZone reads, on volumes and on nodes.
const std::string kTopologyLabels[] = {
    "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
    "topology.kubernetes.io/zone", "topology.kubernetes.io/region"};

// "a__b" -> {"a", "b"}, as LabelZonesToSet splits a multi-zone value.
std::vector<std::string> split_zones(const std::string& value) {
  std::vector<std::string> zones;
  size_t start = 0;
  while (true) {
    size_t end = value.find("__", start);
    zones.push_back(
        value.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return zones;
    start = end + 2;
  }
}

// A PersistentVolume node-affinity term, evaluated as the scheduler's CheckNodeAffinity does: on
// a node that has the real node's labels and no name.
bool volume_term_matches(const model::NodeSelectorTerm& term, const model::StringMap& labels) {
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  for (const model::NodeSelectorRequirement& r : term.match_expressions) {
    if (!requirement_matches(r, labels)) return false;
  }
  for (const model::NodeSelectorRequirement& r : term.match_fields) {
    // The scheduler's node here has no name: metadata.name is "".
    if (r.key != "metadata.name" || !field_requirement_parses(r)) return false;
    bool listed = r.values[0].empty();
    if ((r.op == model::SelectorOperator::kIn) != listed) return false;
  }
  return true;
}

std::string describe_terms(const std::vector<model::NodeSelectorTerm>& terms) {
  if (terms.empty()) return "no terms (matches no node)";
  std::string text;
  for (size_t t = 0; t < terms.size(); ++t) {
    if (t > 0) text += " or ";
    std::string term_text;
    auto add = [&](const model::NodeSelectorRequirement& r, const char* prefix) {
      term_text += (term_text.empty() ? "" : ", ") + std::string(prefix) + r.key + " " +
                   std::string(to_string(r.op));
      if (r.values.empty()) return;
      term_text += " [";
      for (size_t i = 0; i < r.values.size(); ++i) term_text += (i ? ", " : "") + r.values[i];
      term_text += "]";
    };
    for (const auto& r : terms[t].match_expressions) add(r, "");
    for (const auto& r : terms[t].match_fields) add(r, "field ");
    text += "{" + term_text + "}";
  }
  return text;
}

// `name` == prefix + driver, compared without building the string.
bool names_driver_key(std::string_view name, std::string_view prefix, std::string_view driver) {
  return name.size() == prefix.size() + driver.size() && name.substr(0, prefix.size()) == prefix &&
         name.substr(prefix.size()) == driver;
}

// `volume` ("driver/handle") belongs to `driver`.
bool of_driver(std::string_view volume, std::string_view driver) {
  return volume.size() > driver.size() && volume.substr(0, driver.size()) == driver &&
         volume[driver.size()] == '/';
}

}  // namespace

VolumeIndex::VolumeIndex(const model::Snapshot& snapshot,
                         const std::vector<std::vector<PodId>>& pods_on_node)
    : snapshot_(&snapshot) {
  std::unordered_map<std::string, const model::PersistentVolumeClaim*> claims;
  for (const model::PersistentVolumeClaim& claim : snapshot.persistent_volume_claims) {
    claims.emplace(namespaced(claim.meta.namespace_, claim.meta.name), &claim);
  }
  std::unordered_map<std::string_view, const model::PersistentVolume*> volumes;
  for (const model::PersistentVolume& volume : snapshot.persistent_volumes) {
    volumes.emplace(volume.meta.name, &volume);
  }

  entry_of_pod_.assign(snapshot.pods.size(), kNoVolumes);
  for (PodId id = 0; id < snapshot.pods.size(); ++id) {
    const model::Pod& pod = snapshot.pods[id];
    PodVolumes entry;
    bool has_claims = false;
    for (const model::Volume& volume : pod.volumes) {
      if (volume.kind == model::kVolumeEphemeral) {
        // The replacement pod gets a new claim, bound or provisioned as its storage class says:
        // where the scheduler could then put it is not known from the snapshot.
        if (!entry.unmovable) {
          entry.unmovable = "generic ephemeral volume " + volume.name +
                            ": the replacement pod gets a new claim whose binding is not known; "
                            "not moved";
        }
        // Its claim (named <pod>-<volume>) counts against the node's CSI attach limit, as the
        // scheduler counts it, while the pod runs there.
        auto claim = claims.find(namespaced(pod.meta.namespace_, pod.meta.name + "-" + volume.name));
        if (claim == claims.end() || claim->second->volume_name.empty()) continue;
        auto bound = volumes.find(claim->second->volume_name);
        if (bound == volumes.end()) continue;
        const model::PersistentVolume& pv = *bound->second;
        if (!pv.csi_driver.empty() && !pv.csi_volume_handle.empty()) {
          entry.csi_drivers.push_back(pv.csi_driver);
          entry.csi_volumes.push_back(pv.csi_driver + "/" + pv.csi_volume_handle);
        }
        continue;
      }
      if (volume.kind != model::kVolumePersistentClaim) continue;
      has_claims = true;
      std::string key = namespaced(pod.meta.namespace_, volume.claim_name);
      auto claim = claims.find(key);
      std::string_view why;
      if (claim == claims.end()) {
        why =
            " is not in the snapshot (snapshots need pv,pvc): where its volume can be used is "
            "not known";
      } else if (claim->second->meta.deleting) {
        why = " is being deleted";
      } else if (claim->second->volume_name.empty()) {
        why =
            " is not bound to a volume yet (WaitForFirstConsumer or pending provisioning): "
            "where it could be provisioned is not known";
      } else if (!claim->second->meta.annotations.contains(kBindCompleted)) {
        // The scheduler's volume binder counts a claim as bound only with both the volume name
        // and this annotation (which the volume controller sets when it binds).
        why =
            " names its volume but has no pv.kubernetes.io/bind-completed annotation: the "
            "scheduler does not count it as bound until it has";
      }
      if (!why.empty()) {
        if (!entry.unmovable) {
          entry.unmovable = "persistentvolumeclaim " + key + std::string(why) + "; not moved";
        }
        continue;
      }
      auto bound = volumes.find(claim->second->volume_name);
      if (bound == volumes.end()) {
        if (!entry.unmovable) {
          entry.unmovable = "persistentvolumeclaim " + key + " is bound to persistentvolume " +
                            claim->second->volume_name +
                            ", which is not in the snapshot; not moved";
        }
        continue;
      }
      const model::PersistentVolume& pv = *bound->second;
      if (pv.node_affinity) entry.pinned.push_back(PinnedVolume{&pv, key});
      for (const std::string& label : kTopologyLabels) {
        if (const std::string* value = pv.meta.labels.find(label)) {
          entry.zones.push_back(ZoneConstraint{&pv, &label, split_zones(*value)});
        }
      }
      if (!pv.csi_driver.empty() && !pv.csi_volume_handle.empty()) {
        std::string unique = pv.csi_driver + "/" + pv.csi_volume_handle;
        if (std::find(entry.csi_volumes.begin(), entry.csi_volumes.end(), unique) ==
            entry.csi_volumes.end()) {
          entry.csi_drivers.push_back(pv.csi_driver);
          entry.csi_volumes.push_back(std::move(unique));
        }
      }
    }
    if (!has_claims && !entry.unmovable) continue;
    entry_of_pod_[id] = static_cast<uint32_t>(entries_.size());
    entries_.push_back(std::move(entry));
  }

  std::unordered_map<std::string_view, const model::CsiNode*> csi_nodes;
  for (const model::CsiNode& csi_node : snapshot.csi_nodes)
    csi_nodes.emplace(csi_node.meta.name, &csi_node);
  csi_node_of_node_.assign(snapshot.nodes.size(), nullptr);
  attached_.resize(snapshot.nodes.size());
  for (NodeId node = 0; node < snapshot.nodes.size(); ++node) {
    auto csi_node = csi_nodes.find(snapshot.nodes[node].meta.name);
    if (csi_node != csi_nodes.end()) csi_node_of_node_[node] = csi_node->second;
    if (node >= pods_on_node.size()) continue;
    std::vector<std::string>& attached = attached_[node];
    for (PodId pod : pods_on_node[node]) {
      if (const PodVolumes* volumes = volumes_of(pod)) {
        attached.insert(attached.end(), volumes->csi_volumes.begin(), volumes->csi_volumes.end());
      }
    }
    std::sort(attached.begin(), attached.end());
    attached.erase(std::unique(attached.begin(), attached.end()), attached.end());
  }
}

const std::optional<std::string>& VolumeIndex::unmovable_reason(PodId pod) const {
  static const std::optional<std::string> kNone;
  const PodVolumes* volumes = volumes_of(pod);
  return volumes == nullptr ? kNone : volumes->unmovable;
}

bool VolumeIndex::check(PodId pod, NodeId node_id, const Ledger& ledger, Reasons* out) const {
  const PodVolumes* volumes = volumes_of(pod);
  if (volumes == nullptr) return true;
  const model::Node& node = snapshot_->nodes[node_id];
  bool ok = true;
  for (const PinnedVolume& pinned : volumes->pinned) {
    const auto& terms = *pinned.volume->node_affinity;
    bool matched =
        std::any_of(terms.begin(), terms.end(), [&](const model::NodeSelectorTerm& term) {
          return volume_term_matches(term, node.meta.labels);
        });
    if (matched) continue;
    ok = false;
    if (out == nullptr) return false;
    out->push_back(Rejection{Rule::kVolumeBinding,
                             "volume node affinity conflict: persistentvolume " +
                                 pinned.volume->meta.name + " (claim " + pinned.claim +
                                 ") allows only nodes matching " + describe_terms(terms)});
  }
  if (!volumes->zones.empty() && !check_zones(*volumes, node, out)) {
    ok = false;
    if (out == nullptr) return false;
  }
  if (volumes->csi_volumes.empty()) return ok;
  return check_csi_limits(*volumes, node_id, ledger, out) && ok;
}

bool VolumeIndex::check_zones(const PodVolumes& volumes, const model::Node& node,
                              Reasons* out) const {
  const model::StringMap& labels = node.meta.labels;
  bool node_has_zone =
      std::any_of(std::begin(kTopologyLabels), std::end(kTopologyLabels),
                  [&](const std::string& label) { return labels.contains(label); });
  if (!node_has_zone) return true;  // a node without zone labels takes any volume
  bool ok = true;
  for (const ZoneConstraint& zone : volumes.zones) {
    const std::string* have = labels.find(*zone.key);
    if (have != nullptr &&
        std::find(zone.values.begin(), zone.values.end(), *have) != zone.values.end()) {
      continue;
    }
    ok = false;
    if (out == nullptr) return false;
    out->push_back(Rejection{Rule::kVolumeZone,
                             "volume zone conflict: persistentvolume " + zone.volume->meta.name +
                                 " has " + *zone.key + "=" +
                                 *zone.volume->meta.labels.find(*zone.key) + ", node has " +
                                 (have ? *zone.key + "=" + *have : "no " + *zone.key + " label")});
  }
  return ok;
}

std::optional<int64_t> VolumeIndex::csi_limit(const std::string& driver, NodeId node) const {
  if (const model::CsiNode* csi_node = csi_node_of_node_[node]) {
    for (const model::CsiNodeDriver& d : csi_node->drivers) {
      if (d.name == driver && d.allocatable_count) return *d.allocatable_count;
    }
  }
  for (const auto& [name, amount] : snapshot_->nodes[node].allocatable.scalars()) {
    if (names_driver_key(name, "attachable-volumes-csi-", driver)) return amount;
  }
  return std::nullopt;
}

// Allocates nothing: the node's volumes are the sorted attached_[node] plus those of the pods
// planned onto it, each counted once.
bool VolumeIndex::check_csi_limits(const PodVolumes& volumes, NodeId node, const Ledger& ledger,
                                   Reasons* out) const {
  const std::vector<std::string>& attached = attached_[node];
  const std::vector<PodId>& incoming = ledger.incoming(node);
  auto attached_here = [&](const std::string& v) {
    return std::binary_search(attached.begin(), attached.end(), v);
  };
  // True when `v` comes with a pod planned onto the node before incoming[limit].
  auto brought_by_plan = [&](const std::string& v, size_t limit) {
    for (size_t i = 0; i < limit; ++i) {
      const PodVolumes* planned = volumes_of(incoming[i]);
      if (planned != nullptr && std::find(planned->csi_volumes.begin(), planned->csi_volumes.end(),
                                          v) != planned->csi_volumes.end()) {
        return true;
      }
    }
    return false;
  };
  bool ok = true;
  for (size_t d = 0; d < volumes.csi_drivers.size(); ++d) {
    const std::string& driver = volumes.csi_drivers[d];
    auto seen = volumes.csi_drivers.begin() + static_cast<std::ptrdiff_t>(d);
    if (std::find(volumes.csi_drivers.begin(), seen, driver) != seen) continue;
    std::optional<int64_t> limit = csi_limit(driver, node);
    if (!limit) continue;
    int64_t on_node = std::count_if(attached.begin(), attached.end(),
                                    [&](const std::string& v) { return of_driver(v, driver); });
    for (size_t i = 0; i < incoming.size(); ++i) {
      const PodVolumes* planned = volumes_of(incoming[i]);
      if (planned == nullptr) continue;
      for (const std::string& v : planned->csi_volumes) {
        if (of_driver(v, driver) && !attached_here(v) && !brought_by_plan(v, i)) ++on_node;
      }
    }
    int64_t added = 0;
    for (const std::string& v : volumes.csi_volumes) {
      if (of_driver(v, driver) && !attached_here(v) && !brought_by_plan(v, incoming.size())) {
        ++added;
      }
    }
    if (added == 0 || on_node + added <= *limit) continue;
    ok = false;
    if (out == nullptr) return false;
    out->push_back(Rejection{Rule::kVolumeLimits,
                             "CSI volume limit of " + driver + " exceeded: node has " +
                                 std::to_string(on_node) + " of " + std::to_string(*limit) +
                                 " attached, the pod adds " + std::to_string(added)});
  }
  return ok;
}

}  // namespace loadshift::placement

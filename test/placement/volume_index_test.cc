// Volumes that tie a pod to nodes: claims, bound volumes' node affinity, CSI attach limits
// (issue 10, case 2).
#include <catch2/catch.hpp>

#include "placement/cluster_index.h"
#include "placement/placer.h"
#include "test/model/builders.h"

using namespace loadshift::placement;

using namespace loadshift::testing;
using S = SelectorOperator;

namespace {

Pod with_claim(const std::string& name, const std::string& node, const std::string& claim) {
  Pod pod = make_pod(name, 100, 1 << 20, node);
  Volume volume;
  volume.name = "data";
  volume.kind = kVolumePersistentClaim;
  volume.claim_name = claim;
  pod.volumes.push_back(volume);
  return pod;
}

PersistentVolumeClaim claim(const std::string& name, const std::string& volume) {
  PersistentVolumeClaim pvc;
  pvc.meta.namespace_ = "default";
  pvc.meta.name = name;
  pvc.volume_name = volume;
  pvc.phase = volume.empty() ? "Pending" : "Bound";
  // The volume controller marks every binding it completes.
  if (!volume.empty()) pvc.meta.annotations.set("pv.kubernetes.io/bind-completed", "yes");
  return pvc;
}

PersistentVolume local_volume(const std::string& name, const std::string& host) {
  PersistentVolume pv;
  pv.meta.name = name;
  NodeSelectorTerm term;
  term.match_expressions = {req("kubernetes.io/hostname", S::kIn, {host})};
  pv.node_affinity = std::vector<NodeSelectorTerm>{term};
  return pv;
}

PersistentVolume csi_volume(const std::string& name, const std::string& handle) {
  PersistentVolume pv;
  pv.meta.name = name;
  pv.csi_driver = "ebs.csi.aws.com";
  pv.csi_volume_handle = handle;
  return pv;
}

CsiNode csi_node(const std::string& node, int32_t count) {
  CsiNode csi;
  csi.meta.name = node;
  csi.drivers.push_back(CsiNodeDriver{"ebs.csi.aws.com", count});
  return csi;
}

}  // namespace

TEST_CASE("claims without a known bound volume keep the pod where it is", "[predicates][volumes]") {
  Snapshot snapshot;
  snapshot.nodes = {make_node("home"), make_node("n1")};
  snapshot.pods = {
      with_claim("missing-claim", "home", "nope"),    with_claim("unbound", "home", "waiting"),
      with_claim("missing-volume", "home", "orphan"), with_claim("deleting", "home", "going"),
      with_claim("prebound", "home", "pre"),          with_claim("bound", "home", "ok"),
      with_claim("annotated", "home", "marked")};
  snapshot.persistent_volume_claims = {claim("waiting", ""),    claim("orphan", "pv-gone"),
                                       claim("going", "pv-ok"), claim("pre", "pv-ok"),
                                       claim("ok", "pv-ok"),    claim("marked", "pv-ok")};
  snapshot.persistent_volume_claims[2].meta.deleting = true;
  // volumeName set and even phase Bound, but no bind-completed annotation: the scheduler's volume
  // binder does not count it as bound (a hand-written manifest).
  snapshot.persistent_volume_claims[3].meta.annotations = {};
  snapshot.persistent_volume_claims[5].phase = "Pending";  // the annotation is what counts
  snapshot.persistent_volumes = {csi_volume("pv-ok", "vol-1")};
  ClusterIndex index(snapshot);
  Placer placer(index);
  Ledger ledger(snapshot.nodes.size());
  const char* expected[] = {"persistentvolumeclaim default/nope is not in the snapshot",
                            "persistentvolumeclaim default/waiting is not bound to a volume yet",
                            "bound to persistentvolume pv-gone, which is not in the snapshot",
                            "persistentvolumeclaim default/going is being deleted",
                            "persistentvolumeclaim default/pre names its volume but has no "
                            "pv.kubernetes.io/bind-completed annotation"};
  for (PodId pod = 0; pod < 5; ++pod) {
    INFO(snapshot.pods[pod].meta.name);
    REQUIRE(index.unmovable_reason(pod).has_value());
    CHECK_THAT(*index.unmovable_reason(pod), Catch::Contains(expected[pod]));
    CHECK_FALSE(placer.feasible(pod, 1, ledger));
  }
  for (PodId pod : {5, 6}) {
    CHECK_FALSE(index.unmovable_reason(pod).has_value());
    CHECK(placer.feasible(pod, 1, ledger));
  }
}

TEST_CASE("a generic ephemeral volume keeps the pod where it is", "[predicates][volumes]") {
  Snapshot snapshot;
  snapshot.nodes = {make_node("home"), make_node("n1")};
  Pod scratch = make_pod("scratch", 100, 1 << 20, "home");
  Volume volume;
  volume.name = "scratch-space";
  volume.kind = kVolumeEphemeral;
  scratch.volumes.push_back(volume);
  snapshot.pods = {scratch, make_pod("plain", 100, 1 << 20, "home")};
  ClusterIndex index(snapshot);
  Placer placer(index);
  Ledger ledger(snapshot.nodes.size());
  REQUIRE(index.unmovable_reason(0).has_value());
  CHECK_THAT(*index.unmovable_reason(0),
             Catch::Contains("generic ephemeral volume scratch-space: the replacement pod gets a "
                             "new claim"));
  CHECK_FALSE(placer.feasible(0, 1, ledger));
  CHECK_FALSE(index.unmovable_reason(1).has_value());  // the rule refuses only that pod
  CHECK(placer.feasible(1, 1, ledger));
}

TEST_CASE("a bound volume's zone labels keep the pod in its zones", "[predicates][volumes]") {
  Snapshot snapshot;
  snapshot.nodes = {make_node("home"), make_node("zone-a"), make_node("zone-b"),
                    make_node("zone-c"), make_node("no-zone")};
  snapshot.nodes[1].meta.labels.set("topology.kubernetes.io/zone", "a");
  snapshot.nodes[2].meta.labels.set("topology.kubernetes.io/zone", "b");
  snapshot.nodes[3].meta.labels.set("topology.kubernetes.io/zone", "c");
  snapshot.pods = {with_claim("web", "home", "data")};
  snapshot.persistent_volume_claims = {claim("data", "pv-ab")};
  PersistentVolume pv;
  pv.meta.name = "pv-ab";
  pv.meta.labels.set("topology.kubernetes.io/zone", "a__b");  // a multi-zone volume
  snapshot.persistent_volumes = {pv};
  ClusterIndex index(snapshot);
  Placer placer(index);
  Ledger ledger(snapshot.nodes.size());
  CHECK(placer.feasible(0, 1, ledger));
  CHECK(placer.feasible(0, 2, ledger));
  CHECK_FALSE(placer.feasible(0, 3, ledger));
  CHECK(placer.feasible(0, 4, ledger));  // a node without zone labels takes any volume
  Verdict verdict = placer.fits(0, 3, ledger);
  REQUIRE(verdict.failures.size() == 1);
  CHECK(verdict.failures[0].rule == Rule::kVolumeZone);
  CHECK(verdict.failures[0].reason ==
        "volume zone conflict: persistentvolume pv-ab has topology.kubernetes.io/zone=a__b, node "
        "has topology.kubernetes.io/zone=c");
}

TEST_CASE("a bound volume's node affinity pins the pod to the nodes it allows",
          "[predicates][volumes]") {
  Snapshot snapshot;
  snapshot.nodes = {make_node("home"), make_node("n1"), make_node("n2")};
  snapshot.pods = {with_claim("db", "home", "db-data")};
  snapshot.persistent_volume_claims = {claim("db-data", "pv-local")};
  PersistentVolume pv = local_volume("pv-local", "n2");
  NodeSelectorTerm by_name;  // evaluated on a nameless node, as the scheduler does: never matches
  by_name.match_fields = {req("metadata.name", S::kIn, {"n1"})};
  pv.node_affinity->push_back(by_name);
  snapshot.persistent_volumes = {pv};
  ClusterIndex index(snapshot);
  Placer placer(index);
  Ledger ledger(snapshot.nodes.size());
  CHECK(placer.feasible(0, 2, ledger));
  CHECK_FALSE(placer.feasible(0, 1, ledger));
  Verdict verdict = placer.fits(0, 1, ledger);
  REQUIRE(verdict.failures.size() == 1);
  CHECK(verdict.failures[0].rule == Rule::kVolumeBinding);
  CHECK_THAT(verdict.failures[0].reason,
             Catch::Contains("volume node affinity conflict: persistentvolume pv-local") &&
                 Catch::Contains("claim default/db-data") &&
                 Catch::Contains("kubernetes.io/hostname In [n2]"));
}

TEST_CASE("CSI attach limits count the node's volumes once each, planned moves included",
          "[predicates][volumes]") {
  Snapshot snapshot;
  snapshot.nodes = {make_node("home"), make_node("full"), make_node("shared"), make_node("room"),
                    make_node("no-csinode")};
  snapshot.pods = {with_claim("mover", "home", "c-new"), with_claim("a", "full", "c-1"),
                   with_claim("b", "shared", "c-new"), with_claim("c", "room", "c-1"),
                   with_claim("second", "home", "c-2")};
  snapshot.persistent_volume_claims = {claim("c-new", "pv-new"), claim("c-1", "pv-1"),
                                       claim("c-2", "pv-2")};
  snapshot.persistent_volumes = {csi_volume("pv-new", "vol-new"), csi_volume("pv-1", "vol-1"),
                                 csi_volume("pv-2", "vol-2")};
  snapshot.csi_nodes = {csi_node("full", 1), csi_node("shared", 1), csi_node("room", 2)};
  ClusterIndex index(snapshot);
  Placer placer(index);
  Ledger ledger(snapshot.nodes.size());
  const PodId kMover = 0, kSecond = 4;
  const NodeId kFull = 1, kShared = 2, kRoom = 3, kNoCsiNode = 4;
  CHECK_FALSE(placer.feasible(kMover, kFull, ledger));  // 1 of 1 attached
  CHECK(placer.feasible(kMover, kShared, ledger));      // its volume is already attached there
  CHECK(placer.feasible(kMover, kRoom, ledger));        // 1 of 2
  CHECK(placer.feasible(kMover, kNoCsiNode, ledger));   // no limit known
  Verdict verdict = placer.fits(kMover, kFull, ledger);
  REQUIRE(verdict.failures.size() == 1);
  CHECK(verdict.failures[0].rule == Rule::kVolumeLimits);
  CHECK(verdict.failures[0].reason ==
        "CSI volume limit of ebs.csi.aws.com exceeded: node has 1 of 1 attached, the pod adds 1");

  // Once the mover is planned onto "room", room's 2 slots are taken.
  REQUIRE(placer.feasible(kSecond, kRoom, ledger));
  ledger.reserve(kMover, 0, kRoom, index.requests(kMover));
  CHECK_FALSE(placer.feasible(kSecond, kRoom, ledger));
}

TEST_CASE("a running pod's generic ephemeral volume counts against its node's CSI limit",
          "[predicates][volumes]") {
  Snapshot snapshot;
  snapshot.nodes = {make_node("home"), make_node("busy"), make_node("free")};
  // "worker" runs on busy with an ephemeral volume whose claim worker-scratch is bound to a CSI
  // volume; busy and free can attach one CSI volume each.
  Pod worker = make_pod("worker", 100, 1 << 20, "busy");
  Volume scratch;
  scratch.name = "scratch";
  scratch.kind = kVolumeEphemeral;
  worker.volumes.push_back(scratch);
  snapshot.pods = {with_claim("mover", "home", "data"), worker};
  snapshot.persistent_volume_claims = {claim("data", "pv-data"),
                                       claim("worker-scratch", "pv-scratch")};
  snapshot.persistent_volumes = {csi_volume("pv-data", "vol-data"),
                                 csi_volume("pv-scratch", "vol-scratch")};
  snapshot.csi_nodes = {csi_node("busy", 1), csi_node("free", 1)};
  ClusterIndex index(snapshot);
  Placer placer(index);
  Ledger ledger(snapshot.nodes.size());
  CHECK_FALSE(placer.feasible(0, 1, ledger));  // busy: the ephemeral claim's volume is attached
  CHECK(placer.feasible(0, 2, ledger));         // free: nothing attached
  Verdict verdict = placer.fits(0, 1, ledger);
  REQUIRE(verdict.failures.size() == 1);
  CHECK(verdict.failures[0].rule == Rule::kVolumeLimits);
}

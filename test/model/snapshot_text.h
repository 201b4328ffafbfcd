// Every field of a Snapshot as text, one object per line: two snapshots are equal when their
// texts are, and a failing comparison shows where they differ.
#pragma once

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "model/model.h"

namespace loadshift::testing {

using namespace loadshift::model;

class SnapshotText {
 public:
  static std::string of(const Snapshot& snapshot) {
    SnapshotText text;
    for (const Node& node : snapshot.nodes) text.node(node);
    for (const Pod& pod : snapshot.pods) text.pod(pod);
    for (const PriorityClass& pc : snapshot.priority_classes) {
      text.out_ << "PriorityClass " << pc.name << " value=" << pc.value
                << " default=" << pc.global_default << " preemption=" << pc.preemption_policy
                << "\n";
    }
    for (const PodDisruptionBudget& pdb : snapshot.pdbs) text.pdb(pdb);
    for (const HyperNode& hyper_node : snapshot.hyper_nodes) text.hyper_node(hyper_node);
    for (const VolcanoJob& job : snapshot.jobs) text.job(job);
    for (const PodGroup& group : snapshot.pod_groups) text.pod_group(group);
    for (const PersistentVolumeClaim& claim : snapshot.persistent_volume_claims) {
      text.out_ << "PersistentVolumeClaim ";
      text.meta(claim.meta);
      text.out_ << " volume=" << claim.volume_name << " phase=" << claim.phase << "\n";
    }
    for (const PersistentVolume& volume : snapshot.persistent_volumes) text.volume(volume);
    for (const CsiNode& csi_node : snapshot.csi_nodes) {
      text.out_ << "CSINode ";
      text.meta(csi_node.meta);
      for (const CsiNodeDriver& d : csi_node.drivers) {
        text.out_ << " " << d.name << "="
                  << (d.allocatable_count ? std::to_string(*d.allocatable_count) : "-");
      }
      text.out_ << "\n";
    }
    return text.out_.str();
  }

 private:
  void meta(const ObjectMeta& meta) {
    out_ << meta.namespace_ << "/" << meta.name << " uid=" << meta.uid
         << " created=" << meta.creation_timestamp << " deleting=" << meta.deleting;
    map("labels", meta.labels);
    map("annotations", meta.annotations);
  }
  void map(const char* what, const StringMap& map) {
    out_ << " " << what << "={";
    for (const auto& [key, value] : map.items()) out_ << key << "=" << value << ",";
    out_ << "}";
  }
  void resources(const char* what, const ResourceList& list) {
    out_ << " " << what << "={cpu=" << list.cpu_milli << ",memory=" << list.memory
         << ",ephemeral=" << list.ephemeral_storage << ",pods=" << list.pods;
    for (const auto& [name, amount] : list.scalars()) out_ << "," << name << "=" << amount;
    out_ << "}";
  }
  void strings(const std::vector<std::string>& values) {
    out_ << "[";
    for (const std::string& value : values) out_ << value << ",";
    out_ << "]";
  }
  void requirements(const std::vector<NodeSelectorRequirement>& list) {
    for (const NodeSelectorRequirement& r : list) {
      out_ << r.key << " " << to_string(r.op) << " ";
      strings(r.values);
      out_ << ";";
    }
  }
  void term(const NodeSelectorTerm& term) {
    out_ << "{exprs=";
    requirements(term.match_expressions);
    out_ << " fields=";
    requirements(term.match_fields);
    out_ << "}";
  }
  void selector(const std::optional<LabelSelector>& selector) {
    if (!selector) {
      out_ << "none";
      return;
    }
    map("match", selector->match_labels);
    for (const LabelSelectorRequirement& r : selector->match_expressions) {
      out_ << " " << r.key << " " << r.op << " ";
      strings(r.values);
    }
  }
  void topology(const std::optional<NetworkTopology>& topology) {
    if (!topology) {
      out_ << " topology=none";
      return;
    }
    out_ << " topology=" << (topology->mode == TopologyMode::kHard ? "hard" : "soft") << "/"
         << (topology->highest_tier_allowed ? std::to_string(*topology->highest_tier_allowed)
                                            : std::string("-"))
         << "/" << topology->highest_tier_name;
  }
  void policies(const char* what, const std::vector<LifecyclePolicy>& list) {
    out_ << " " << what << "=";
    for (const LifecyclePolicy& p : list) {
      out_ << "{" << p.event << " ";
      strings(p.events);
      out_ << " " << p.action << "}";
    }
  }

  void node(const Node& node) {
    out_ << "Node ";
    meta(node.meta);
    out_ << " taints=";
    for (const Taint& t : node.taints)
      out_ << t.key << "=" << t.value << ":" << to_string(t.effect) << ";";
    out_ << " unschedulable=" << node.unschedulable;
    resources("allocatable", node.allocatable);
    resources("capacity", node.capacity);
    out_ << " conditions=";
    for (const NodeCondition& c : node.conditions)
      out_ << c.type << "=" << c.status << "(" << c.reason << ");";
    out_ << " addresses=";
    for (const NodeAddress& a : node.addresses) out_ << a.type << "=" << a.address << ";";
    out_ << "\n";
  }

  void container(const Container& c) {
    out_ << "{" << c.name;
    resources("requests", c.requests);
    resources("limits", c.limits);
    out_ << " always=" << c.restart_always << "}";
  }

  void pod(const Pod& pod) {
    out_ << "Pod ";
    meta(pod.meta);
    out_ << " owners=";
    for (const OwnerReference& o : pod.owners) {
      out_ << o.api_version << "/" << o.kind << "/" << o.name << "/" << o.uid << "/" << o.controller
           << ";";
    }
    out_ << " node=" << pod.node_name << " phase=" << to_string(pod.phase)
         << " priority=" << (pod.priority ? std::to_string(*pod.priority) : std::string("-"))
         << " class=" << pod.priority_class_name << " scheduler=" << pod.scheduler_name
         << " qos=" << pod.qos_class << " containers=";
    for (const Container& c : pod.containers) container(c);
    out_ << " init=";
    for (const Container& c : pod.init_containers) container(c);
    resources("overhead", pod.overhead);
    map("nodeSelector", pod.node_selector);
    out_ << " required=";
    if (pod.node_affinity->required) {
      for (const NodeSelectorTerm& t : *pod.node_affinity->required) term(t);
    } else {
      out_ << "none";
    }
    out_ << " preferred=";
    for (const PreferredSchedulingTerm& p : pod.node_affinity->preferred) {
      out_ << p.weight;
      term(p.preference);
    }
    auto affinity_term = [&](const PodAffinityTerm& t) {
      out_ << "{";
      selector(t.label_selector);
      out_ << " ns=";
      strings(t.namespaces);
      out_ << " nsSelector=";
      selector(t.namespace_selector);
      out_ << " key=" << t.topology_key << "}";
    };
    auto inter_pod = [&](const char* name, const InterPodTerms& terms) {
      out_ << " " << name << "=";
      for (const PodAffinityTerm& t : terms.required) affinity_term(t);
      out_ << "/";
      for (const WeightedPodAffinityTerm& t : terms.preferred) {
        out_ << t.weight;
        affinity_term(t.term);
      }
    };
    inter_pod("podAffinity", pod.pod_affinity);
    inter_pod("antiAffinity", pod.pod_anti_affinity);
    out_ << " spread=";
    for (const TopologySpreadConstraint& c : pod.topology_spread) {
      out_ << "{" << c.max_skew << " " << c.topology_key << " "
           << (c.when_unsatisfiable == UnsatisfiableAction::kDoNotSchedule ? "DoNotSchedule"
                                                                           : "ScheduleAnyway")
           << " ";
      selector(c.label_selector);
      out_ << " min=" << c.min_domains << " aff="
           << (c.node_affinity_policy == InclusionPolicy::kHonor ? "Honor" : "Ignore")
           << " taints=" << (c.node_taints_policy == InclusionPolicy::kHonor ? "Honor" : "Ignore")
           << " keys=";
      strings(c.match_label_keys);
      out_ << "}";
    }
    out_ << " tolerations=";
    for (const Toleration& t : pod.tolerations) {
      out_ << t.key << (t.op == TolerationOperator::kEqual ? "=" : "?") << t.value << ":"
           << (t.effect ? to_string(*t.effect) : "*") << ":"
           << (t.toleration_seconds ? std::to_string(*t.toleration_seconds) : std::string("-"))
           << ";";
    }
    out_ << " volumes=";
    for (const Volume& v : pod.volumes) {
      out_ << v.name << ":" << static_cast<int>(v.kind) << ":" << v.claim_name << ":"
           << v.memory_medium << ";";
    }
    out_ << " hostPorts=";
    for (int32_t port : pod.host_ports) out_ << port << ",";
    out_ << " claims=" << pod.has_resource_claims << " start=" << pod.start_time
         << " restart=" << pod.restart_policy << "\n";
  }

  void pdb(const PodDisruptionBudget& pdb) {
    out_ << "PDB ";
    meta(pdb.meta);
    out_ << " selector=";
    selector(pdb.selector);
    auto int_or_percent = [&](const std::optional<IntOrPercent>& v) {
      if (!v) return std::string("-");
      return std::to_string(v->value) + (v->percent ? "%" : "");
    };
    out_ << " min=" << int_or_percent(pdb.min_available)
         << " max=" << int_or_percent(pdb.max_unavailable) << " status=" << pdb.disruptions_allowed
         << "/" << pdb.current_healthy << "/" << pdb.desired_healthy << "/" << pdb.expected_pods
         << "\n";
  }

  void hyper_node(const HyperNode& hyper_node) {
    out_ << "HyperNode ";
    meta(hyper_node.meta);
    out_ << " tier=" << hyper_node.tier << " tierName=" << hyper_node.tier_name << " members=";
    for (const HyperNodeMember& m : hyper_node.members) {
      out_ << (m.type == HyperNodeMemberType::kNode ? "Node" : "HyperNode") << ":" << m.exact_name
           << ":" << m.regex << ":";
      if (m.label_match) selector(m.label_match);
      out_ << ";";
    }
    out_ << "\n";
  }

  void job(const VolcanoJob& job) {
    out_ << "Job ";
    meta(job.meta);
    out_ << " minAvailable=" << job.min_available;
    topology(job.network_topology);
    policies("policies", job.policies);
    policies("taskPolicies", job.task_policies);
    out_ << " scheduler=" << job.scheduler_name << " queue=" << job.queue << "\n";
  }

  void volume(const PersistentVolume& volume) {
    out_ << "PersistentVolume ";
    meta(volume.meta);
    out_ << " nodeAffinity=";
    if (volume.node_affinity) {
      for (const NodeSelectorTerm& t : *volume.node_affinity) term(t);
    } else {
      out_ << "none";
    }
    out_ << " csi=" << volume.csi_driver << "/" << volume.csi_volume_handle << "\n";
  }

  void pod_group(const PodGroup& group) {
    out_ << "PodGroup ";
    meta(group.meta);
    out_ << " minMember=" << group.min_member;
    topology(group.network_topology);
    out_ << " job=" << group.job_name << " phase=" << group.phase << " running=" << group.running
         << "\n";
  }

  std::ostringstream out_;
};

}  // namespace loadshift::testing

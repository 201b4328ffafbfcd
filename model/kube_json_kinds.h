// The fields of each kind the decoder reads (Node, Pod, PriorityClass, PodDisruptionBudget,
// HyperNode, Volcano Job, PodGroup), from simdjson On-Demand values. Each read_<kind>_field reads
// one top-level member other than kind, apiVersion and metadata; members not in the model are
// skipped unread. A Pod's status: kube_json_pod_status.h.
//
// Internal to model/object_decoder.cc, the one translation unit that includes <simdjson.h>.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/json_reading.h"
#include "model/kube_json_fields.h"
#include "model/kube_json_pod_status.h"
#include "model/model.h"
#include "model/pod_defaults.h"

namespace loadshift::model::json {

inline constexpr EnumNames<HyperNodeMemberType, 2> kMemberTypes{
    {{"Node", HyperNodeMemberType::kNode}, {"HyperNode", HyperNodeMemberType::kHyperNode}}};

inline constexpr EnumNames<TopologyMode, 2> kTopologyModes{
    {{"hard", TopologyMode::kHard}, {"soft", TopologyMode::kSoft}}};

// ---- Volcano network topology -------------------------------------------------------------------

inline bool read_network_topology(Decoding& d, od::value& value,
                                  std::optional<NetworkTopology>& out) {
  bool is_null = false;
  if (!check_null(d, value, is_null)) return false;
  out.reset();
  if (is_null) return true;
  NetworkTopology& topology = out.emplace();
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "mode") {
      std::optional<TopologyMode> mode;
      if (!read_enum(d, field, kTopologyModes, mode)) return false;
      topology.mode = mode.value_or(TopologyMode::kHard);
      return true;
    }
    if (key == "highestTierAllowed")
      return read_optional_int32(d, field, topology.highest_tier_allowed);
    if (key == "highestTierName") return read_string(d, field, topology.highest_tier_name);
    return true;
  });
}

// ---- Node ---------------------------------------------------------------------------------------

inline bool read_node_spec(Decoding& d, od::value& value, Node& node) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "unschedulable") return read_bool(d, field, node.unschedulable);
    if (key != "taints") return true;
    return visit_array(d, field, [&](od::value& element, size_t) {
      return read_taint(d, element, node.taints.emplace_back());
    });
  });
}

inline bool read_node_condition(Decoding& d, od::value& value, NodeCondition& condition) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "type") return read_string(d, field, condition.type);
    if (key == "status") return read_string(d, field, condition.status);
    if (key == "reason") return read_string(d, field, condition.reason);
    return true;
  });
}

inline bool read_node_address(Decoding& d, od::value& value, NodeAddress& address) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "type") return read_string(d, field, address.type);
    if (key == "address") return read_string(d, field, address.address);
    return true;
  });
}

inline bool read_node_status(Decoding& d, od::value& value, Node& node) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "allocatable") return read_resource_list(d, field, node.allocatable);
    if (key == "capacity") return read_resource_list(d, field, node.capacity);
    if (key == "conditions") {
      return visit_array(d, field, [&](od::value& element, size_t) {
        return read_node_condition(d, element, node.conditions.emplace_back());
      });
    }
    if (key == "addresses") {
      return visit_array(d, field, [&](od::value& element, size_t) {
        return read_node_address(d, element, node.addresses.emplace_back());
      });
    }
    return true;
  });
}

inline bool read_node_field(Decoding& d, std::string_view key, od::value& value, Node& node) {
  if (key == "spec") return read_node_spec(d, value, node);
  if (key == "status") return read_node_status(d, value, node);
  return true;
}

// ---- Pod ----------------------------------------------------------------------------------------

// The host ports, and the resources requested and limited, are kept aside until the container
// is read (the restartPolicy may come after the ports): complete_container (model/pod_defaults.h)
// applies the scheduler's reading and the API server's defaulting, so hand-written manifests
// behave as they would in the cluster.
inline bool read_container(Decoding& d, od::value& value, bool init, Container& container,
                           Pod& pod) {
  std::vector<int32_t> host_ports;
  std::vector<std::string> requested;  // names present in resources.requests
  std::vector<std::string> limited;    // names present in resources.limits
  bool ok = visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "name") return read_string(d, field, container.name);
    if (key == "image") return read_string(d, field, container.image);
    if (key == "resources") {
      return visit_fields(d, field, [&](std::string_view name, od::value& list) {
        if (name == "requests") return read_resource_list(d, list, container.requests, &requested);
        if (name == "limits") return read_resource_list(d, list, container.limits, &limited);
        return true;
      });
    }
    if (key == "ports") {
      return visit_array(d, field, [&](od::value& element, size_t) {
        return visit_fields(d, element, [&](std::string_view name, od::value& port) {
          if (name != "hostPort") return true;
          int32_t host_port = 0;
          if (!read_int32(d, port, host_port)) return false;
          if (host_port > 0) host_ports.push_back(host_port);
          return true;
        });
      });
    }
    if (key == "restartPolicy" && init) {
      std::string_view policy;
      if (!read_string_view(d, field, policy)) return false;
      container.restart_always = policy == "Always";
      return true;
    }
    return true;
  });
  complete_container(init, host_ports, requested, limited, container, pod);
  return ok;
}

// A PodAffinityTerm (labelSelector, namespaces, namespaceSelector, topologyKey).
inline bool read_pod_affinity_term(Decoding& d, od::value& value, PodAffinityTerm& term) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "labelSelector") return read_optional_label_selector(d, field, term.label_selector);
    if (key == "namespaces") return read_string_list(d, field, term.namespaces);
    if (key == "namespaceSelector") {
      return read_optional_label_selector(d, field, term.namespace_selector);
    }
    if (key == "topologyKey") return read_string(d, field, term.topology_key);
    return true;
  });
}

// podAffinity or podAntiAffinity: required terms, and preferred ones with their weights.
inline bool read_inter_pod_terms(Decoding& d, od::value& value, InterPodTerms& terms) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "requiredDuringSchedulingIgnoredDuringExecution") {
      return visit_array(d, field, [&](od::value& element, size_t) {
        return read_pod_affinity_term(d, element, terms.required.emplace_back());
      });
    }
    if (key == "preferredDuringSchedulingIgnoredDuringExecution") {
      return visit_array(d, field, [&](od::value& element, size_t) {
        WeightedPodAffinityTerm& weighted = terms.preferred.emplace_back();
        return visit_fields(d, element, [&](std::string_view name, od::value& item) {
          if (name == "weight") return read_int32(d, item, weighted.weight);
          if (name == "podAffinityTerm") return read_pod_affinity_term(d, item, weighted.term);
          return true;
        });
      });
    }
    return true;
  });
}

inline bool read_affinity(Decoding& d, od::value& value, Pod& pod) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "nodeAffinity") return read_node_affinity(d, field, pod.node_affinity.edit());
    if (key == "podAffinity") return read_inter_pod_terms(d, field, pod.pod_affinity);
    if (key == "podAntiAffinity") return read_inter_pod_terms(d, field, pod.pod_anti_affinity);
    return true;
  });
}

// One of spec.topologySpreadConstraints; absent optional fields keep the scheduler's defaults.
inline bool read_topology_spread(Decoding& d, od::value& value, TopologySpreadConstraint& c) {
  std::optional<UnsatisfiableAction> action;
  bool ok = visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "maxSkew") return read_int32(d, field, c.max_skew);
    if (key == "topologyKey") return read_string(d, field, c.topology_key);
    if (key == "whenUnsatisfiable") return read_enum(d, field, kUnsatisfiableActions, action);
    if (key == "labelSelector") return read_optional_label_selector(d, field, c.label_selector);
    if (key == "minDomains") {
      std::optional<int32_t> min_domains;
      if (!read_optional_int32(d, field, min_domains)) return false;
      c.min_domains = min_domains.value_or(1);
      return true;
    }
    if (key == "nodeAffinityPolicy" || key == "nodeTaintsPolicy") {
      std::optional<InclusionPolicy> policy;
      if (!read_enum(d, field, kInclusionPolicies, policy)) return false;
      InclusionPolicy& target = key == "nodeAffinityPolicy" ? c.node_affinity_policy
                                                            : c.node_taints_policy;
      if (policy) target = *policy;
      return true;
    }
    if (key == "matchLabelKeys") return read_string_list(d, field, c.match_label_keys);
    return true;
  });
  if (!ok) return false;
  if (!action) return missing_enum(d, "whenUnsatisfiable", kUnsatisfiableActions);
  c.when_unsatisfiable = *action;
  return true;
}

inline bool read_volume(Decoding& d, od::value& value, Volume& volume) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "name") return read_string(d, field, volume.name);
    bool is_null = false;
    if (!check_null(d, field, is_null)) return false;
    if (is_null) return true;
    if (key == "emptyDir") {
      volume.kind = kVolumeEmptyDir;
      return visit_fields(d, field, [&](std::string_view name, od::value& item) {
        if (name != "medium") return true;
        std::string_view medium;
        if (!read_string_view(d, item, medium)) return false;
        volume.memory_medium = medium == "Memory";
        return true;
      });
    }
    if (key == "persistentVolumeClaim") {
      volume.kind = kVolumePersistentClaim;
      return visit_fields(d, field, [&](std::string_view name, od::value& item) {
        return name != "claimName" || read_string(d, item, volume.claim_name);
      });
    }
    if (key == "hostPath") {
      volume.kind = kVolumeHostPath;
    } else if (key == "ephemeral") {
      volume.kind = kVolumeEphemeral;
    } else {
      volume.kind = kVolumeOther;
    }
    return true;
  });
}

inline bool read_pod_spec(Decoding& d, od::value& value, Pod& pod) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "containers" || key == "initContainers") {
      bool init = key == "initContainers";
      std::vector<Container>& containers = init ? pod.init_containers : pod.containers.edit();
      return visit_array(d, field, [&](od::value& element, size_t) {
        return read_container(d, element, init, containers.emplace_back(), pod);
      });
    }
    if (key == "nodeName") return read_string(d, field, pod.node_name);
    if (key == "priority") return read_optional_int32(d, field, pod.priority);
    if (key == "priorityClassName") return read_string(d, field, pod.priority_class_name);
    if (key == "schedulerName") return read_string(d, field, pod.scheduler_name);
    if (key == "restartPolicy") return read_string(d, field, pod.restart_policy);
    if (key == "overhead") return read_resource_list(d, field, pod.overhead);
    if (key == "nodeSelector") return read_string_map(d, field, pod.node_selector);
    if (key == "affinity") return read_affinity(d, field, pod);
    if (key == "topologySpreadConstraints") {
      return visit_array(d, field, [&](od::value& element, size_t) {
        return read_topology_spread(d, element, pod.topology_spread.emplace_back());
      });
    }
    if (key == "tolerations") {
      return visit_array(d, field, [&](od::value& element, size_t) {
        return read_toleration(d, element, pod.tolerations.edit().emplace_back());
      });
    }
    if (key == "volumes") {
      return visit_array(d, field, [&](od::value& element, size_t) {
        return read_volume(d, element, pod.volumes.emplace_back());
      });
    }
    if (key == "resourceClaims") {
      int claims = 0;
      if (!count_elements(d, field, claims)) return false;
      pod.has_resource_claims = claims > 0;
      return true;
    }
    return true;
  });
}

inline bool read_pod_field(Decoding& d, std::string_view key, od::value& value, Pod& pod) {
  if (key == "spec") return read_pod_spec(d, value, pod);
  if (key == "status") return read_pod_status(d, value, pod);
  return true;
}

// ---- PriorityClass, PodDisruptionBudget ---------------------------------------------------------

inline bool read_priority_class_field(Decoding& d, std::string_view key, od::value& value,
                                      PriorityClass& priority_class) {
  if (key == "value") return read_int32(d, value, priority_class.value);
  if (key == "globalDefault") return read_bool(d, value, priority_class.global_default);
  if (key == "preemptionPolicy") return read_string(d, value, priority_class.preemption_policy);
  return true;
}

// intstr.IntOrString as a PDB uses it: an integer or a percentage such as "50%".
inline bool read_int_or_percent(Decoding& d, od::value& value, std::optional<IntOrPercent>& out) {
  od::json_type type;
  if (!type_of(d, value, type)) return false;
  out.reset();
  if (type == od::json_type::null) return take_null(d, value);
  if (type == od::json_type::number) {
    int32_t number = 0;
    if (!read_int32(d, value, number)) return false;
    out = IntOrPercent{number, false};
    return true;
  }
  std::string_view expected = "an integer or a percentage such as \"50%\"";
  if (type != od::json_type::string) return wrong_type(d, value, type, expected);
  std::string_view text;
  if (!read_string_view(d, value, text)) return false;
  std::string_view digits = text.substr(0, text.empty() ? 0 : text.size() - 1);
  bool valid =
      !digits.empty() && digits.size() <= 9 && text.back() == '%' &&
      std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!valid)
    return d.wrong("expected " + std::string(expected) + ", found the string " + quoted(text));
  out = IntOrPercent{std::stoi(std::string(digits)), true};
  return true;
}

inline bool read_pdb_field(Decoding& d, std::string_view key, od::value& value,
                           PodDisruptionBudget& pdb) {
  if (key == "spec") {
    return visit_fields(d, value, [&](std::string_view name, od::value& field) {
      if (name == "selector") return read_optional_label_selector(d, field, pdb.selector);
      if (name == "minAvailable") return read_int_or_percent(d, field, pdb.min_available);
      if (name == "maxUnavailable") return read_int_or_percent(d, field, pdb.max_unavailable);
      return true;
    });
  }
  if (key == "status") {
    return visit_fields(d, value, [&](std::string_view name, od::value& field) {
      if (name == "disruptionsAllowed") return read_int32(d, field, pdb.disruptions_allowed);
      if (name == "currentHealthy") return read_int32(d, field, pdb.current_healthy);
      if (name == "desiredHealthy") return read_int32(d, field, pdb.desired_healthy);
      if (name == "expectedPods") return read_int32(d, field, pdb.expected_pods);
      return true;
    });
  }
  return true;
}

// ---- Volcano: HyperNode, Job, PodGroup ----------------------------------------------------------

inline bool read_hyper_node_selector(Decoding& d, od::value& value, HyperNodeMember& member) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "exactMatch") {
      return visit_fields(d, field, [&](std::string_view name, od::value& item) {
        return name != "name" || read_string(d, item, member.exact_name);
      });
    }
    if (key == "regexMatch") {
      return visit_fields(d, field, [&](std::string_view name, od::value& item) {
        return name != "pattern" || read_string(d, item, member.regex);
      });
    }
    if (key == "labelMatch") return read_optional_label_selector(d, field, member.label_match);
    return true;
  });
}

inline bool read_hyper_node_member(Decoding& d, od::value& value, HyperNodeMember& member) {
  std::optional<HyperNodeMemberType> type;
  bool ok = visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "type") return read_enum(d, field, kMemberTypes, type);
    if (key == "selector") return read_hyper_node_selector(d, field, member);
    return true;
  });
  if (!ok) return false;
  if (!type) return missing_enum(d, "type", kMemberTypes);
  member.type = *type;
  return true;
}

inline bool read_hyper_node_field(Decoding& d, std::string_view key, od::value& value,
                                  HyperNode& hyper_node) {
  if (key != "spec") return true;
  return visit_fields(d, value, [&](std::string_view name, od::value& field) {
    if (name == "tier") return read_int32(d, field, hyper_node.tier);
    if (name == "tierName") return read_string(d, field, hyper_node.tier_name);
    if (name != "members") return true;
    return visit_array(d, field, [&](od::value& element, size_t) {
      return read_hyper_node_member(d, element, hyper_node.members.emplace_back());
    });
  });
}

inline bool read_lifecycle_policy(Decoding& d, od::value& value, LifecyclePolicy& policy) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "event") return read_string(d, field, policy.event);
    if (key == "events") return read_string_list(d, field, policy.events);
    if (key == "action") return read_string(d, field, policy.action);
    return true;
  });
}

inline bool same_policy(const LifecyclePolicy& a, const LifecyclePolicy& b) {
  return a.event == b.event && a.events == b.events && a.action == b.action;
}

// tasks[].policies, added to `policies` unless an equal policy is already there.
inline bool read_task_policies(Decoding& d, od::value& value,
                               std::vector<LifecyclePolicy>& policies) {
  return visit_array(d, value, [&](od::value& task, size_t) {
    return visit_fields(d, task, [&](std::string_view key, od::value& field) {
      if (key != "policies") return true;
      return visit_array(d, field, [&](od::value& element, size_t) {
        LifecyclePolicy policy;
        if (!read_lifecycle_policy(d, element, policy)) return false;
        auto same = [&](const LifecyclePolicy& known) { return same_policy(known, policy); };
        if (std::none_of(policies.begin(), policies.end(), same)) {
          policies.push_back(std::move(policy));
        }
        return true;
      });
    });
  });
}

inline bool read_volcano_job_field(Decoding& d, std::string_view key, od::value& value,
                                   VolcanoJob& job) {
  if (key != "spec") return true;
  return visit_fields(d, value, [&](std::string_view name, od::value& field) {
    if (name == "minAvailable") return read_int32(d, field, job.min_available);
    if (name == "networkTopology") return read_network_topology(d, field, job.network_topology);
    if (name == "schedulerName") return read_string(d, field, job.scheduler_name);
    if (name == "queue") return read_string(d, field, job.queue);
    if (name == "tasks") return read_task_policies(d, field, job.task_policies);
    if (name != "policies") return true;
    return visit_array(d, field, [&](od::value& element, size_t) {
      return read_lifecycle_policy(d, element, job.policies.emplace_back());
    });
  });
}

inline bool read_pod_group_field(Decoding& d, std::string_view key, od::value& value,
                                 PodGroup& pod_group) {
  if (key == "spec") {
    return visit_fields(d, value, [&](std::string_view name, od::value& field) {
      if (name == "minMember") return read_int32(d, field, pod_group.min_member);
      if (name == "networkTopology") {
        return read_network_topology(d, field, pod_group.network_topology);
      }
      return true;
    });
  }
  if (key == "status") {
    return visit_fields(d, value, [&](std::string_view name, od::value& field) {
      if (name == "phase") return read_string(d, field, pod_group.phase);
      if (name == "running") return read_int32(d, field, pod_group.running);
      return true;
    });
  }
  return true;
}

}  // namespace loadshift::model::json

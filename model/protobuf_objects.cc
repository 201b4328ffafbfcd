// Pod and Node messages into the model, from the wire. Mirrors the JSON readers field for field
// (model/kube_json_kinds.h, kube_json_fields.h, kube_json_pod_status.h); where the encodings
// differ, the difference is named:
// - Go writes every string field, empty ones too: an empty string counts as absent, as an omitted
//   JSON member does. Pointer fields (priority, tolerationSeconds, labelSelector, the required
//   node affinity, a terminated state) are written only when set: their presence is the JSON's
//   non-null.
// - metav1.Time is seconds since the epoch; an empty message is Go's zero time, which JSON writes
//   as null. A time JSON could not carry (outside the years 1-9999) is kept unreadable, and a
//   condition's time outside the years the model's clock holds (1678-2261) as none, as the JSON
//   decoder keeps them.
// - A field with another wire type than the API gives it is malformed, never guessed at.
#include "model/protobuf_objects.h"

#include <optional>
#include <utility>

#include "model/pod_defaults.h"
#include "model/value_pool.h"

namespace loadshift::model::pb {
namespace {

bool read_node_affinity(std::string_view bytes, NodeAffinity& affinity, Failure& failure) {
  using A = core::NodeAffinity;
  return each_field(bytes, failure, [&](const Wire& field) {
    if (field.number() == A::kRequiredDuringSchedulingIgnoredDuringExecutionFieldNumber) {
      // Present: even without terms it constrains (an empty list matches no node).
      std::string_view selector;
      std::vector<NodeSelectorTerm>& terms = affinity.required.emplace();
      bool ok =
          bytes_of(field, selector, failure) && each_field(selector, failure, [&](const Wire& f) {
            if (f.number() != core::NodeSelector::kNodeSelectorTermsFieldNumber) return true;
            return element(f, terms, failure,
                           [&](std::string_view item, NodeSelectorTerm& term) {
                             return read_node_selector_term(item, term, failure);
                           }) ||
                   failure.in_field("nodeSelectorTerms");
          });
      return ok || failure.in_field("requiredDuringSchedulingIgnoredDuringExecution");
    }
    if (field.number() != A::kPreferredDuringSchedulingIgnoredDuringExecutionFieldNumber) {
      return true;
    }
    return element(field, affinity.preferred, failure,
                   [&](std::string_view item, PreferredSchedulingTerm& term) {
                     using P = core::PreferredSchedulingTerm;
                     return each_field(item, failure, [&](const Wire& f) {
                       if (f.number() == P::kWeightFieldNumber) {
                         return int32_of(f, term.weight, failure) || failure.in_field("weight");
                       }
                       if (f.number() != P::kPreferenceFieldNumber) return true;
                       std::string_view preference;
                       return (bytes_of(f, preference, failure) &&
                               read_node_selector_term(preference, term.preference, failure)) ||
                              failure.in_field("preference");
                     });
                   }) ||
           failure.in_field("preferredDuringSchedulingIgnoredDuringExecution");
  });
}

bool read_pod_affinity_term(std::string_view bytes, PodAffinityTerm& term, Failure& failure) {
  using T = core::PodAffinityTerm;
  return each_field(bytes, failure, [&](const Wire& field) {
    switch (field.number()) {
      case T::kLabelSelectorFieldNumber:
        return optional_label_selector(field, "labelSelector", term.label_selector, failure);
      case T::kNamespacesFieldNumber:
        return string_element(field, term.namespaces, failure) || failure.in_field("namespaces");
      case T::kTopologyKeyFieldNumber:
        return text(field, term.topology_key, failure) || failure.in_field("topologyKey");
      case T::kNamespaceSelectorFieldNumber:
        return optional_label_selector(field, "namespaceSelector", term.namespace_selector,
                                       failure);
      default:
        return true;
    }
  });
}

// podAffinity or podAntiAffinity (the same fields): required terms, and weighted ones.
bool read_inter_pod_terms(std::string_view bytes, InterPodTerms& terms, Failure& failure) {
  using A = core::PodAffinity;
  using Anti = core::PodAntiAffinity;
  static_assert(int{A::kRequiredDuringSchedulingIgnoredDuringExecutionFieldNumber} ==
                    int{Anti::kRequiredDuringSchedulingIgnoredDuringExecutionFieldNumber} &&
                int{A::kPreferredDuringSchedulingIgnoredDuringExecutionFieldNumber} ==
                    int{Anti::kPreferredDuringSchedulingIgnoredDuringExecutionFieldNumber});
  return each_field(bytes, failure, [&](const Wire& field) {
    if (field.number() == A::kRequiredDuringSchedulingIgnoredDuringExecutionFieldNumber) {
      return element(field, terms.required, failure,
                     [&](std::string_view item, PodAffinityTerm& term) {
                       return read_pod_affinity_term(item, term, failure);
                     }) ||
             failure.in_field("requiredDuringSchedulingIgnoredDuringExecution");
    }
    if (field.number() != A::kPreferredDuringSchedulingIgnoredDuringExecutionFieldNumber) {
      return true;
    }
    return element(field, terms.preferred, failure,
                   [&](std::string_view item, WeightedPodAffinityTerm& weighted) {
                     using W = core::WeightedPodAffinityTerm;
                     return each_field(item, failure, [&](const Wire& f) {
                       if (f.number() == W::kWeightFieldNumber) {
                         return int32_of(f, weighted.weight, failure) || failure.in_field("weight");
                       }
                       if (f.number() != W::kPodAffinityTermFieldNumber) return true;
                       std::string_view term;
                       return (bytes_of(f, term, failure) &&
                               read_pod_affinity_term(term, weighted.term, failure)) ||
                              failure.in_field("podAffinityTerm");
                     });
                   }) ||
           failure.in_field("preferredDuringSchedulingIgnoredDuringExecution");
  });
}

bool read_affinity(std::string_view bytes, Pod& pod, Failure& failure) {
  using A = core::Affinity;
  return each_field(bytes, failure, [&](const Wire& field) {
    std::string_view inner;
    switch (field.number()) {
      case A::kNodeAffinityFieldNumber:
        return (bytes_of(field, inner, failure) &&
                read_node_affinity(inner, pod.node_affinity.edit(), failure)) ||
               failure.in_field("nodeAffinity");
      case A::kPodAffinityFieldNumber:
        return (bytes_of(field, inner, failure) &&
                read_inter_pod_terms(inner, pod.pod_affinity, failure)) ||
               failure.in_field("podAffinity");
      case A::kPodAntiAffinityFieldNumber:
        return (bytes_of(field, inner, failure) &&
                read_inter_pod_terms(inner, pod.pod_anti_affinity, failure)) ||
               failure.in_field("podAntiAffinity");
      default:
        return true;
    }
  });
}

bool read_toleration(std::string_view bytes, Toleration& toleration, Failure& failure) {
  using T = core::Toleration;
  return each_field(bytes, failure, [&](const Wire& field) {
    switch (field.number()) {
      case T::kKeyFieldNumber:
        return text(field, toleration.key, failure) || failure.in_field("key");
      case T::kOperatorFieldNumber: {
        std::optional<TolerationOperator> op;
        if (!read_enum(field, kTolerationOperators, op, failure)) {
          return failure.in_field("operator");
        }
        toleration.op = op.value_or(TolerationOperator::kEqual);
        return true;
      }
      case T::kValueFieldNumber:
        return text(field, toleration.value, failure) || failure.in_field("value");
      case T::kEffectFieldNumber:
        return read_enum(field, kTaintEffects, toleration.effect, failure) ||
               failure.in_field("effect");
      case T::kTolerationSecondsFieldNumber:
        if (!varint_of(field, failure)) return failure.in_field("tolerationSeconds");
        toleration.toleration_seconds = field.int64();  // a pointer: written only when set
        return true;
      default:
        return true;
    }
  });
}

// One of spec.topologySpreadConstraints; absent optional fields keep the scheduler's defaults.
bool read_topology_spread(std::string_view bytes, TopologySpreadConstraint& c, Failure& failure) {
  using T = core::TopologySpreadConstraint;
  std::optional<UnsatisfiableAction> action;
  bool ok = each_field(bytes, failure, [&](const Wire& field) {
    switch (field.number()) {
      case T::kMaxSkewFieldNumber:
        return int32_of(field, c.max_skew, failure) || failure.in_field("maxSkew");
      case T::kTopologyKeyFieldNumber:
        return text(field, c.topology_key, failure) || failure.in_field("topologyKey");
      case T::kWhenUnsatisfiableFieldNumber:
        return read_enum(field, kUnsatisfiableActions, action, failure) ||
               failure.in_field("whenUnsatisfiable");
      case T::kLabelSelectorFieldNumber:
        return optional_label_selector(field, "labelSelector", c.label_selector, failure);
      case T::kMinDomainsFieldNumber:
        return int32_of(field, c.min_domains, failure) || failure.in_field("minDomains");
      case T::kNodeAffinityPolicyFieldNumber:
      case T::kNodeTaintsPolicyFieldNumber: {
        bool affinity = field.number() == T::kNodeAffinityPolicyFieldNumber;
        std::optional<InclusionPolicy> policy;
        if (!read_enum(field, kInclusionPolicies, policy, failure)) {
          return failure.in_field(affinity ? "nodeAffinityPolicy" : "nodeTaintsPolicy");
        }
        if (policy) (affinity ? c.node_affinity_policy : c.node_taints_policy) = *policy;
        return true;
      }
      case T::kMatchLabelKeysFieldNumber:
        return string_element(field, c.match_label_keys, failure) ||
               failure.in_field("matchLabelKeys");
      default:
        return true;
    }
  });
  return ok && require_enum("whenUnsatisfiable", action, kUnsatisfiableActions,
                            c.when_unsatisfiable, failure);
}

// Host ports and the resources named are kept aside for complete_container (model/pod_defaults.h).
bool read_container(std::string_view bytes, bool init, Container& container, Pod& pod,
                    Failure& failure) {
  using C = core::Container;
  using R = core::ResourceRequirements;
  std::vector<int32_t> host_ports;
  std::vector<std::string> requested, limited;
  size_t ports = 0;
  bool ok = each_field(bytes, failure, [&](const Wire& field) {
    switch (field.number()) {
      case C::kNameFieldNumber:
        return text(field, container.name, failure) || failure.in_field("name");
      case C::kImageFieldNumber:
        return text(field, container.image, failure) || failure.in_field("image");
      case C::kPortsFieldNumber: {
        std::string_view port;
        size_t index = ports++;
        bool read = bytes_of(field, port, failure) && each_field(port, failure, [&](const Wire& f) {
                      if (f.number() != core::ContainerPort::kHostPortFieldNumber) return true;
                      int32_t host_port = 0;
                      if (!int32_of(f, host_port, failure)) return failure.in_field("hostPort");
                      if (host_port > 0) host_ports.push_back(host_port);
                      return true;
                    });
        if (!read) {
          failure.in_element(index);
          return failure.in_field("ports");
        }
        return true;
      }
      case C::kResourcesFieldNumber: {
        std::string_view resources;
        bool read = bytes_of(field, resources, failure) &&
                    each_field(resources, failure, [&](const Wire& f) {
                      if (f.number() == R::kRequestsFieldNumber) {
                        return quantity_entry(f, container.requests, failure, &requested) ||
                               failure.in_field("requests");
                      }
                      if (f.number() == R::kLimitsFieldNumber) {
                        return quantity_entry(f, container.limits, failure, &limited) ||
                               failure.in_field("limits");
                      }
                      return true;
                    });
        return read || failure.in_field("resources");
      }
      case C::kRestartPolicyFieldNumber: {
        if (!init) return true;
        std::string policy;
        if (!text(field, policy, failure)) return failure.in_field("restartPolicy");
        container.restart_always = policy == "Always";
        return true;
      }
      default:
        return true;
    }
  });
  complete_container(init, host_ports, requested, limited, container, pod);
  return ok;
}

bool read_volume(std::string_view bytes, Volume& volume, Failure& failure) {
  using V = core::Volume;
  using S = core::VolumeSource;
  return each_field(bytes, failure, [&](const Wire& field) {
    if (field.number() == V::kNameFieldNumber) {
      return text(field, volume.name, failure) || failure.in_field("name");
    }
    if (field.number() != V::kVolumeSourceFieldNumber) return true;
    std::string_view source;
    if (!bytes_of(field, source, failure)) return false;
    // The source's fields are the JSON volume's own (it is inline there).
    return each_field(source, failure, [&](const Wire& f) {
      std::string_view inner;
      switch (f.number()) {
        case S::kEmptyDirFieldNumber:
          volume.kind = kVolumeEmptyDir;
          return (bytes_of(f, inner, failure) &&
                  each_field(inner, failure,
                             [&](const Wire& g) {
                               if (g.number() != core::EmptyDirVolumeSource::kMediumFieldNumber)
                                 return true;
                               std::string medium;
                               if (!text(g, medium, failure)) return failure.in_field("medium");
                               volume.memory_medium = medium == "Memory";
                               return true;
                             })) ||
                 failure.in_field("emptyDir");
        case S::kPersistentVolumeClaimFieldNumber:
          volume.kind = kVolumePersistentClaim;
          return (bytes_of(f, inner, failure) &&
                  each_field(inner, failure,
                             [&](const Wire& g) {
                               if (g.number() !=
                                   core::PersistentVolumeClaimVolumeSource::kClaimNameFieldNumber) {
                                 return true;
                               }
                               return text(g, volume.claim_name, failure) ||
                                      failure.in_field("claimName");
                             })) ||
                 failure.in_field("persistentVolumeClaim");
        case S::kHostPathFieldNumber:
          volume.kind = kVolumeHostPath;
          return true;
        case S::kEphemeralFieldNumber:
          volume.kind = kVolumeEphemeral;
          return true;
        default:
          volume.kind = kVolumeOther;  // another source (configMap, secret, csi, ...)
          return true;
      }
    });
  });
}

bool read_pod_spec(std::string_view bytes, Pod& pod, Failure& failure) {
  using S = core::PodSpec;
  std::vector<std::pair<std::string, std::string>> node_selector;
  bool ok = each_field(bytes, failure, [&](const Wire& field) {
    switch (field.number()) {
      case S::kContainersFieldNumber:
      case S::kInitContainersFieldNumber: {
        bool init = field.number() == S::kInitContainersFieldNumber;
        std::vector<Container>& containers = init ? pod.init_containers : pod.containers.edit();
        return element(field, containers, failure,
                       [&](std::string_view item, Container& container) {
                         return read_container(item, init, container, pod, failure);
                       }) ||
               failure.in_field(init ? "initContainers" : "containers");
      }
      case S::kNodeNameFieldNumber:
        return text(field, pod.node_name, failure) || failure.in_field("nodeName");
      case S::kPriorityFieldNumber: {
        int32_t priority = 0;
        if (!int32_of(field, priority, failure)) return failure.in_field("priority");
        pod.priority = priority;  // a pointer: written only when set
        return true;
      }
      case S::kPriorityClassNameFieldNumber:
        return text(field, pod.priority_class_name, failure) ||
               failure.in_field("priorityClassName");
      case S::kSchedulerNameFieldNumber:
        return text(field, pod.scheduler_name, failure) || failure.in_field("schedulerName");
      case S::kRestartPolicyFieldNumber:
        return text(field, pod.restart_policy, failure) || failure.in_field("restartPolicy");
      case S::kOverheadFieldNumber:
        return quantity_entry(field, pod.overhead, failure) || failure.in_field("overhead");
      case S::kNodeSelectorFieldNumber:
        return string_entry(field, node_selector, failure) || failure.in_field("nodeSelector");
      case S::kAffinityFieldNumber: {
        std::string_view affinity;
        return (bytes_of(field, affinity, failure) && read_affinity(affinity, pod, failure)) ||
               failure.in_field("affinity");
      }
      case S::kTopologySpreadConstraintsFieldNumber:
        return element(field, pod.topology_spread, failure,
                       [&](std::string_view item, TopologySpreadConstraint& c) {
                         return read_topology_spread(item, c, failure);
                       }) ||
               failure.in_field("topologySpreadConstraints");
      case S::kTolerationsFieldNumber:
        return element(field, pod.tolerations.edit(), failure,
                       [&](std::string_view item, Toleration& toleration) {
                         return read_toleration(item, toleration, failure);
                       }) ||
               failure.in_field("tolerations");
      case S::kVolumesFieldNumber:
        return element(field, pod.volumes, failure,
                       [&](std::string_view item, Volume& volume) {
                         return read_volume(item, volume, failure);
                       }) ||
               failure.in_field("volumes");
      case S::kResourceClaimsFieldNumber:
        pod.has_resource_claims = true;
        return true;
      default:
        return true;
    }
  });
  pod.node_selector = StringMap(std::move(node_selector));
  return ok;
}

}  // namespace

bool read_pod(std::string_view bytes, Pod& pod, Failure& failure) {
  using P = core::Pod;
  bool ok = each_field(bytes, failure, [&](const Wire& field) {
    std::string_view inner;
    switch (field.number()) {
      case P::kMetadataFieldNumber:
        if (!bytes_of(field, inner, failure)) return failure.in_field("metadata");
        return read_object_meta(inner, pod.meta, &pod.owners.edit(), failure);
      case P::kSpecFieldNumber:
        return (bytes_of(field, inner, failure) && read_pod_spec(inner, pod, failure)) ||
               failure.in_field("spec");
      case P::kStatusFieldNumber:
        return (bytes_of(field, inner, failure) && read_pod_status(inner, pod, failure)) ||
               failure.in_field("status");
      default:
        return true;
    }
  });
  if (!ok || !complete_meta(pod.meta, true, failure)) return false;
  complete_pod(pod);
  share_alike(pod);
  return true;
}

bool read_node(std::string_view bytes, Node& node, Failure& failure) {
  using N = core::Node;
  using Spec = core::NodeSpec;
  using Status = core::NodeStatus;
  auto spec = [&](const Wire& field) {
    switch (field.number()) {
      case Spec::kUnschedulableFieldNumber:
        if (!varint_of(field, failure)) return failure.in_field("unschedulable");
        node.unschedulable = field.boolean();
        return true;
      case Spec::kTaintsFieldNumber:
        return element(field, node.taints, failure,
                       [&](std::string_view item, Taint& taint) {
                         std::optional<TaintEffect> effect;
                         bool read = each_field(item, failure, [&](const Wire& f) {
                           switch (f.number()) {
                             case core::Taint::kKeyFieldNumber:
                               return text(f, taint.key, failure) || failure.in_field("key");
                             case core::Taint::kValueFieldNumber:
                               return text(f, taint.value, failure) || failure.in_field("value");
                             case core::Taint::kEffectFieldNumber:
                               return read_enum(f, kTaintEffects, effect, failure) ||
                                      failure.in_field("effect");
                             default:
                               return true;
                           }
                         });
                         return read && require_enum("effect", effect, kTaintEffects, taint.effect,
                                                     failure);
                       }) ||
               failure.in_field("taints");
      default:
        return true;
    }
  };
  auto status = [&](const Wire& field) {
    switch (field.number()) {
      case Status::kAllocatableFieldNumber:
        return quantity_entry(field, node.allocatable, failure) || failure.in_field("allocatable");
      case Status::kCapacityFieldNumber:
        return quantity_entry(field, node.capacity, failure) || failure.in_field("capacity");
      case Status::kConditionsFieldNumber:
        return element(field, node.conditions, failure,
                       [&](std::string_view item, NodeCondition& condition) {
                         using C = core::NodeCondition;
                         return each_field(item, failure, [&](const Wire& f) {
                           switch (f.number()) {
                             case C::kTypeFieldNumber:
                               return text(f, condition.type, failure) || failure.in_field("type");
                             case C::kStatusFieldNumber:
                               return text(f, condition.status, failure) ||
                                      failure.in_field("status");
                             case C::kReasonFieldNumber:
                               return text(f, condition.reason, failure) ||
                                      failure.in_field("reason");
                             default:
                               return true;
                           }
                         });
                       }) ||
               failure.in_field("conditions");
      case Status::kAddressesFieldNumber:
        return element(field, node.addresses, failure,
                       [&](std::string_view item, NodeAddress& address) {
                         using A = core::NodeAddress;
                         return each_field(item, failure, [&](const Wire& f) {
                           if (f.number() == A::kTypeFieldNumber) {
                             return text(f, address.type, failure) || failure.in_field("type");
                           }
                           if (f.number() == A::kAddressFieldNumber) {
                             return text(f, address.address, failure) ||
                                    failure.in_field("address");
                           }
                           return true;
                         });
                       }) ||
               failure.in_field("addresses");
      default:
        return true;
    }
  };
  bool ok = each_field(bytes, failure, [&](const Wire& field) {
    std::string_view inner;
    switch (field.number()) {
      case N::kMetadataFieldNumber:
        if (!bytes_of(field, inner, failure)) return failure.in_field("metadata");
        return read_object_meta(inner, node.meta, nullptr, failure);
      case N::kSpecFieldNumber:
        return (bytes_of(field, inner, failure) && each_field(inner, failure, spec)) ||
               failure.in_field("spec");
      case N::kStatusFieldNumber:
        return (bytes_of(field, inner, failure) && each_field(inner, failure, status)) ||
               failure.in_field("status");
      default:
        return true;
    }
  });
  return ok && complete_meta(node.meta, false, failure);
}

}  // namespace loadshift::model::pb

// What the scheduler's node selector parser refuses.
//
// kube-scheduler turns each NodeSelectorTerm into label and field selectors (component-helpers'
// nodeaffinity package, labels.NewRequirement). A requirement it cannot parse is not an error
// for the pod: the term that holds it matches no node (required affinity, PersistentVolume node
// affinity) or, for preferred terms, the scoring of the pod fails. The rules, per operator:
//   In, NotIn        at least one value, every value a valid label value
//   Exists, DoesNotExist  no values
//   Gt, Lt           exactly one value, a valid label value that parses as an int64
//   matchFields      In or NotIn with exactly one value
// These functions decide exactly that, and say why in words for reasons.
#pragma once

#include <string>
#include <string_view>

#include "model/model.h"

namespace loadshift::placement {

// IsValidLabelValue: empty, or at most 63 characters of [-_.A-Za-z0-9] that start and end with
// an alphanumeric character.
bool is_valid_label_value(std::string_view value);

// True when labels.NewRequirement accepts the matchExpressions requirement. Cheap, allocates
// nothing.
bool requirement_parses(const model::NodeSelectorRequirement& requirement);
// True when the field selector parser accepts the matchFields requirement.
bool field_requirement_parses(const model::NodeSelectorRequirement& requirement);

// Why the requirement does not parse ("value \"trail-\" is not a valid label value"), or empty
// when it parses. `field` selects the matchFields rules.
std::string requirement_parse_error(const model::NodeSelectorRequirement& requirement, bool field);

// Why the term does not parse, naming the first failing requirement
// ("matchExpressions[0] zone In [trail-]: value \"trail-\" is not a valid label value"), or
// empty when every requirement parses.
std::string term_parse_error(const model::NodeSelectorTerm& term);

// Why the scheduler cannot parse the pod's preferred node-affinity terms, or empty. Terms of
// weight 0 and empty terms are skipped, as the scheduler skips them. A pod with such a term is
// never placed once two or more nodes are feasible (NodeAffinity's PreScore fails).
std::string preferred_terms_parse_error(const model::NodeAffinity& affinity);

}  // namespace loadshift::placement

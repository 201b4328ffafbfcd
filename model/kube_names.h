// The names Kubernetes gives the model's enums (as JSON and protobuf both carry them: text), and
// how a decoder tells a person it found another one. Shared by the JSON decoder
// (model/kube_json_fields.h) and the protobuf one (model/protobuf_objects.cc).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "model/model.h"

namespace loadshift::model {

inline constexpr std::string_view kLastAppliedAnnotation =
    "kubectl.kubernetes.io/last-applied-configuration";

// The names of an enum's values as written in Kubernetes objects.
template <typename Enum, size_t N>
using EnumNames = std::array<std::pair<std::string_view, Enum>, N>;

// "one of NoSchedule, PreferNoSchedule, NoExecute"
template <typename Enum, size_t N>
std::string one_of(const EnumNames<Enum, N>& names) {
  std::string text = "one of ";
  for (size_t i = 0; i < N; ++i) {
    if (i != 0) text += ", ";
    text += names[i].first;
  }
  return text;
}

// The value named `text`, or nullopt.
template <typename Enum, size_t N>
std::optional<Enum> find_enum(const EnumNames<Enum, N>& names, std::string_view text) {
  for (const auto& [name, item] : names) {
    if (name == text) return item;
  }
  return std::nullopt;
}

// A value as an error message shows it: quoted, cut after 64 bytes.
inline std::string quoted(std::string_view text) {
  constexpr size_t kShown = 64;
  std::string out = "\"";
  out.append(text.substr(0, kShown));
  if (text.size() > kShown) out += "...";
  out += '"';
  return out;
}

inline constexpr EnumNames<TaintEffect, 3> kTaintEffects{
    {{"NoSchedule", TaintEffect::kNoSchedule},
     {"PreferNoSchedule", TaintEffect::kPreferNoSchedule},
     {"NoExecute", TaintEffect::kNoExecute}}};

inline constexpr EnumNames<TolerationOperator, 2> kTolerationOperators{
    {{"Equal", TolerationOperator::kEqual}, {"Exists", TolerationOperator::kExists}}};

inline constexpr EnumNames<SelectorOperator, 6> kNodeSelectorOperators{
    {{"In", SelectorOperator::kIn},
     {"NotIn", SelectorOperator::kNotIn},
     {"Exists", SelectorOperator::kExists},
     {"DoesNotExist", SelectorOperator::kDoesNotExist},
     {"Gt", SelectorOperator::kGt},
     {"Lt", SelectorOperator::kLt}}};

// metav1.LabelSelector operators; the model keeps them as text.
inline constexpr EnumNames<std::string_view, 4> kLabelSelectorOperators{
    {{"In", "In"}, {"NotIn", "NotIn"}, {"Exists", "Exists"}, {"DoesNotExist", "DoesNotExist"}}};

inline constexpr EnumNames<PodPhase, 5> kPodPhases{{{"Pending", PodPhase::kPending},
                                                    {"Running", PodPhase::kRunning},
                                                    {"Succeeded", PodPhase::kSucceeded},
                                                    {"Failed", PodPhase::kFailed},
                                                    {"Unknown", PodPhase::kUnknown}}};

inline constexpr EnumNames<UnsatisfiableAction, 2> kUnsatisfiableActions{
    {{"DoNotSchedule", UnsatisfiableAction::kDoNotSchedule},
     {"ScheduleAnyway", UnsatisfiableAction::kScheduleAnyway}}};

inline constexpr EnumNames<InclusionPolicy, 2> kInclusionPolicies{
    {{"Honor", InclusionPolicy::kHonor}, {"Ignore", InclusionPolicy::kIgnore}}};

}  // namespace loadshift::model

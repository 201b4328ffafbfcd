// Args of the plugins that judge a pod by its status, as kubernetes-sigs/descheduler defines
// them, read strictly: PodLifeTime (PodLifeTimeArgs), RemovePodsHavingTooManyRestarts
// (RemovePodsHavingTooManyRestartsArgs) and RemoveFailedPods (RemoveFailedPodsArgs).
#include <algorithm>
#include <limits>

#include "policy/plugin_schemas.h"
#include "policy/shared_args.h"

namespace loadshift::policy {
namespace {

// PodLifeTime's `states` (descheduler v0.36): phases, pod status reasons, container waiting and
// terminated reasons.
const std::vector<std::string>& pod_lifetime_states() {
  static const std::vector<std::string> kStates = {
      // phases
      "Running", "Pending", "Succeeded", "Failed", "Unknown",
      // status.reason
      "NodeAffinity", "NodeLost", "Shutdown", "UnexpectedAdmissionError",
      // containers' state.waiting.reason
      "PodInitializing", "ContainerCreating", "ImagePullBackOff", "CrashLoopBackOff",
      "CreateContainerConfigError", "ErrImagePull", "CreateContainerError", "InvalidImageName",
      // containers' state.terminated.reason
      "OOMKilled", "Error", "Completed", "DeadlineExceeded", "Evicted", "ContainerCannotRun",
      "StartError"};
  return kStates;
}

const std::vector<std::string>& restart_states() {
  static const std::vector<std::string> kStates = {"CrashLoopBackOff", "Running"};
  return kStates;
}

std::string one_of(const std::vector<std::string>& allowed) {
  std::vector<std::string> sorted = allowed;
  std::sort(sorted.begin(), sorted.end());
  std::string out;
  for (const std::string& s : sorted) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// A list of strings each in `allowed`; reports the others.
std::vector<std::string> read_states(FieldReader& args, const std::vector<std::string>& allowed) {
  std::vector<std::string> out;
  std::optional<std::vector<std::string>> items = args.string_list("states");
  if (!items) return out;
  for (size_t i = 0; i < items->size(); ++i) {
    const std::string& item = (*items)[i];
    if (std::find(allowed.begin(), allowed.end(), item) == allowed.end()) {
      error_at_item(args, "states", i,
                    "expected one of " + one_of(allowed) + ", found \"" + item + "\"");
      continue;
    }
    out.push_back(item);
  }
  return out;
}

std::vector<int32_t> read_exit_codes(FieldReader& args) {
  std::optional<std::vector<int64_t>> codes = args.integer_list(
      "exitCodes", std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  if (!codes) return {};
  return std::vector<int32_t>(codes->begin(), codes->end());
}

// `ownerKinds: {include: [...]} | {exclude: [...]}` (not both).
Namespaces read_owner_kinds(FieldReader& args) {
  Namespaces out;
  std::optional<FieldReader> kinds = args.object("ownerKinds");
  if (!kinds || !kinds->valid()) return out;
  out.include = kinds->string_list("include").value_or(std::vector<std::string>{});
  out.exclude = kinds->string_list("exclude").value_or(std::vector<std::string>{});
  if (!out.include.empty() && !out.exclude.empty())
    kinds->error("set include or exclude, not both");
  kinds->finish();
  return out;
}

// PodLifeTime's `conditions`: each entry sets at least one field (upstream's validation).
std::vector<PodConditionFilter> read_condition_filters(FieldReader& args) {
  std::vector<PodConditionFilter> out;
  for (FieldReader& entry : args.object_list("conditions")) {
    if (!entry.valid()) continue;
    PodConditionFilter filter;
    filter.type = entry.string("type").value_or("");
    filter.status = entry.string("status").value_or("");
    filter.reason = entry.string("reason").value_or("");
    filter.min_time_since_last_transition_seconds =
        entry.integer("minTimeSinceLastTransitionSeconds", 0, std::numeric_limits<uint32_t>::max());
    if (filter.type.empty() && filter.status.empty() && filter.reason.empty() &&
        !filter.min_time_since_last_transition_seconds) {
      entry.error(
          "expected at least one of type, status, reason or minTimeSinceLastTransitionSeconds "
          "(an empty entry would match every pod's conditions)");
    }
    // Upstream compares the text as written; a pod condition's status is always one of these.
    static const std::vector<std::string> kStatuses = {"True", "False", "Unknown"};
    if (!filter.status.empty() &&
        std::find(kStatuses.begin(), kStatuses.end(), filter.status) == kStatuses.end()) {
      entry.warning_at("status", "a pod condition's status is True, False or Unknown; \"" +
                                     filter.status + "\" matches no condition");
    }
    entry.finish();
    out.push_back(std::move(filter));
  }
  return out;
}

void emit_condition_filters(YAML::Emitter& out, const std::vector<PodConditionFilter>& filters) {
  if (filters.empty()) return;
  out << YAML::Key << "conditions" << YAML::Value << YAML::BeginSeq;
  for (const PodConditionFilter& filter : filters) {
    out << YAML::BeginMap;
    if (!filter.type.empty()) {
      out << YAML::Key << "type" << YAML::Value;
      emit_string(out, filter.type);
    }
    if (!filter.status.empty()) {
      out << YAML::Key << "status" << YAML::Value;
      emit_string(out, filter.status);
    }
    if (!filter.reason.empty()) {
      out << YAML::Key << "reason" << YAML::Value;
      emit_string(out, filter.reason);
    }
    if (filter.min_time_since_last_transition_seconds) {
      out << YAML::Key << "minTimeSinceLastTransitionSeconds" << YAML::Value
          << *filter.min_time_since_last_transition_seconds;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

void emit_exit_codes(YAML::Emitter& out, const std::vector<int32_t>& codes) {
  if (codes.empty()) return;
  out << YAML::Key << "exitCodes" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (int32_t code : codes) out << code;
  out << YAML::EndSeq;
}

void emit_common(YAML::Emitter& out, const Namespaces& namespaces,
                 const std::optional<model::LabelSelector>& label_selector) {
  emit_namespaces(out, "namespaces", namespaces);
  if (label_selector) {
    out << YAML::Key << "labelSelector" << YAML::Value;
    emit_label_selector(out, *label_selector);
  }
}

void emit_list(YAML::Emitter& out, const char* key, const std::vector<std::string>& items) {
  if (items.empty()) return;
  out << YAML::Key << key << YAML::Value;
  emit_string_list(out, items);
}

}  // namespace

// ---- PodLifeTime ----

PluginArgs default_pod_lifetime_args() {
  return PodLifeTimeArgs{};
}

PluginArgs read_pod_lifetime_args(FieldReader& args) {
  PodLifeTimeArgs out;
  if (!args.valid()) return out;
  out.max_pod_life_time_seconds =
      args.integer("maxPodLifeTimeSeconds", 0, std::numeric_limits<uint32_t>::max());
  out.states = read_states(args, pod_lifetime_states());
  out.conditions = read_condition_filters(args);
  out.including_init_containers = args.boolean("includingInitContainers").value_or(false);
  out.including_ephemeral_containers = args.boolean("includingEphemeralContainers").value_or(false);
  out.exit_codes = read_exit_codes(args);
  out.owner_kinds = read_owner_kinds(args);
  out.namespaces = read_namespaces(args);
  out.label_selector = args.label_selector("labelSelector");
  // On the values read (upstream v0.36 tests the lengths): `states: []` selects nothing either.
  if (!out.max_pod_life_time_seconds && out.states.empty() && out.conditions.empty() &&
      out.exit_codes.empty()) {
    args.error(
        "expected at least one of maxPodLifeTimeSeconds, states, conditions or exitCodes "
        "(without one, PodLifeTime would select every pod)");
  }
  args.finish();
  return out;
}

void write_pod_lifetime_args(const PluginArgs& plugin_args, YAML::Emitter& out) {
  const PodLifeTimeArgs& args = std::get<PodLifeTimeArgs>(plugin_args);
  out << YAML::BeginMap;
  if (args.max_pod_life_time_seconds) {
    out << YAML::Key << "maxPodLifeTimeSeconds" << YAML::Value << *args.max_pod_life_time_seconds;
  }
  emit_list(out, "states", args.states);
  emit_condition_filters(out, args.conditions);
  if (args.including_init_containers) {
    out << YAML::Key << "includingInitContainers" << YAML::Value << true;
  }
  if (args.including_ephemeral_containers) {
    out << YAML::Key << "includingEphemeralContainers" << YAML::Value << true;
  }
  emit_exit_codes(out, args.exit_codes);
  emit_namespaces(out, "ownerKinds", args.owner_kinds);
  emit_common(out, args.namespaces, args.label_selector);
  out << YAML::EndMap;
}

// ---- RemovePodsHavingTooManyRestarts ----

PluginArgs default_too_many_restarts_args() {
  return TooManyRestartsArgs{};
}

PluginArgs read_too_many_restarts_args(FieldReader& args) {
  TooManyRestartsArgs out;
  if (!args.valid()) return out;
  // Upstream's validation: "invalid PodsHavingTooManyRestarts threshold" below 1 (a threshold of
  // 0 would select every pod).
  out.pod_restart_threshold = static_cast<int32_t>(
      args.integer("podRestartThreshold", 1, std::numeric_limits<int32_t>::max(), true)
          .value_or(0));
  out.including_init_containers = args.boolean("includingInitContainers").value_or(false);
  out.states = read_states(args, restart_states());
  out.namespaces = read_namespaces(args);
  out.label_selector = args.label_selector("labelSelector");
  args.finish();
  return out;
}

void write_too_many_restarts_args(const PluginArgs& plugin_args, YAML::Emitter& out) {
  const TooManyRestartsArgs& args = std::get<TooManyRestartsArgs>(plugin_args);
  out << YAML::BeginMap;
  out << YAML::Key << "podRestartThreshold" << YAML::Value << args.pod_restart_threshold;
  out << YAML::Key << "includingInitContainers" << YAML::Value << args.including_init_containers;
  emit_list(out, "states", args.states);
  emit_common(out, args.namespaces, args.label_selector);
  out << YAML::EndMap;
}

// ---- RemoveFailedPods ----

PluginArgs default_failed_pods_args() {
  return FailedPodsArgs{};
}

PluginArgs read_failed_pods_args(FieldReader& args) {
  FailedPodsArgs out;
  if (!args.valid()) return out;
  out.min_pod_lifetime_seconds =
      args.integer("minPodLifetimeSeconds", 0, std::numeric_limits<uint32_t>::max()).value_or(3600);
  out.exclude_owner_kinds =
      args.string_list("excludeOwnerKinds").value_or(std::vector<std::string>{});
  out.reasons = args.string_list("reasons").value_or(std::vector<std::string>{});
  out.exit_codes = read_exit_codes(args);
  out.including_init_containers = args.boolean("includingInitContainers").value_or(false);
  out.namespaces = read_namespaces(args);
  out.label_selector = args.label_selector("labelSelector");
  args.finish();
  return out;
}

void write_failed_pods_args(const PluginArgs& plugin_args, YAML::Emitter& out) {
  const FailedPodsArgs& args = std::get<FailedPodsArgs>(plugin_args);
  out << YAML::BeginMap;
  out << YAML::Key << "minPodLifetimeSeconds" << YAML::Value << args.min_pod_lifetime_seconds;
  emit_list(out, "excludeOwnerKinds", args.exclude_owner_kinds);
  emit_list(out, "reasons", args.reasons);
  emit_exit_codes(out, args.exit_codes);
  out << YAML::Key << "includingInitContainers" << YAML::Value << args.including_init_containers;
  emit_common(out, args.namespaces, args.label_selector);
  out << YAML::EndMap;
}

// ---- RemoveDuplicates ----

PluginArgs default_remove_duplicates_args() {
  return RemoveDuplicatesArgs{};
}

PluginArgs read_remove_duplicates_args(FieldReader& args) {
  RemoveDuplicatesArgs out;
  if (!args.valid()) return out;
  out.exclude_owner_kinds =
      args.string_list("excludeOwnerKinds").value_or(std::vector<std::string>{});
  out.namespaces = read_namespaces(args);
  args.finish();
  return out;
}

void write_remove_duplicates_args(const PluginArgs& plugin_args, YAML::Emitter& out) {
  const RemoveDuplicatesArgs& args = std::get<RemoveDuplicatesArgs>(plugin_args);
  out << YAML::BeginMap;
  emit_list(out, "excludeOwnerKinds", args.exclude_owner_kinds);
  emit_namespaces(out, "namespaces", args.namespaces);
  out << YAML::EndMap;
}

}  // namespace loadshift::policy

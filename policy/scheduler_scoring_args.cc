#include "policy/scheduler_scoring_args.h"

#include <set>
#include <string>

#include "policy/shared_args.h"

namespace loadshift::policy {
namespace {

const std::vector<std::string> kTypes = {"LeastAllocated", "MostAllocated",
                                         "RequestedToCapacityRatio"};

// kube-scheduler's bounds: resource weights 1..100, shape utilization 0..100 (strictly
// increasing), score 0..10.
constexpr int64_t kMaxWeight = 100;
constexpr int64_t kMaxUtilization = 100;
constexpr int64_t kMaxShapeScore = 10;

void read_resources(FieldReader& scoring, SchedulerScoring& out) {
  if (!scoring.has("resources")) return;
  std::vector<FieldReader> items = scoring.object_list("resources");
  std::vector<std::pair<std::string, int64_t>> resources;
  std::set<std::string> seen;
  bool ok = true;
  for (size_t i = 0; i < items.size(); ++i) {
    FieldReader& item = items[i];
    if (!item.valid()) {
      ok = false;
      continue;
    }
    std::optional<std::string> name = item.string("name", /*required=*/true);
    std::optional<int64_t> weight = item.integer("weight", 1, kMaxWeight);
    item.finish();
    if (!name) {
      ok = false;
      continue;
    }
    if (name->empty()) {
      item.error_at("name", "expected a resource name such as cpu, found an empty string");
      ok = false;
      continue;
    }
    if (!seen.insert(*name).second) {
      error_at_item(scoring, "resources", i, "resource " + *name + " is listed twice");
      ok = false;
      continue;
    }
    // kube-scheduler defaults an unset weight to 1.
    resources.emplace_back(*name, weight.value_or(1));
  }
  if (ok && resources.empty()) {
    scoring.error_at("resources",
                     "expected at least one resource, found an empty list (omit resources for "
                     "cpu and memory with weight 1)");
    return;
  }
  if (ok) out.resources = std::move(resources);
}

void read_shape(FieldReader& scoring, SchedulerScoring& out) {
  std::optional<FieldReader> ratio = scoring.object("requestedToCapacityRatio");
  if (!ratio || !ratio->valid()) return;
  std::vector<FieldReader> points = ratio->object_list("shape", /*required=*/true);
  std::vector<std::pair<int64_t, int64_t>> shape;
  bool ok = true;
  for (size_t i = 0; i < points.size(); ++i) {
    FieldReader& point = points[i];
    if (!point.valid()) {
      ok = false;
      continue;
    }
    std::optional<int64_t> utilization =
        point.integer("utilization", 0, kMaxUtilization, /*required=*/true);
    std::optional<int64_t> score = point.integer("score", 0, kMaxShapeScore, /*required=*/true);
    point.finish();
    if (!utilization || !score) {
      ok = false;
      continue;
    }
    if (!shape.empty() && *utilization <= shape.back().first) {
      point.error_at("utilization", "utilization values must be strictly increasing: " +
                                        std::to_string(*utilization) + " follows " +
                                        std::to_string(shape.back().first));
      ok = false;
      continue;
    }
    shape.emplace_back(*utilization, *score);
  }
  if (ok && shape.empty() && ratio->has("shape")) {
    ratio->error_at("shape", "expected at least one point {utilization, score}, found none");
    ok = false;
  }
  ratio->finish();
  if (ok) out.shape = std::move(shape);
}

}  // namespace

SchedulerScoring read_scheduler_scoring(FieldReader& args) {
  SchedulerScoring out;
  if (!args.has("schedulerScoring")) return out;
  std::optional<FieldReader> scoring = args.object("schedulerScoring");
  if (!scoring || !scoring->valid()) return out;
  if (std::optional<std::string> type = scoring->choice("type", kTypes)) out.type = *type;
  read_resources(*scoring, out);
  const bool ratio = out.type == "RequestedToCapacityRatio";
  if (scoring->has("requestedToCapacityRatio")) {
    if (ratio) {
      read_shape(*scoring, out);
    } else {
      scoring->error_at("requestedToCapacityRatio",
                        "only with type RequestedToCapacityRatio (type is " + out.type + ")");
    }
  } else if (ratio) {
    scoring->error(
        "type RequestedToCapacityRatio needs requestedToCapacityRatio.shape, e.g. [{utilization: "
        "0, score: 0}, {utilization: 100, score: 10}]");
  }
  scoring->finish();
  return out;
}

void write_scheduler_scoring(const SchedulerScoring& scoring, YAML::Emitter& out) {
  out << YAML::Key << "schedulerScoring" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "type" << YAML::Value << scoring.type;
  out << YAML::Key << "resources" << YAML::Value << YAML::BeginSeq;
  for (const auto& [name, weight] : scoring.resources) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name << YAML::Key
        << "weight" << YAML::Value << weight << YAML::EndMap;
  }
  out << YAML::EndSeq;
  if (!scoring.shape.empty()) {
    out << YAML::Key << "requestedToCapacityRatio" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "shape" << YAML::Value << YAML::BeginSeq;
    for (const auto& [utilization, score] : scoring.shape) {
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "utilization" << YAML::Value
          << utilization << YAML::Key << "score" << YAML::Value << score << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap;
  }
  out << YAML::EndMap;
}

}  // namespace loadshift::policy

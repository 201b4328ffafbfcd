// The soft taint: which nodes gain or lose it, and the JSON Patch that does it.
#include "controller/soft_taint.h"

#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "controller/structured_log.h"

namespace loadshift::controller {
namespace {

using nlohmann::json;
using strategies::NodeClass;

bool is_soft_taint(const model::Taint& taint) {
  return taint.key == kSoftTaintKey && taint.effect == model::TaintEffect::kPreferNoSchedule;
}

std::string answer_text(const kube::ApiAnswer& answer) {
  std::string text = std::to_string(answer.status);
  if (!answer.reason.empty()) text += " " + answer.reason;
  if (!answer.message.empty()) text += ": " + answer.message;
  return text;
}

// The patch that makes `node` (as seen) carry the taint (add) or not; empty when it already is
// so.
json taint_patch(const model::Node& node, bool add) {
  json ops = json::array();
  ops.push_back({{"op", "test"},
                 {"path", "/metadata/resourceVersion"},
                 {"value", node.meta.resource_version}});
  if (add) {
    if (has_soft_taint(node)) return json::array();
    const json taint = {{"key", kSoftTaintKey}, {"effect", "PreferNoSchedule"}};
    if (node.taints.empty()) {
      // spec.taints may be absent: "add" creates it (or replaces the empty list the test saw).
      ops.push_back({{"op", "add"}, {"path", "/spec/taints"}, {"value", json::array({taint})}});
    } else {
      ops.push_back({{"op", "add"}, {"path", "/spec/taints/-"}, {"value", taint}});
    }
    return ops;
  }
  for (size_t i = 0; i < node.taints.size(); ++i) {
    if (!is_soft_taint(node.taints[i])) continue;
    const std::string at = "/spec/taints/" + std::to_string(i);
    ops.push_back({{"op", "test"}, {"path", at + "/key"}, {"value", kSoftTaintKey}});
    ops.push_back({{"op", "test"}, {"path", at + "/effect"}, {"value", "PreferNoSchedule"}});
    ops.push_back({{"op", "remove"}, {"path", at}});
    return ops;
  }
  return json::array();
}

}  // namespace

bool has_soft_taint(const model::Node& node) {
  for (const model::Taint& taint : node.taints) {
    if (is_soft_taint(taint)) return true;
  }
  return false;
}

SoftTaintPlan plan_soft_taints(const model::Snapshot& snapshot, const strategies::Plan& plan) {
  SoftTaintPlan out;
  std::map<placement::NodeId, size_t> evicted_from;
  for (const strategies::EvictionDecision& decision : plan.evictions) {
    if (decision.node != placement::kNoNode) ++evicted_from[decision.node];
  }
  for (const model::Node& node : snapshot.nodes) {
    if (has_soft_taint(node)) ++out.carrying;
  }
  for (const strategies::NodeState& state : plan.nodes) {
    if (state.node >= snapshot.nodes.size()) continue;
    const model::Node& node = snapshot.nodes[state.node];
    const bool carries = has_soft_taint(node);
    switch (state.node_class) {
      case NodeClass::kOverutilized: {
        // Every hot node, with evictions or not: the plan's scheduler model counted the taint on
        // all of them (a hot node without it would look the emptiest and draw the replacements).
        auto evicted = evicted_from.find(state.node);
        if (!carries) {
          out.changes.push_back(
              {state.node, true,
               "overutilized (" + state.why + "), " +
                   std::to_string(evicted == evicted_from.end() ? 0 : evicted->second) +
                   " eviction(s) planned"});
        }
        break;
      }
      case NodeClass::kUnderutilized:
      case NodeClass::kAppropriate:
        if (carries) {
          out.changes.push_back({state.node, false,
                                 std::string("cooled: ") + strategies::to_string(state.node_class) +
                                     (state.why.empty() ? std::string() : " (" + state.why + ")")});
        }
        break;
      case NodeClass::kUnknown:
      case NodeClass::kUnclassified:
        if (carries) {
          out.kept_unknown.emplace_back(state.node,
                                        std::string(strategies::to_string(state.node_class)) +
                                            (state.why.empty() ? std::string() : ": " + state.why));
        }
        break;
    }
  }
  return out;
}

SoftTainter::SoftTainter(kube::ApiClient& client, const kube::WatchCache& cache,
                         std::chrono::milliseconds request_timeout)
    : client_(client), cache_(cache), request_timeout_(request_timeout) {}

std::string SoftTainter::patch(const std::string& name, const model::Node& seen, bool add,
                               const std::function<std::string()>& may_write,
                               std::string* resource_version) {
  resource_version->clear();
  const std::string path = "/api/v1/nodes/" + name;
  const kube::WriteOptions options{1, request_timeout_, &may_write, "application/json-patch+json"};
  std::optional<model::Node> node = seen;
  std::string last;
  constexpr int kAttempts = 3;
  for (int attempt = 1; attempt <= kAttempts; ++attempt) {
    if (attempt > 1) {
      // Give the watch a moment to bring the newer node, then patch that one.
      std::this_thread::sleep_for(std::chrono::milliseconds(200 * (attempt - 1)));
      node = cache_.node(name);
      if (!node || node->meta.uid != seen.meta.uid) return "node " + name + " is gone";
    }
    json ops = taint_patch(*node, add);
    if (ops.empty()) return "";  // already as wanted
    kube::ApiAnswer answer;
    try {
      answer = client_.send("PATCH", path, ops.dump(), options);
    } catch (const kube::ApiError& e) {
      return e.what();  // 401, 403, no answer: another try now cannot help
    }
    if (answer.status == 0 && answer.reason == "NotAllowed") return answer.message;
    if (answer.ok()) {
      json patched = json::parse(answer.body, nullptr, false);
      // Only a patch of the node as the plan saw it: after a retry, someone else changed the
      // node too, and the executor must see that change.
      if (node->meta.resource_version == seen.meta.resource_version && patched.is_object() &&
          patched.contains("metadata") && patched["metadata"].is_object()) {
        *resource_version = patched["metadata"].value("resourceVersion", "");
      }
      return "";
    }
    last = answer_text(answer);
    // 422: a test failed (the node changed since it was seen); 409: a conflicting write.
    if (answer.status != 422 && answer.status != 409) return "PATCH " + path + ": " + last;
  }
  return "PATCH " + path + ": the node kept changing (" + std::to_string(kAttempts) +
         " attempts; last answer: " + last + ")";
}

SoftTaintResult SoftTainter::apply(const model::Snapshot& snapshot, const strategies::Plan& plan,
                                   const std::function<std::string()>& may_write) {
  SoftTaintResult result;
  SoftTaintPlan wanted = plan_soft_taints(snapshot, plan);
  result.tainted = wanted.carrying;
  for (const auto& [id, why] : wanted.kept_unknown) {
    log_line(spdlog::level::info, "soft taint kept",
             {{"node", snapshot.nodes[id].meta.name},
              {"taint", std::string(kSoftTaintKey) + ":PreferNoSchedule"},
              {"reason", "class " + why + ": the taint stays until the node is known to be cool"}});
  }
  for (const SoftTaintChange& change : wanted.changes) {
    const model::Node& node = snapshot.nodes[change.node];
    const std::string& name = node.meta.name;
    std::string version;
    std::string error;
    try {
      error = patch(name, node, change.add, may_write, &version);
    } catch (const std::exception& e) {
      error = e.what();
    }
    LogFields fields{{"node", name},
                     {"taint", std::string(kSoftTaintKey) + ":PreferNoSchedule"},
                     {"reason", change.why}};
    if (!error.empty()) {
      ++result.failed;
      fields.emplace_back("error", error);
      if (change.add) {
        result.writes.refused[name] = error;
        fields.emplace_back("consequence", "no pod is evicted from this node this cycle");
      } else {
        fields.emplace_back("consequence", "the taint stays; the next cycle tries again");
      }
      log_line(spdlog::level::warn, change.add ? "soft taint failed" : "soft taint not removed",
               fields);
      continue;
    }
    if (!version.empty()) result.writes.patched[name] = version;
    if (change.add) {
      ++result.added;
      ++result.tainted;
      log_line(spdlog::level::info, "soft taint added", fields);
    } else {
      ++result.removed;
      --result.tainted;
      log_line(spdlog::level::info, "soft taint removed", fields);
    }
  }
  return result;
}

}  // namespace loadshift::controller

// The eviction subresource (POST /api/v1/namespaces/NS/pods/NAME/eviction), following the steps of
// the apiserver's EvictionREST.Create: name check, the pod, the PodDisruptionBudget check and
// decrement (skipped for pods that are not running or already terminating), then the pod's delete
// with the request's deleteOptions (preconditions, dry run, grace period).
#include <chrono>

#include <nlohmann/json.hpp>

#include "test/kube/fake_api_impl.h"
#include "test/kube/fake_api_responses.h"

namespace loadshift::testing {
namespace {

using nlohmann::json;

constexpr char kPods[] = "/api/v1/pods";
constexpr char kPdbs[] = "/apis/policy/v1/poddisruptionbudgets";
constexpr char kSuccess[] =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201})"
    "\n";
constexpr size_t kMaxDisruptedPods = 2000;  // the apiserver's MaxDisruptedPodSize
constexpr int kDefaultGraceSeconds = 30;

std::string text_at(const json& object, const char* a, const char* b) {
  if (!object.contains(a) || !object[a].is_object() || !object[a].contains(b) ||
      !object[a][b].is_string())
    return "";
  return object[a][b].get<std::string>();
}

int64_t int_at(const json& object, const char* a, const char* b, int64_t fallback = 0) {
  if (!object.contains(a) || !object[a].is_object() || !object[a].contains(b) ||
      !object[a][b].is_number()) {
    return fallback;
  }
  return object[a][b].get<int64_t>();
}

// Does a policy/v1 label selector match these labels? No selector matches nothing; an empty one
// ({}) every pod; a selector that does not parse (unknown operator) matches nothing.
bool selector_matches(const json& spec, const json& labels) {
  if (!spec.is_object() || !spec.contains("selector") || !spec["selector"].is_object())
    return false;
  const json& selector = spec["selector"];
  auto label = [&](const std::string& key) -> std::optional<std::string> {
    if (!labels.is_object() || !labels.contains(key) || !labels[key].is_string())
      return std::nullopt;
    return labels[key].get<std::string>();
  };
  if (selector.contains("matchLabels") && selector["matchLabels"].is_object()) {
    for (const auto& [key, value] : selector["matchLabels"].items()) {
      if (label(key) != value.get<std::string>()) return false;
    }
  }
  if (selector.contains("matchExpressions") && selector["matchExpressions"].is_array()) {
    for (const auto& e : selector["matchExpressions"]) {
      const std::string op = e.value("operator", "");
      const auto have = label(e.value("key", ""));
      const json values = e.value("values", json::array());
      const bool listed =
          have && std::find(values.begin(), values.end(), json(*have)) != values.end();
      if (op == "In") {
        if (!listed) return false;
      } else if (op == "NotIn") {
        if (listed) return false;
      } else if (op == "Exists") {
        if (!have) return false;
      } else if (op == "DoesNotExist") {
        if (have) return false;
      } else {
        return false;
      }
    }
  }
  return true;
}

bool pod_ready(const json& pod) {
  if (!pod.contains("status") || !pod["status"].contains("conditions")) return false;
  for (const auto& c : pod["status"]["conditions"]) {
    if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
  }
  return false;
}

// A pod that no longer runs (or not yet) or is already terminating is deleted without a PDB check.
bool can_ignore_pdb(const json& pod) {
  const std::string phase = text_at(pod, "status", "phase");
  return phase == "Succeeded" || phase == "Failed" || phase == "Pending" ||
         !text_at(pod, "metadata", "deletionTimestamp").empty();
}

std::string too_many_requests(const std::string& cause, std::optional<int> retry_after) {
  std::string details =
      R"({"causes":[{"reason":"DisruptionBudget","message":)" + json_string(cause) + "}]";
  if (retry_after) details += R"(,"retryAfterSeconds":)" + std::to_string(*retry_after);
  return status_body(429, "TooManyRequests",
                     "Cannot evict pod as it would violate the pod's disruption budget.",
                     details + "}");
}

std::string pdb_forbidden(const std::string& name, const std::string& why) {
  return status_body(403, "Forbidden",
                     "poddisruptionbudget.policy " + json_string(name) + " is forbidden: " + why,
                     details_json(name, "policy", "poddisruptionbudget"));
}

}  // namespace

using namespace fake;

void FakeApiServer::Impl::serve_eviction(const httplib::Request& req, httplib::Response& res,
                                         const ResourcePath& p) {
  const json eviction = json::parse(req.body, nullptr, false);
  if (eviction.is_discarded() || !eviction.is_object()) {
    json_answer(
        res, 400,
        status_body(400, "BadRequest", "the object provided is unrecognized (not a JSON object)"));
    return;
  }
  if (text_at(eviction, "metadata", "name") != p.name) {  // 27
    json_answer(
        res, 400,
        status_body(400, "BadRequest", "name in URL does not match name in Eviction object"));
    return;
  }
  const json delete_options =
      eviction.contains("deleteOptions") && eviction["deleteOptions"].is_object()
          ? eviction["deleteOptions"]
          : json::object();
  const bool dry_run = req.get_param_value("dryRun") == "All" ||
                       (delete_options.contains("dryRun") && delete_options["dryRun"].is_array() &&
                        std::find(delete_options["dryRun"].begin(), delete_options["dryRun"].end(),
                                  json("All")) != delete_options["dryRun"].end());

  std::lock_guard writes(write_mu);
  const FakeResource& pods = store.resource_for_collection(kPods, nullptr);
  auto pod_text = store.get(pods, p.ns, p.name);
  if (!pod_text) {  // 25
    json_answer(res, 404, not_found_body("pods", "", p.name));
    return;
  }
  json pod = json::parse(*pod_text);
  const auto now = std::chrono::system_clock::now();

  if (!can_ignore_pdb(pod)) {
    std::vector<json> budgets;
    for (auto& pdb : store.objects(kPdbs)) {
      if (text_at(pdb, "metadata", "namespace") == p.ns &&
          selector_matches(pdb.value("spec", json::object()),
                           pod["metadata"].value("labels", json::object()))) {
        budgets.push_back(std::move(pdb));
      }
    }
    if (budgets.size() > 1) {  // a Status result of the handler: no reason
      json_answer(
          res, 500,
          R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.","code":500})"
          "\n");
      return;
    }
    if (budgets.size() == 1) {
      json& pdb = budgets[0];
      const std::string name = text_at(pdb, "metadata", "name");
      const int64_t desired = int_at(pdb, "status", "desiredHealthy");
      const int64_t current = int_at(pdb, "status", "currentHealthy");
      const int64_t allowed = int_at(pdb, "status", "disruptionsAllowed");
      // An unready pod does not count as healthy: with enough healthy ones it goes without a
      // decrement.
      const bool skip = !pod_ready(pod) && current >= desired && desired > 0;
      if (!skip) {
        if (int_at(pdb, "status", "observedGeneration") < int_at(pdb, "metadata", "generation")) {
          json_answer(res, 429,
                      too_many_requests("The disruption budget " + name +
                                            " is still being processed by the server.",
                                        10));
          res.set_header("Retry-After", "10");
          return;
        }
        if (allowed < 0) {
          json_answer(res, 403, pdb_forbidden(name, "pdb disruptions allowed is negative"));
          return;
        }
        json& disrupted = pdb["status"]["disruptedPods"];
        if (disrupted.is_object() && disrupted.size() > kMaxDisruptedPods) {
          json_answer(res, 403,
                      pdb_forbidden(name,
                                    "DisruptedPods map too big - too many evictions not confirmed "
                                    "by PDB controller"));
          return;
        }
        if (allowed == 0) {  // 24
          json_answer(res, 429,
                      too_many_requests("The disruption budget " + name + " needs " +
                                            std::to_string(desired) + " healthy pods and has " +
                                            std::to_string(current) + " currently",
                                        std::nullopt));
          return;
        }
        if (!dry_run) {
          pdb["status"]["disruptionsAllowed"] = allowed - 1;
          if (!disrupted.is_object()) disrupted = json::object();
          disrupted[p.name] = rfc3339(now);
          store.upsert(kPdbs, std::move(pdb));
        }
      }
    }
  }

  // The delete: preconditions first (a dry run checks them too), then the grace period.
  const json preconditions = delete_options.value("preconditions", json::object());
  for (const char* field : {"uid", "resourceVersion"}) {
    if (!preconditions.is_object() || !preconditions.contains(field) ||
        !preconditions[field].is_string())
      continue;
    const std::string wanted = preconditions[field].get<std::string>();
    const std::string have = text_at(pod, "metadata", field);
    if (wanted == have) continue;
    const std::string what = std::string(field) == "uid" ? "UID" : "ResourceVersion";
    json_answer(
        res, 409,
        status_body(409, "Conflict",
                    "Operation cannot be fulfilled on pods " + json_string(p.name) +
                        ": StorageError: invalid object, Code: 4, Key: /registry/pods/" + p.ns +
                        "/" + p.name +
                        ", ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: " + what +
                        " in precondition: " + wanted + ", " + what + " in object meta: " + have,
                    details_json(p.name, "", "pods")));
    return;
  }
  if (dry_run) {  // 20, 21
    json_answer(res, 201, kSuccess);
    return;
  }
  int64_t grace = delete_options.contains("gracePeriodSeconds") &&
                          delete_options["gracePeriodSeconds"].is_number()
                      ? delete_options["gracePeriodSeconds"].get<int64_t>()
                      : int_at(pod, "spec", "terminationGracePeriodSeconds", kDefaultGraceSeconds);
  const std::string phase = text_at(pod, "status", "phase");
  if (text_at(pod, "spec", "nodeName").empty() || phase == "Succeeded" || phase == "Failed")
    grace = 0;
  if (!this->options.evicted_pods_terminate || grace <= 0) {
    store.remove(kPods, p.ns, p.name);
  } else if (text_at(pod, "metadata", "deletionTimestamp")
                 .empty()) {  // 23: terminating, still there
    json& meta = pod["metadata"];
    meta["deletionTimestamp"] = rfc3339(now + std::chrono::seconds(grace));
    meta["deletionGracePeriodSeconds"] = grace;
    json& conditions = pod["status"]["conditions"];
    if (!conditions.is_array()) conditions = json::array();
    conditions.push_back({{"type", "DisruptionTarget"},
                          {"status", "True"},
                          {"lastProbeTime", nullptr},
                          {"lastTransitionTime", rfc3339(now)},
                          {"reason", "EvictionByEvictionAPI"},
                          {"message", "Eviction API: evicting"}});
    store.upsert(kPods, std::move(pod));
  }
  json_answer(res, 201, kSuccess);  // 22
}

}  // namespace loadshift::testing

// The fake API server's writes: create (POST to a collection), update (PUT of one object) and JSON
// Patch (PATCH of one object) of any known resource, as the apiserver's generic registry and
// its patch handler do them.
#include <chrono>
#include <random>

#include <nlohmann/json.hpp>

#include "test/kube/fake_api_impl.h"
#include "test/kube/fake_api_responses.h"

namespace loadshift::testing {
namespace {

using nlohmann::json;

// Leases and Events may be created by a PUT of a missing name (AllowCreateOnUpdate in their
// registry strategies); other resources answer 404.
bool creates_on_update(const FakeResource& r) {
  return (r.resource == "leases" && r.group == "coordination.k8s.io") || r.resource == "events";
}

// Leases refuse an update without metadata.resourceVersion (AllowUnconditionalUpdate false);
// other resources then update unconditionally.
bool needs_resource_version(const FakeResource& r) {
  return r.resource == "leases" && r.group == "coordination.k8s.io";
}

// generateName plus five characters, like names.SimpleNameGenerator.
std::string generate_name(const std::string& base) {
  static constexpr char kAlphanums[] = "bcdfghjklmnpqrstvwxz2456789";
  static thread_local std::mt19937 random{std::random_device{}()};
  std::string out = base;
  for (int i = 0; i < 5; ++i) out += kAlphanums[random() % (sizeof kAlphanums - 1)];
  return out;
}

// The fields the apiserver adds to an Event it stores (33, 34): null or empty, not left out.
void default_event_fields(const FakeResource& r, json& object) {
  if (r.resource != "events") return;
  if (r.group == "events.k8s.io") {
    if (!object.contains("deprecatedSource")) object["deprecatedSource"] = json::object();
    if (!object.contains("deprecatedFirstTimestamp")) object["deprecatedFirstTimestamp"] = nullptr;
    if (!object.contains("deprecatedLastTimestamp")) object["deprecatedLastTimestamp"] = nullptr;
  } else if (!object.contains("eventTime")) {
    object["eventTime"] = nullptr;
  }
}

// Status details with one more field, e.g. causes.
std::string with_causes(std::string details, const std::string& field) {
  details.pop_back();
  return details + "," + field + "}";
}

// The request's body as a JSON object with a metadata object, or an answer of 400.
std::optional<json> read_body(const httplib::Request& req, httplib::Response& res) {
  json body = json::parse(req.body, nullptr, false);
  if (body.is_discarded() || !body.is_object() ||
      (body.contains("metadata") && !body["metadata"].is_object())) {
    fake::json_answer(
        res, 400,
        status_body(400, "BadRequest", "the object provided is unrecognized (not a JSON object)"));
    return std::nullopt;
  }
  if (!body.contains("metadata")) body["metadata"] = json::object();
  return body;
}

// 400 when the body names another namespace than the URL; fills it in when absent.
bool check_namespace(const FakeResource& r, const ResourcePath& p, json& body,
                     httplib::Response& res) {
  if (!r.namespaced) return true;
  json& meta = body["metadata"];
  if (meta.contains("namespace") && meta["namespace"].is_string() &&
      !meta["namespace"].get<std::string>().empty() && meta["namespace"] != p.ns) {
    fake::json_answer(res, 400,
                      status_body(400, "BadRequest",
                                  "the namespace of the provided object does not match the "
                                  "namespace sent on the request"));
    return false;
  }
  meta["namespace"] = p.ns;
  return true;
}

// Stores a new object: uid, creationTimestamp and (by the store) resourceVersion; the answer is
// 201.
void create_locked(ObjectStore& store, const FakeResource& r, json body, httplib::Response& res) {
  json& meta = body["metadata"];
  meta["uid"] = new_uid();
  meta["creationTimestamp"] = rfc3339(std::chrono::system_clock::now());
  meta.erase("resourceVersion");
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
  default_event_fields(r, body);
  fake::json_answer(res, 201, store.upsert(r.collection(), std::move(body)));
}

}  // namespace

using namespace fake;

void FakeApiServer::Impl::serve_create(const httplib::Request& req, httplib::Response& res,
                                       const FakeResource& r, const ResourcePath& p) {
  auto body = read_body(req, res);
  if (!body || !check_namespace(r, p, *body, res)) return;
  json& meta = (*body)["metadata"];
  std::string name = meta.value("name", "");
  if (name.empty() && meta.contains("generateName") && meta["generateName"].is_string()) {
    name = generate_name(meta["generateName"].get<std::string>());
  }
  if (name.empty()) {
    const std::string kind = qualified_resource(r.resource, r.group);
    json_answer(
        res, 422,
        status_body(
            422, "Invalid",
            kind +
                R"( "" is invalid: metadata.name: Required value: name or generateName is required)",
            with_causes(
                details_json("", r.group, r.resource),
                R"("causes":[{"reason":"FieldValueRequired","message":"Required value: name or generateName is required","field":"metadata.name"}])")));
    return;
  }
  meta["name"] = name;
  std::lock_guard writes(write_mu);
  if (store.get(r, p.ns, name)) {
    json_answer(res, 409,
                status_body(409, "AlreadyExists",
                            qualified_resource(r.resource, r.group) + " " + json_string(name) +
                                " already exists",
                            details_json(name, r.group, r.resource)));
    return;
  }
  create_locked(store, r, std::move(*body), res);
}

void FakeApiServer::Impl::serve_update(const httplib::Request& req, httplib::Response& res,
                                       const FakeResource& r, const ResourcePath& p) {
  auto body = read_body(req, res);
  if (!body || !check_namespace(r, p, *body, res)) return;
  json& meta = (*body)["metadata"];
  const std::string name = meta.value("name", "");
  if (name != p.name) {
    json_answer(res, 400,
                status_body(400, "BadRequest",
                            "the name of the object (" + name +
                                ") does not match the name on the URL (" + p.name + ")"));
    return;
  }
  const std::string qualified = qualified_resource(r.resource, r.group);
  std::lock_guard writes(write_mu);
  auto current_text = store.get(r, p.ns, name);
  if (!current_text) {
    if (!creates_on_update(r)) {
      json_answer(res, 404, not_found_body(r.resource, r.group, name));
      return;
    }
    create_locked(store, r, std::move(*body), res);
    return;
  }
  const json current = json::parse(*current_text);
  const std::string wanted_rv = meta.value("resourceVersion", "");
  if (wanted_rv.empty() && needs_resource_version(r)) {
    json_answer(
        res, 422,
        status_body(
            422, "Invalid",
            qualified + " " + json_string(name) +
                " is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for "
                "an update",
            with_causes(
                details_json(name, r.group, r.resource),
                R"("causes":[{"reason":"FieldValueInvalid","message":"Invalid value: 0x0: must be specified for an update","field":"metadata.resourceVersion"}])")));
    return;
  }
  if (!wanted_rv.empty() && wanted_rv != current["metadata"].value("resourceVersion", "")) {
    json_answer(
        res, 409,
        status_body(409, "Conflict",
                    "Operation cannot be fulfilled on " + qualified + " " + json_string(name) +
                        ": the object has been modified; please apply your changes to the latest "
                        "version and try again",
                    details_json(name, r.group, r.resource)));
    return;
  }
  // What the server owns stays as it was.
  for (const char* field :
       {"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"}) {
    if (current["metadata"].contains(field)) {
      meta[field] = current["metadata"][field];
    } else {
      meta.erase(field);
    }
  }
  default_event_fields(r, *body);
  json_answer(res, 200, store.upsert(r.collection(), std::move(*body)));
}

void FakeApiServer::Impl::serve_patch(const httplib::Request& req, httplib::Response& res,
                                      const FakeResource& r, const ResourcePath& p) {
  const std::string content_type = req.get_header_value("Content-Type");
  if (content_type.rfind("application/json-patch+json", 0) != 0) {
    // The apiserver also takes merge, strategic merge and apply patches; the fake does not.
    json_answer(res, 415,
                status_body(415, "UnsupportedMediaType",
                            "the body of the request was in an unknown format - accepted media "
                            "types include: application/json-patch+json"));
    return;
  }
  // DecodePatch: a body that is not a list of operations is 400 BadRequest.
  json ops = json::parse(req.body, nullptr, false);
  bool well_formed = ops.is_array();
  for (const json& op : well_formed ? ops : json::array()) {
    if (!op.is_object() || !op.contains("op") || !op["op"].is_string() || !op.contains("path") ||
        !op["path"].is_string()) {
      well_formed = false;
    }
  }
  if (!well_formed) {
    json_answer(
        res, 400,
        status_body(400, "BadRequest", "invalid JSON Patch: expected a list of operations"));
    return;
  }
  std::lock_guard writes(write_mu);
  auto current_text = store.get(r, p.ns, p.name);
  if (!current_text) {
    json_answer(res, 404, not_found_body(r.resource, r.group, p.name));
    return;
  }
  const json current = json::parse(*current_text);
  json patched;
  try {
    patched = current.patch(ops);
  } catch (const json::exception& e) {
    // Apply failed (evanphx/json-patch's ErrTestFailed, ErrMissing, ...): the handler answers 422
    // through NewGenericServerResponse, the library's error as the cause.
    const bool test_failed = e.id == 501;
    std::string cause = test_failed ? "testing value failed: test failed"
                                    : std::string("doc is missing path: ") + e.what();
    for (const json& op : ops) {
      if (test_failed && op["op"] == "test") {
        // nlohmann does not say which test failed: name the first one that does not hold.
        try {
          json probe = current;
          probe.patch(json::array({op}));
        } catch (const json::exception&) {
          cause = "testing value " + op["path"].get<std::string>() + " failed: test failed";
          break;
        }
      }
    }
    json_answer(res, 422,
                status_body(422, "Invalid",
                            "the server rejected our request due to an error in our request",
                            R"({"causes":[{"reason":"UnexpectedServerResponse","message":)" +
                                json_string(cause) + "}]}"));
    return;
  }
  if (!patched.is_object() || !patched.contains("metadata") || !patched["metadata"].is_object() ||
      patched["metadata"].value("name", "") != p.name) {
    json_answer(res, 422,
                status_body(422, "Invalid",
                            qualified_resource(r.resource, r.group) + " " + json_string(p.name) +
                                " is invalid: metadata.name: the patch may not change the name"));
    return;
  }
  json& meta = patched["metadata"];
  // A resourceVersion the patch set is a precondition (409 when stale), as in the apiserver.
  const std::string current_rv = current["metadata"].value("resourceVersion", "");
  if (meta.value("resourceVersion", "") != current_rv) {
    json_answer(
        res, 409,
        status_body(409, "Conflict",
                    "Operation cannot be fulfilled on " + qualified_resource(r.resource, r.group) +
                        " " + json_string(p.name) +
                        ": the object has been modified; please apply your changes to the latest "
                        "version and try again",
                    details_json(p.name, r.group, r.resource)));
    return;
  }
  for (const char* field : {"uid", "creationTimestamp", "deletionTimestamp",
                            "deletionGracePeriodSeconds", "namespace"}) {
    if (current["metadata"].contains(field)) {
      meta[field] = current["metadata"][field];
    } else {
      meta.erase(field);
    }
  }
  json_answer(res, 200, store.upsert(r.collection(), std::move(patched)));
}

}  // namespace loadshift::testing
